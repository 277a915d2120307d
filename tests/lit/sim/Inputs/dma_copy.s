# A DMA-only program for the default config: x is copied through the scratchpad, b is broadcast
# into four accumulator rows and stored back as int32 rows.
.tensor input  x int8 [4, 16] @0x0000
.tensor input  b int32 [16] @0x0100
.tensor output y int8 [4, 16] @0x1000
.tensor output z int32 [4, 16] @0x2000
dma.load      dram_addr=0x0000, spad_row=0, rows=4, bytes=16, dram_stride=16
dma.load.acc  dram_addr=0x0100, acc_row=0,  rows=4, bytes=64, dram_stride=0 [push_next]
nop [pop_prev, push_next]
dma.store     dram_addr=0x1000, spad_row=0, rows=4, bytes=16, dram_stride=16 [pop_prev]
dma.store.acc dram_addr=0x2000, acc_row=0,  rows=4, bytes=64, dram_stride=64
finish
