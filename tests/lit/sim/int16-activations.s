# int16 activations (types.activation: int16): scratchpad lanes of 16 bits, moved by DMA as two
# little-endian bytes (a 16-lane row is 32 bytes), multiplied by int8 weights in the array and
# requantized into int16 lanes, saturating at [-32768, 32767] (docs/isa-semantics.md).
#   W = 2 I, except W[15][0] = -1;  x row 0: 1000 n - 7000;  x row 1: 20000 (n < 8), n - 20000 (n >= 8)
#   y = requant(x @ W) with multiplier 2^30 and shift 30 (the identity), clamps [-32768, 32767]:
#   row 0: 2000 n - 14000, lane 0 -14000 - 8000 = -22000;
#   row 1: 40000 and 40000 + 19985 saturate to 32767, 2 n - 40000 to -32768.
# int16-activations-rtl.test runs it on the Verilated array (default_act16).
# RUN: %systole asm %s --isa %configs/default.yaml --set types.activation=int16 -o %t.sbin
# RUN: rm -rf %t.out && %systole sim %t.sbin --isa %configs/default.yaml --set types.activation=int16 --poison --output-dir %t.out > %t.model.txt
# RUN: FileCheck %s < %t.model.txt
# RUN: /usr/bin/python3 -c "import numpy as np; y = np.load('%t.out/y.npy'); print(y.dtype); print(y[0].tolist()); print(y[1].tolist())" | FileCheck --check-prefix=VALUES %s
# CHECK: {{^}}cycles: {{[0-9]+}} ({{.*}}MACs: 512
# CHECK: DRAM bytes: read 704, written 64
# VALUES:      int16
# VALUES-NEXT: [-22000, -12000, -10000, -8000, -6000, -4000, -2000, 0, 2000, 4000, 6000, 8000, 10000, 12000, 14000, 16000]
# VALUES-NEXT: [32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, -32768, -32768, -32768, -32768, -32768, -32768, -32768, -32768]

.tensor constant x int16 [2, 16] @0x0000
.tensor output y int16 [2, 16] @0x3000
.tensor constant W int16 [16, 16] @0x1000
.data 0x0000
.half -7000, -6000, -5000, -4000, -3000, -2000, -1000, 0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000
.half 20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000, -19992, -19991, -19990, -19989, -19988, -19987, -19986, -19985
.data 0x1000
.half 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0
.half 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0
.half -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2
.data 0x2040
# per-lane requantize multiplier 2^30 then shift 30: y = acc
.word 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824
.word 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824
.word 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30

dma.load     dram_addr=0x1000, spad_row=0,  rows=16, bytes=32, dram_stride=32   # W -> spad[0..16)
dma.load     dram_addr=0x0000, spad_row=16, rows=2,  bytes=32, dram_stride=32   # x -> spad[16..18)
dma.load.acc dram_addr=0x2040, acc_row=16,  rows=2,  bytes=64, dram_stride=64 [push_next]
preload spad_row=0 [pop_prev]
gemm    a_row=16, acc_row=0, m=2, accumulate=0
requant acc_row=0, spad_row=32, rows=2, scale_row=16, zero_point=0, clamp_min=-32768, clamp_max=32767 [push_next]
dma.store dram_addr=0x3000, spad_row=32, rows=2, bytes=32, dram_stride=32 [pop_prev]
finish
