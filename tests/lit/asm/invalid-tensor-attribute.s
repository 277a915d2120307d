# A tensor attribute other than scale and zero_point.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:29: error: unknown tensor attribute 'offset' (expected scale or zero_point)
.tensor input x int8 [4] @0 offset=1
