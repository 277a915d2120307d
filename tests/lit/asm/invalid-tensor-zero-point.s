# A zero point must fit in 32 bits (the container stores an i32).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:40: error: zero_point 4294967296 out of 32-bit range
.tensor input x int8 [4] @0 zero_point=4294967296
