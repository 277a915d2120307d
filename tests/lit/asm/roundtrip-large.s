# Every instruction of the shipped 'large' config, with zero, maximum (the field width or its
# `max:` limit), signed minimum and -1, a distinct value per field, and each dependency token its
# queue allows: assembling, disassembling and reassembling gives identical bytes, and the
# disassembly prints every field by name.
# RUN: %systole asm %s --isa %configs/large.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/large.yaml | FileCheck %s
# RUN: %systole disasm %t.sbin --isa %configs/large.yaml -o %t.dis.s
# RUN: %systole asm %t.dis.s --isa %configs/large.yaml -o %t.re.sbin
# RUN: cmp %t.sbin %t.re.sbin

# CHECK: # program for ISA 'large', 55 instructions

# dma.load: dma_load on the load queue
dma.load 0, 0, 0, 0, 0
# CHECK-NEXT: dma.load dram_addr=0, spad_row=0, rows=0, bytes=0, dram_stride=0
dma.load dram_addr=2147483647, spad_row=32767, rows=65535, bytes=32, dram_stride=16777215 [push_next, pop_next]
# CHECK-NEXT: dma.load dram_addr=2147483647, spad_row=32767, rows=65535, bytes=32, dram_stride=16777215 [pop_next, push_next]
dma.load 9544322, 20323, 64580, 25, 3429894 [push_next]
# CHECK-NEXT: dma.load dram_addr=9544322, spad_row=20323, rows=64580, bytes=25, dram_stride=3429894 [push_next]

# dma.load.acc: dma_load_acc on the load queue
dma.load.acc 0, 0, 0, 0, 0
# CHECK-NEXT: dma.load.acc dram_addr=0, acc_row=0, rows=0, bytes=0, dram_stride=0
dma.load.acc dram_addr=2147483647, acc_row=2047, rows=4095, bytes=128, dram_stride=16777215 [push_next, pop_next]
# CHECK-NEXT: dma.load.acc dram_addr=2147483647, acc_row=2047, rows=4095, bytes=128, dram_stride=16777215 [pop_next, push_next]
dma.load.acc 9544322, 1891, 3140, 34, 3429894 [push_next]
# CHECK-NEXT: dma.load.acc dram_addr=9544322, acc_row=1891, rows=3140, bytes=34, dram_stride=3429894 [push_next]

# dma.store: dma_store on the store queue
dma.store 0, 0, 0, 0, 0
# CHECK-NEXT: dma.store dram_addr=0, spad_row=0, rows=0, bytes=0, dram_stride=0
dma.store dram_addr=2147483647, spad_row=32767, rows=65535, bytes=32, dram_stride=16777215 [push_prev, pop_prev]
# CHECK-NEXT: dma.store dram_addr=2147483647, spad_row=32767, rows=65535, bytes=32, dram_stride=16777215 [pop_prev, push_prev]
dma.store 9544322, 20323, 64580, 25, 3429894 [push_prev]
# CHECK-NEXT: dma.store dram_addr=9544322, spad_row=20323, rows=64580, bytes=25, dram_stride=3429894 [push_prev]

# dma.store.acc: dma_store_acc on the store queue
dma.store.acc 0, 0, 0, 0, 0
# CHECK-NEXT: dma.store.acc dram_addr=0, acc_row=0, rows=0, bytes=0, dram_stride=0
dma.store.acc dram_addr=2147483647, acc_row=2047, rows=4095, bytes=128, dram_stride=16777215 [push_prev, pop_prev]
# CHECK-NEXT: dma.store.acc dram_addr=2147483647, acc_row=2047, rows=4095, bytes=128, dram_stride=16777215 [pop_prev, push_prev]
dma.store.acc 9544322, 1891, 3140, 34, 3429894 [push_prev]
# CHECK-NEXT: dma.store.acc dram_addr=9544322, acc_row=1891, rows=3140, bytes=34, dram_stride=3429894 [push_prev]

# preload: weight_preload on the compute queue
preload 0
# CHECK-NEXT: preload spad_row=0
preload spad_row=32767 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: preload spad_row=32767 [pop_prev, pop_next, push_prev, push_next]
preload 8834 [push_prev]
# CHECK-NEXT: preload spad_row=8834 [push_prev]

# gemm: matmul_tile on the compute queue
gemm 0, 0, 0, 0
# CHECK-NEXT: gemm a_row=0, acc_row=0, m=0, accumulate=0
gemm a_row=32767, acc_row=2047, m=4095, accumulate=1 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: gemm a_row=32767, acc_row=2047, m=4095, accumulate=1 [pop_prev, pop_next, push_prev, push_next]
gemm 8834, 1891, 3140, 1 [push_prev]
# CHECK-NEXT: gemm a_row=8834, acc_row=1891, m=3140, accumulate=1 [push_prev]

# requant: requantize on the compute queue
requant 0, 0, 0, 0, 0, 0, 0
# CHECK-NEXT: requant acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=0, clamp_min=0, clamp_max=0
requant acc_row=2047, spad_row=32767, rows=4095, scale_row=2047, zero_point=127, clamp_min=127, clamp_max=127 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: requant acc_row=2047, spad_row=32767, rows=4095, scale_row=2047, zero_point=127, clamp_min=127, clamp_max=127 [pop_prev, pop_next, push_prev, push_next]
requant acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=-128, clamp_min=-128, clamp_max=-128 [pop_prev]
# CHECK-NEXT: requant acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=-128, clamp_min=-128, clamp_max=-128 [pop_prev]
requant acc_row=1, spad_row=1, rows=1, scale_row=1, zero_point=-1, clamp_min=-1, clamp_max=-1 [push_next]
# CHECK-NEXT: requant acc_row=1, spad_row=1, rows=1, scale_row=1, zero_point=-1, clamp_min=-1, clamp_max=-1 [push_next]
requant 642, 20323, 3140, 293, -122, 103, 72 [push_prev]
# CHECK-NEXT: requant acc_row=642, spad_row=20323, rows=3140, scale_row=293, zero_point=-122, clamp_min=103, clamp_max=72 [push_prev]

