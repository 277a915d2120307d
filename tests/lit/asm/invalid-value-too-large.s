# A value wider than its field (m has 16 bits).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:14: error: value 65536 out of range for field 'm' [0, 65535]
gemm 0, 0, m=65536, accumulate=0
