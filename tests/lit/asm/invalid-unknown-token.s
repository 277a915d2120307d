# A dependency token that does not exist.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:17: error: unknown dependency token 'pop_both' (expected pop_prev, pop_next, push_prev, push_next)
nop [push_next, pop_both]
