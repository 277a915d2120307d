# A tensor attribute given twice.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:39: error: tensor attribute 'scale' given twice
.tensor input x int8 [4] @0 scale=0.5 scale=0.25
