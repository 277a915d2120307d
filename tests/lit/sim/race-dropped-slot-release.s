# A dropped slot release: the second load reuses scratchpad rows 16..32, which the gemm reads, but
# does not wait for the compute queue to release them (no pop_next on the load), so it may
# overwrite the activations before the gemm has read them: a write-after-read race. With the token
# (race-free.s) the same loads and computes are ordered.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml --races 2>&1 | FileCheck -DPROG=%t.sbin %s

dma.load dram_addr=0x1000, spad_row=0,  rows=16, bytes=16, dram_stride=16
dma.load dram_addr=0x0000, spad_row=16, rows=16, bytes=16, dram_stride=16 [push_next]
preload spad_row=0 [pop_prev]
gemm    a_row=16, acc_row=0, m=16, accumulate=0 [push_prev]
dma.load dram_addr=0x0100, spad_row=16, rows=16, bytes=16, dram_stride=16 [push_next]
gemm    a_row=16, acc_row=16, m=16, accumulate=0 [pop_prev]
nop [pop_prev]
finish
# CHECK: {{^}}[[PROG]]: error: simulation fault: race: instruction 4 (dma.load {{.*}}) writes scratchpad row 16, which instruction 3 (gemm a_row=16, acc_row=0, m=16, accumulate=0 [push_prev]) reads, and no dependency token orders them (write after read){{$}}
