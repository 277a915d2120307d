# A tensor dtype that is not int8, uint8, int16, int32 or float32.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:17: error: expected a dtype (int8, uint8, int16, int32, float32), got 'int64'
.tensor input x int64 [4] @0
