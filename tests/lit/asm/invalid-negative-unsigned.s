# A negative value for an unsigned field.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:18: error: value -1 out of range for field 'spad_row' [0, 16383]
preload spad_row=-1
