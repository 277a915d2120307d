# A .half value must fit in 16 bits, signed or unsigned (-32768..65535).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

.data 0
# CHECK: [[@LINE+1]]:22: error: half value 65536 out of range [-32768, 65535]
.half -32768, 65535, 65536
