# A tensor shape must be a bracketed, comma-separated list of dimensions.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:28: error: expected ',' or ']' in the shape
.tensor input x int8 [4, 4 @0
