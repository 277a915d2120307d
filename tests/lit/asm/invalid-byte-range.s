# A .byte value must fit in a byte, signed or unsigned (-128..255).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

.data 0
# CHECK: [[@LINE+1]]:15: error: byte value 256 out of range [-128, 255]
.byte 0, 255, 256
