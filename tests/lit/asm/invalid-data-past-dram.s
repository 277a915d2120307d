# A data segment that runs past the end of DRAM: the first value that does not fit is named.
# RUN: not %systole asm %s --isa %configs/tiny.yaml -o %t.sbin 2>&1 | FileCheck %s

.data 0xfffffc
.word 7
# CHECK: [[@LINE+1]]:7: error: data segment at 16777212 does not fit in DRAM (16777216 bytes)
.byte 1, 2
