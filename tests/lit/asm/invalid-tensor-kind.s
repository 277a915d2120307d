# A tensor kind that is not input, output, constant or intermediate.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:9: error: expected a tensor kind (input, output, constant, intermediate)
.tensor weight w int8 [4] @0
