# A scale must be a finite 32-bit float.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:35: error: invalid number '1e99'
.tensor input x int8 [4] @0 scale=1e99
