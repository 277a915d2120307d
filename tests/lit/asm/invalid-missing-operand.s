# Every field must be given; the error points where the missing operand would go.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:12: error: missing operand 'm' for 'gemm'
gemm 16, 0 [pop_prev]
