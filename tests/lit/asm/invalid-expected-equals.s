# A field name must be followed by '='.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:23: error: expected '=' after field name 'acc_row'
gemm a_row=0, acc_row 0, m=1, accumulate=0
