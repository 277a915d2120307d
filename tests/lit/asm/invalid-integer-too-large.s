# An integer beyond 64 bits.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:10: error: invalid integer '0x10000000000000000'
dma.load 0x10000000000000000, 0, 1, 16, 16
