# A dimension above 2^32 (what the .sbin container and .npy files hold) is refused where it is
# written, even when another dimension is 0 and the tensor fits in DRAM (found by the asm fuzzer:
# the container then failed to read back the program the assembler had written).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:29: error: dimension 42924967296 is above 4294967296
.tensor input huge int8 [0, 42924967296] @0
