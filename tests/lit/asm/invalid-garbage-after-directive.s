# Anything after a complete directive is an error.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:9: error: unexpected '1' at end of statement
.data 0 1
