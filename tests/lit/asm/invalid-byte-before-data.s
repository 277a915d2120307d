# Data directives need a segment opened by '.data ADDR' first; a tensor does not open one.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

.tensor input x int8 [4] @0
# CHECK: [[@LINE+1]]:3: error: '.byte' before any '.data ADDR' directive
  .byte 1, 2, 3, 4
