# Two tensors with the same name.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

.tensor input x int8 [4] @0
# CHECK: [[@LINE+1]]:16: error: duplicate tensor 'x'
.tensor output x int8 [4] @0x100
