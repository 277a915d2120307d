# An operand that is not an integer.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:18: error: invalid integer '12abc'
preload spad_row=12abc
