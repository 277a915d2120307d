# A .byte value below -128.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

.data 0
# CHECK: [[@LINE+1]]:7: error: byte value -129 out of range [-128, 255]
.byte -129
