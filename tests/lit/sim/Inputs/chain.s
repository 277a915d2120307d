# A serialized chain for the default config (16x16 weight-stationary, DRAM latency 100 cycles,
# 16 bytes per cycle, vector latency 4): load -> preload -> gemm -> requant -> store, each step
# waiting for the one before through a dependency token or its queue order.
#
#   dma.load  32 rows x 16 bytes   100 + 32 * ceil(16/16) = 132   ends 132
#   preload   (waits for token)    array.rows = 16                ends 148
#   gemm      m = 16               m + 16 + 16 - 2 = 46           ends 194
#   requant   rows = 16            vector.latency + rows = 20     ends 214
#   dma.store 16 rows x 16 bytes   100 + 16 * ceil(16/16) = 116   ends 330
#   finish                         1                              ends 215 (before the store)
# Total 330 cycles. Token stalls: the preload, dispatched at cycle 1, waits until 132 (131); the
# store, dispatched at cycle 4, until 214 (210). MACs: 16 * 16 * 16 = 4096. With dma.outstanding 4
# a DMA keeps its unit busy for its `issue` cycles only (the transfer, 32 and 16 cycles): the
# latency is the DRAM's, and the next DMA could start meanwhile. Likewise, with two weight sets
# the preload runs on the array's weight path, so the gemm could start at 133 and waits for the
# weights until 148 (15 cycles of hazard stall); the gemm (`issue = m`) occupies the array for 16
# cycles and the requant (`issue = rows`) the vector unit for 16, so the compute unit is free at
# 164 but the requant waits until the gemm's rows are written at 194 (30 more), and finish, free
# at 210, waits for the requant to complete at 214 (4 more): hazard 49; busy array 16 cycles (the
# gemm's issue; the weight path is not counted), vector 16.
# The requantize scale rows (accumulator rows 16, 17) are never written: harmless, except in
# poison mode.
# DRAM: weights at 0x1000 (16 rows of 16 bytes; only the first is non-zero), the input x right
# after them at 0x1100, so one load brings both; the output y at 0x3000.
.tensor input x int8 [16, 16] @0x1100
.tensor output y int8 [16, 16] @0x3000
.data 0x1000
.byte 1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16

dma.load  dram_addr=0x1000, spad_row=0, rows=32, bytes=16, dram_stride=16 [push_next]
preload   spad_row=0 [pop_prev]
gemm      a_row=16, acc_row=0, m=16, accumulate=0
requant   acc_row=0, spad_row=32, rows=16, scale_row=16, zero_point=0, clamp_min=-128, clamp_max=127 [push_next]
dma.store dram_addr=0x3000, spad_row=32, rows=16, bytes=16, dram_stride=16 [pop_prev]
finish
