# More positional operands than the instruction has fields.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:18: error: too many operands for 'vadd' (it has 4)
vadd 0, 1, 2, 3, 4
