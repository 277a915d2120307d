# A DMA into the accumulator moves at most accumulator.row_bytes (64) bytes per row, though the field holds 255.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:24: error: value 65 out of range for field 'bytes' [0, 64] (max: accumulator.row_bytes)
dma.store.acc 0, 0, 1, 65, 0