# widen: vector_widen on the compute queue
widen 0, 0, 0, 0, 0
# CHECK-NEXT: widen spad_row=0, acc_row=0, rows=0, zero_point=0, multiplier=0
widen spad_row=32767, acc_row=2047, rows=4095, zero_point=127, multiplier=32767 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: widen spad_row=32767, acc_row=2047, rows=4095, zero_point=127, multiplier=32767 [pop_prev, pop_next, push_prev, push_next]
widen spad_row=0, acc_row=0, rows=0, zero_point=-128, multiplier=-32768 [pop_prev]
# CHECK-NEXT: widen spad_row=0, acc_row=0, rows=0, zero_point=-128, multiplier=-32768 [pop_prev]
widen spad_row=1, acc_row=1, rows=1, zero_point=-1, multiplier=-1 [push_next]
# CHECK-NEXT: widen spad_row=1, acc_row=1, rows=1, zero_point=-1, multiplier=-1 [push_next]
widen 8834, 1891, 3140, -91, -10746 [push_prev]
# CHECK-NEXT: widen spad_row=8834, acc_row=1891, rows=3140, zero_point=-91, multiplier=-10746 [push_prev]

# vadd: vector_add on the compute queue
vadd 0, 0, 0, 0
# CHECK-NEXT: vadd dst_row=0, a_row=0, b_row=0, rows=0
vadd dst_row=2047, a_row=2047, b_row=2047, rows=4095 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vadd dst_row=2047, a_row=2047, b_row=2047, rows=4095 [pop_prev, pop_next, push_prev, push_next]
vadd 642, 1891, 1092, 2341 [push_prev]
# CHECK-NEXT: vadd dst_row=642, a_row=1891, b_row=1092, rows=2341 [push_prev]

# vmul: vector_mul on the compute queue
vmul 0, 0, 0, 0
# CHECK-NEXT: vmul dst_row=0, a_row=0, b_row=0, rows=0
vmul dst_row=2047, a_row=2047, b_row=2047, rows=4095 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vmul dst_row=2047, a_row=2047, b_row=2047, rows=4095 [pop_prev, pop_next, push_prev, push_next]
vmul 642, 1891, 1092, 2341 [push_prev]
# CHECK-NEXT: vmul dst_row=642, a_row=1891, b_row=1092, rows=2341 [push_prev]

# vmax: vector_max on the compute queue
vmax 0, 0, 0, 0
# CHECK-NEXT: vmax dst_row=0, a_row=0, b_row=0, rows=0
vmax dst_row=32767, a_row=32767, b_row=32767, rows=65535 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vmax dst_row=32767, a_row=32767, b_row=32767, rows=65535 [pop_prev, pop_next, push_prev, push_next]
vmax 8834, 20323, 31812, 43301 [push_prev]
# CHECK-NEXT: vmax dst_row=8834, a_row=20323, b_row=31812, rows=43301 [push_prev]

# vlut: vector_lut on the compute queue
vlut 0, 0, 0, 0
# CHECK-NEXT: vlut dst_row=0, src_row=0, rows=0, table_row=0
vlut dst_row=32767, src_row=32767, rows=65535, table_row=32767 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vlut dst_row=32767, src_row=32767, rows=65535, table_row=32767 [pop_prev, pop_next, push_prev, push_next]
vlut 8834, 20323, 64580, 10533 [push_prev]
# CHECK-NEXT: vlut dst_row=8834, src_row=20323, rows=64580, table_row=10533 [push_prev]

# vreduce: vector_reduce on the compute queue
vreduce 0, 0, 0, 0
# CHECK-NEXT: vreduce dst_row=0, src_row=0, rows=0, op=0
vreduce dst_row=2047, src_row=2047, rows=4095, op=1 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vreduce dst_row=2047, src_row=2047, rows=4095, op=1 [pop_prev, pop_next, push_prev, push_next]
vreduce 642, 1891, 3140, 1 [push_prev]
# CHECK-NEXT: vreduce dst_row=642, src_row=1891, rows=3140, op=1 [push_prev]

# nop: nop on the compute queue
nop
# CHECK-NEXT: nop
nop [pop_prev]
# CHECK-NEXT: nop [pop_prev]
nop [pop_next]
# CHECK-NEXT: nop [pop_next]
nop [push_prev]
# CHECK-NEXT: nop [push_prev]
nop [push_next]
# CHECK-NEXT: nop [push_next]
nop [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: nop [pop_prev, pop_next, push_prev, push_next]

# finish: finish on the compute queue
finish
# CHECK-NEXT: finish
finish [pop_prev]
# CHECK-NEXT: finish [pop_prev]
finish [pop_next]
# CHECK-NEXT: finish [pop_next]
finish [push_prev]
# CHECK-NEXT: finish [push_prev]
finish [push_next]
# CHECK-NEXT: finish [push_next]
finish [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: finish [pop_prev, pop_next, push_prev, push_next]

# Nothing follows the last instruction.
# CHECK-NOT: {{.}}
