# '.zero' that runs past the end of DRAM.
# RUN: not %systole asm %s --isa %configs/tiny.yaml -o %t.sbin 2>&1 | FileCheck %s

.data 0xfffff0
# CHECK: [[@LINE+1]]:7: error: data segment at 16777200 does not fit in DRAM (16777216 bytes)
.zero 17
