# Once a field is named, the rest must be named too.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:26: error: positional operand after a named one
gemm a_row=0, acc_row=0, 16, 1
