# Assembly stops at the first error: only the earliest bad line is reported.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

nop
# CHECK: [[@LINE+1]]:1: error: unknown instruction 'frob'
frob
# CHECK-NOT: error:
frobnicate
