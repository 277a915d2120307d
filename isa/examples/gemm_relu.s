# A 16x16 int8 matrix product with bias, requantized to int8 with ReLU, for the default config.
#   y = relu(requant(x @ W + b))      x: 16x16 int8, W: 16x16 int8, b: 16 int32
# DRAM layout: x at 0x0000, W at 0x1000, b at 0x2000, requant scales at 0x2040, y at 0x3000.
.tensor input  x int8 [16, 16] @0x0000 scale=0.05
.tensor output y int8 [16, 16] @0x3000 scale=0.1 zero_point=-128
.tensor constant W int8 [16, 16] @0x1000
.data 0x1000
.byte -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4
.byte 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3
.byte -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1
.byte 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5
.byte 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2
.byte -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2
.byte 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5
.byte 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1
.byte -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3
.byte 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4
.byte -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0
.byte -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4
.byte 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3
.byte -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1
.byte 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5
.byte 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2
.data 0x2000
.word 100, -100, 200, -200, 300, -300, 400, -400, 500, -500, 600, -600, 700, -700, 800, -800
.data 0x2040
# per-lane requantize multiplier (Q31 ~ 0.5) then per-lane shift
.word 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824
.word 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824
.word 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31

dma.load     dram_addr=0x1000, spad_row=0,  rows=16, bytes=16, dram_stride=16   # W -> spad[0..16)
dma.load     dram_addr=0x0000, spad_row=16, rows=16, bytes=16, dram_stride=16   # x -> spad[16..32)
dma.load.acc dram_addr=0x2000, acc_row=0,   rows=16, bytes=64, dram_stride=0    # bias broadcast
dma.load.acc dram_addr=0x2040, acc_row=16,  rows=2,  bytes=64, dram_stride=64 [push_next]
preload spad_row=0 [pop_prev]
gemm    a_row=16, acc_row=0, m=16, accumulate=1
requant acc_row=0, spad_row=32, rows=16, scale_row=16, zero_point=-128, clamp_min=-128, clamp_max=127 [push_next]
dma.store dram_addr=0x3000, spad_row=32, rows=16, bytes=16, dram_stride=16 [pop_prev]
finish
