# The 16x16 matrix product of gemm_relu.s on int16 activations (types.activation: int16), for
# `default --set types.activation=int16`: x and y are int16, each scratchpad lane 16 bits, so a
# row of 16 lanes is 32 bytes in DRAM and on chip. W stays in the int8 range in int16 lanes (the
# array's weight registers keep a lane's low 8 bits).
#   y = clamp(requant(x @ W + b), -32768, 32767)    x: 16x16 int16, W: 16x16, b: 16 int32
# DRAM layout: x at 0x0000, W at 0x1000, b at 0x2000, requant scales at 0x2040, y at 0x3000.
.tensor input  x int16 [16, 16] @0x0000 scale=0.05
.tensor output y int16 [16, 16] @0x3000 scale=0.1 zero_point=-128
.tensor constant W int16 [16, 16] @0x1000
.data 0x1000
.half -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4
.half 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3
.half -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1
.half 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5
.half 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2
.half -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2
.half 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5
.half 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1
.half -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3
.half 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4
.half -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0
.half -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4
.half 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3
.half -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1
.half 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5
.half 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2
.data 0x2000
.word 100, -100, 200, -200, 300, -300, 400, -400, 500, -500, 600, -600, 700, -700, 800, -800
.data 0x2040
# per-lane requantize multiplier (Q31 ~ 0.5) then per-lane shift
.word 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824
.word 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824
.word 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31

dma.load     dram_addr=0x1000, spad_row=0,  rows=16, bytes=32, dram_stride=32   # W -> spad[0..16)
dma.load     dram_addr=0x0000, spad_row=16, rows=16, bytes=32, dram_stride=32   # x -> spad[16..32)
dma.load.acc dram_addr=0x2000, acc_row=0,   rows=16, bytes=64, dram_stride=0    # bias broadcast
dma.load.acc dram_addr=0x2040, acc_row=16,  rows=2,  bytes=64, dram_stride=64 [push_next]
preload spad_row=0 [pop_prev]
gemm    a_row=16, acc_row=0, m=16, accumulate=1
requant acc_row=0, spad_row=32, rows=16, scale_row=16, zero_point=-128, clamp_min=-32768, clamp_max=32767 [push_next]
dma.store dram_addr=0x3000, spad_row=32, rows=16, bytes=32, dram_stride=32 [pop_prev]
finish
