# The same program as race-dropped-slot-release.s with the slot release waited for (the second load
# pops the token the first gemm pushed): every pair of accesses to a row from two queues is ordered
# by tokens, so --races passes and the program runs.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole sim %t.sbin --isa %configs/default.yaml --races -q

dma.load dram_addr=0x1000, spad_row=0,  rows=16, bytes=16, dram_stride=16
dma.load dram_addr=0x0000, spad_row=16, rows=16, bytes=16, dram_stride=16 [push_next]
preload spad_row=0 [pop_prev]
gemm    a_row=16, acc_row=0, m=16, accumulate=0 [push_prev]
dma.load dram_addr=0x0100, spad_row=16, rows=16, bytes=16, dram_stride=16 [pop_next, push_next]
gemm    a_row=16, acc_row=16, m=16, accumulate=0 [pop_prev]
finish
