# An instruction with fields given none.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:8: error: missing operand 'spad_row' for 'preload'
preload
