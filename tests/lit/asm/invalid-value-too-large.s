# A value wider than its field (m has bits_for(accumulator.rows) = 11 bits on default).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:14: error: value 2048 out of range for field 'm' [0, 2047]
gemm 0, 0, m=2048, accumulate=0
