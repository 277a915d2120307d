# An operand for an instruction without fields.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:8: error: too many operands for 'finish' (it has 0)
finish 0
