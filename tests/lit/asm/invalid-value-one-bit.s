# A 1-bit flag field takes only 0 or 1.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:16: error: value 2 out of range for field 'accumulate' [0, 1]
gemm 0, 0, 16, 2
