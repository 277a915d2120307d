# '.zero' also needs a segment opened by '.data ADDR' first.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:1: error: '.zero' before any '.data ADDR' directive
.zero 16
