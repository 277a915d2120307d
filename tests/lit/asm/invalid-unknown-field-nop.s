# A named operand for an instruction without fields.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:5: error: unknown field 'x' for 'nop' (fields: none)
nop x=1
