# A tensor needs '@ADDRESS' after its shape.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:26: error: expected '@ADDRESS' after the shape
.tensor input x int8 [4] 0x100
