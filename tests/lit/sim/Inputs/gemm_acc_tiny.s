# An int32 GEMM on the tiny config, no requantize: y = b + x @ W (x: 6x4 int8, W: 4x4 int8,
# b: 6x4 int32), the accumulator rows stored as they are.
.tensor input  x int8 [6, 4] @0x0000
.tensor input  W int8 [4, 4] @0x0100
.tensor input  b int32 [6, 4] @0x0200
.tensor output y int32 [6, 4] @0x1000
ld     dram_addr=0x0100, spad_row=0, rows=4, bytes=4, dram_stride=4
ld     dram_addr=0x0000, spad_row=8, rows=6, bytes=4, dram_stride=4
ld.acc dram_addr=0x0200, acc_row=0, rows=6, bytes=16, dram_stride=16 [push_next]
wload  spad_row=0 [pop_prev]
mm     a_row=8, acc_row=0, m=6, accumulate=1 [push_next]
st.acc dram_addr=0x1000, acc_row=0, rows=6, bytes=16, dram_stride=16 [pop_prev]
halt
