# A data segment that starts beyond the end of DRAM (16 MiB on tiny).
# RUN: not %systole asm %s --isa %configs/tiny.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:7: error: data address 0x1000001 is outside DRAM (16777216 bytes)
.data 0x1000001
