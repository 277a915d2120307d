# A dependency token given twice.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:16: error: token 'pop_prev' given twice
nop [pop_prev, pop_prev]
