# A field name the instruction does not have; the error lists the ones it has.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:26: error: unknown field 'n' for 'gemm' (fields: a_row, acc_row, m, accumulate)
gemm a_row=1, acc_row=2, n=3, accumulate=0
