# A .word value must fit in 32 bits, signed or unsigned.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

.data 0
# CHECK: [[@LINE+1]]:19: error: word value 0x100000000 out of range [-2147483648, 4294967295]
.word 0xffffffff, 0x100000000
