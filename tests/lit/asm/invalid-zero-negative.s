# '.zero' takes a non-negative count.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

.data 0
# CHECK: [[@LINE+1]]:7: error: byte count must not be negative
.zero -1
