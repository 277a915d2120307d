# A token list must be comma-separated and end with ']'.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:15: error: expected ',' or ']' after a token
nop [pop_prev pop_next]
