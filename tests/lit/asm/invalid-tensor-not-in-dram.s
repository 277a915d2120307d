# A tensor that does not fit in DRAM (16 MiB on tiny); the error names the tensor.
# RUN: not %systole asm %s --isa %configs/tiny.yaml -o %t.sbin 2>&1 | FileCheck %s

.tensor input fits int32 [1024, 1024, 4] @0
# CHECK: [[@LINE+1]]:15: error: tensor 'big' does not fit in DRAM
.tensor input big int8 [16, 1024, 1024] @0x1
