# A field given positionally and then again by name.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:15: error: field 'a_row' given twice
vadd 0, 1, 2, a_row=1, rows=4
