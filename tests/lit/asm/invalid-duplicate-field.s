# A field given twice by name; the error points at the second.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:43: error: field 'rows' given twice
vadd dst_row=0, a_row=1, rows=2, b_row=3, rows=2
