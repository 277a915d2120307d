# Anything after a complete statement is an error.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:29: error: unexpected 'extra' at end of statement
gemm 0, 0, 16, 1 [pop_prev] extra
