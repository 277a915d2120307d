# A name where a value is expected.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:18: error: expected an integer, got 'row'
preload spad_row=row
