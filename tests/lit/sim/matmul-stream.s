# gemm.stream (matmul_stream, docs/isa-semantics.md) on os16: both operands come from the
# scratchpad, slice by slice, and the output tile stays in the PEs for the whole reduction.
# Activations (spad rows 0..4, a_stride 3, so row 2 is skipped): slice 0 rows [1 x16] and
# [0, 1, .., 15]; slice 1 rows [2 x16] and [-1 x16]. Weights (spad rows 9..40): slice 0 all 1,
# slice 1 W[k][n] = n - 8. So the first gemm.stream (2 slices, no accumulate) gives
#   out[0][n] = 16 + 32 (n - 8),  out[1][n] = 120 - 16 (n - 8),
# and the second (slice 0 only, accumulate) adds 16 and 120:
#   out[0][n] = 32 (n - 7),       out[1][n] = 240 - 16 (n - 8).
# Timing (os16 is serial, one DMA in flight): the loads take 100 + 5 and 100 + 32 cycles
# (16-byte rows at 16 bytes per cycle), so the first gemm.stream starts at 237 and takes
# k_slices * 16 + m + 16 - 2 = 48 cycles, the second 32 (to 317), the store of two 64-byte
# accumulator rows 100 + 8: 425 cycles (finish completes with it). MACs: 2 x 16 x 16 x (2 + 1).
# RUN: %systole asm %s --isa %configs/os16.yaml -o %t.sbin
# RUN: rm -rf %t.out && %systole sim %t.sbin --isa %configs/os16.yaml --poison --output-dir %t.out | FileCheck %s
# RUN: /usr/bin/python3 -c "import numpy as np; y = np.load('%t.out/y.npy'); print(y[0].tolist()); print(y[1].tolist())" | FileCheck --check-prefix=VALUES %s
# CHECK: {{^}}cycles: 425 (0.5 us at 800 MHz), instructions: 6, MACs: 1536
# CHECK: compute[token=235 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=0]
# VALUES:      [-224, -192, -160, -128, -96, -64, -32, 0, 32, 64, 96, 128, 160, 192, 224, 256]
# VALUES-NEXT: [368, 352, 336, 320, 304, 288, 272, 256, 240, 224, 208, 192, 176, 160, 144, 128]

.tensor output y int32 [2, 16] @0x400
.data 0x0
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
.byte 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100
.byte 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2
.byte -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
.data 0x100
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7
.byte -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7

dma.load dram_addr=0x0, spad_row=0, rows=5, bytes=16, dram_stride=16
dma.load dram_addr=0x100, spad_row=9, rows=32, bytes=16, dram_stride=16 [push_next]
gemm.stream a_row=0, a_stride=3, w_row=9, acc_row=0, m=2, k_slices=2, accumulate=0 [pop_prev]
gemm.stream a_row=0, a_stride=3, w_row=9, acc_row=0, m=2, k_slices=1, accumulate=1 [push_next]
dma.store.acc dram_addr=0x400, acc_row=0, rows=2, bytes=64, dram_stride=64 [pop_prev]
finish

# Bank conflicts: os16's scratchpad has 4 banks. With a_row - w_row = -4 and a_stride = array.rows,
# every slice's activation and weight rows share a bank: 3 slices x m = 2 rows x 1 cycle = 6 more
# than 3 * 16 + 2 + 14 = 64, and finish 1: 71 cycles. With w_row = 5 none do: 65.
# RUN: printf 'gemm.stream a_row=0, a_stride=16, w_row=4, acc_row=0, m=2, k_slices=3, accumulate=0\nfinish\n' > %t.bank.s
# RUN: %systole asm %t.bank.s --isa %configs/os16.yaml -o %t.bank.sbin
# RUN: %systole sim %t.bank.sbin --isa %configs/os16.yaml | FileCheck --check-prefix=CONFLICT %s
# CONFLICT: {{^}}cycles: 71 (
# CONFLICT: compute[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=6 hazard=0]
# RUN: printf 'gemm.stream a_row=0, a_stride=16, w_row=5, acc_row=0, m=2, k_slices=3, accumulate=0\nfinish\n' > %t.nobank.s
# RUN: %systole asm %t.nobank.s --isa %configs/os16.yaml -o %t.nobank.sbin
# RUN: %systole sim %t.nobank.sbin --isa %configs/os16.yaml | FileCheck --check-prefix=NOCONFLICT %s
# NOCONFLICT: {{^}}cycles: 65 (
# NOCONFLICT: compute[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=0]
