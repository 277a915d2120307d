# Every instruction of the shipped 'os16' config, with zero, maximum (the field width or its
# `max:` limit), signed minimum and -1, a distinct value per field, and each dependency token its
# queue allows: assembling, disassembling and reassembling gives identical bytes, and the
# disassembly prints every field by name.
# RUN: %systole asm %s --isa %configs/os16.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/os16.yaml | FileCheck %s
# RUN: %systole disasm %t.sbin --isa %configs/os16.yaml -o %t.dis.s
# RUN: %systole asm %t.dis.s --isa %configs/os16.yaml -o %t.re.sbin
# RUN: cmp %t.sbin %t.re.sbin

# CHECK: # program for ISA 'os16', 58 instructions

# dma.load: dma_load on the load queue
dma.load 0, 0, 0, 0, 0
# CHECK-NEXT: dma.load dram_addr=0, spad_row=0, rows=0, bytes=0, dram_stride=0
dma.load dram_addr=536870911, spad_row=16383, rows=32767, bytes=16, dram_stride=16777215 [push_next, pop_next]
# CHECK-NEXT: dma.load dram_addr=536870911, spad_row=16383, rows=32767, bytes=16, dram_stride=16777215 [pop_next, push_next]
dma.load 9544322, 3939, 31812, 0, 3429894 [push_next]
# CHECK-NEXT: dma.load dram_addr=9544322, spad_row=3939, rows=31812, bytes=0, dram_stride=3429894 [push_next]

# dma.load.acc: dma_load_acc on the load queue
dma.load.acc 0, 0, 0, 0, 0
# CHECK-NEXT: dma.load.acc dram_addr=0, acc_row=0, rows=0, bytes=0, dram_stride=0
dma.load.acc dram_addr=536870911, acc_row=1023, rows=2047, bytes=64, dram_stride=16777215 [push_next, pop_next]
# CHECK-NEXT: dma.load.acc dram_addr=536870911, acc_row=1023, rows=2047, bytes=64, dram_stride=16777215 [pop_next, push_next]
dma.load.acc 9544322, 867, 1092, 51, 3429894 [push_next]
# CHECK-NEXT: dma.load.acc dram_addr=9544322, acc_row=867, rows=1092, bytes=51, dram_stride=3429894 [push_next]

# dma.store: dma_store on the store queue
dma.store 0, 0, 0, 0, 0
# CHECK-NEXT: dma.store dram_addr=0, spad_row=0, rows=0, bytes=0, dram_stride=0
dma.store dram_addr=536870911, spad_row=16383, rows=32767, bytes=16, dram_stride=16777215 [push_prev, pop_prev]
# CHECK-NEXT: dma.store dram_addr=536870911, spad_row=16383, rows=32767, bytes=16, dram_stride=16777215 [pop_prev, push_prev]
dma.store 9544322, 3939, 31812, 0, 3429894 [push_prev]
# CHECK-NEXT: dma.store dram_addr=9544322, spad_row=3939, rows=31812, bytes=0, dram_stride=3429894 [push_prev]

# dma.store.acc: dma_store_acc on the store queue
dma.store.acc 0, 0, 0, 0, 0
# CHECK-NEXT: dma.store.acc dram_addr=0, acc_row=0, rows=0, bytes=0, dram_stride=0
dma.store.acc dram_addr=536870911, acc_row=1023, rows=2047, bytes=64, dram_stride=16777215 [push_prev, pop_prev]
# CHECK-NEXT: dma.store.acc dram_addr=536870911, acc_row=1023, rows=2047, bytes=64, dram_stride=16777215 [pop_prev, push_prev]
dma.store.acc 9544322, 867, 1092, 51, 3429894 [push_prev]
# CHECK-NEXT: dma.store.acc dram_addr=9544322, acc_row=867, rows=1092, bytes=51, dram_stride=3429894 [push_prev]

# preload: weight_preload on the compute queue
preload 0
# CHECK-NEXT: preload spad_row=0
preload spad_row=16383 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: preload spad_row=16383 [pop_prev, pop_next, push_prev, push_next]
preload 8834 [push_prev]
# CHECK-NEXT: preload spad_row=8834 [push_prev]

# gemm: matmul_tile on the compute queue
gemm 0, 0, 0, 0
# CHECK-NEXT: gemm a_row=0, acc_row=0, m=0, accumulate=0
gemm a_row=16383, acc_row=1023, m=16, accumulate=1 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: gemm a_row=16383, acc_row=1023, m=16, accumulate=1 [pop_prev, pop_next, push_prev, push_next]
gemm 8834, 867, 7, 1 [push_prev]
# CHECK-NEXT: gemm a_row=8834, acc_row=867, m=7, accumulate=1 [push_prev]

# gemm.stream: matmul_stream on the compute queue
gemm.stream 0, 0, 0, 0, 0, 0, 0
# CHECK-NEXT: gemm.stream a_row=0, a_stride=0, w_row=0, acc_row=0, m=0, k_slices=0, accumulate=0
gemm.stream a_row=16383, a_stride=32767, w_row=16383, acc_row=1023, m=16, k_slices=4095, accumulate=1 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: gemm.stream a_row=16383, a_stride=32767, w_row=16383, acc_row=1023, m=16, k_slices=4095, accumulate=1 [pop_prev, pop_next, push_prev, push_next]
gemm.stream 8834, 20323, 7001, 513, 9, 300, 1 [push_prev]
# CHECK-NEXT: gemm.stream a_row=8834, a_stride=20323, w_row=7001, acc_row=513, m=9, k_slices=300, accumulate=1 [push_prev]

# requant: requantize on the compute queue
requant 0, 0, 0, 0, 0, 0, 0
# CHECK-NEXT: requant acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=0, clamp_min=0, clamp_max=0
requant acc_row=1023, spad_row=16383, rows=2047, scale_row=1023, zero_point=127, clamp_min=127, clamp_max=127 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: requant acc_row=1023, spad_row=16383, rows=2047, scale_row=1023, zero_point=127, clamp_min=127, clamp_max=127 [pop_prev, pop_next, push_prev, push_next]
requant acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=-128, clamp_min=-128, clamp_max=-128 [pop_prev]
# CHECK-NEXT: requant acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=-128, clamp_min=-128, clamp_max=-128 [pop_prev]
requant acc_row=1, spad_row=1, rows=1, scale_row=1, zero_point=-1, clamp_min=-1, clamp_max=-1 [push_next]
# CHECK-NEXT: requant acc_row=1, spad_row=1, rows=1, scale_row=1, zero_point=-1, clamp_min=-1, clamp_max=-1 [push_next]
requant 642, 3939, 1092, 293, -122, 103, 72 [push_prev]
# CHECK-NEXT: requant acc_row=642, spad_row=3939, rows=1092, scale_row=293, zero_point=-122, clamp_min=103, clamp_max=72 [push_prev]

# widen: vector_widen on the compute queue
widen 0, 0, 0, 0, 0
# CHECK-NEXT: widen spad_row=0, acc_row=0, rows=0, zero_point=0, multiplier=0
widen spad_row=16383, acc_row=1023, rows=2047, zero_point=127, multiplier=32767 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: widen spad_row=16383, acc_row=1023, rows=2047, zero_point=127, multiplier=32767 [pop_prev, pop_next, push_prev, push_next]
widen spad_row=0, acc_row=0, rows=0, zero_point=-128, multiplier=-32768 [pop_prev]
# CHECK-NEXT: widen spad_row=0, acc_row=0, rows=0, zero_point=-128, multiplier=-32768 [pop_prev]
widen spad_row=1, acc_row=1, rows=1, zero_point=-1, multiplier=-1 [push_next]
# CHECK-NEXT: widen spad_row=1, acc_row=1, rows=1, zero_point=-1, multiplier=-1 [push_next]
widen 8834, 867, 1092, -91, -10746 [push_prev]
# CHECK-NEXT: widen spad_row=8834, acc_row=867, rows=1092, zero_point=-91, multiplier=-10746 [push_prev]

# vadd: vector_add on the compute queue
vadd 0, 0, 0, 0
# CHECK-NEXT: vadd dst_row=0, a_row=0, b_row=0, rows=0
vadd dst_row=1023, a_row=1023, b_row=1023, rows=2047 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vadd dst_row=1023, a_row=1023, b_row=1023, rows=2047 [pop_prev, pop_next, push_prev, push_next]
vadd 642, 867, 68, 293 [push_prev]
# CHECK-NEXT: vadd dst_row=642, a_row=867, b_row=68, rows=293 [push_prev]

# vmul: vector_mul on the compute queue
vmul 0, 0, 0, 0
# CHECK-NEXT: vmul dst_row=0, a_row=0, b_row=0, rows=0
vmul dst_row=1023, a_row=1023, b_row=1023, rows=2047 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vmul dst_row=1023, a_row=1023, b_row=1023, rows=2047 [pop_prev, pop_next, push_prev, push_next]
vmul 642, 867, 68, 293 [push_prev]
# CHECK-NEXT: vmul dst_row=642, a_row=867, b_row=68, rows=293 [push_prev]

# vmax: vector_max on the compute queue
vmax 0, 0, 0, 0
# CHECK-NEXT: vmax dst_row=0, a_row=0, b_row=0, rows=0
vmax dst_row=16383, a_row=16383, b_row=16383, rows=32767 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vmax dst_row=16383, a_row=16383, b_row=16383, rows=32767 [pop_prev, pop_next, push_prev, push_next]
vmax 8834, 3939, 15428, 10533 [push_prev]
# CHECK-NEXT: vmax dst_row=8834, a_row=3939, b_row=15428, rows=10533 [push_prev]

# vlut: vector_lut on the compute queue
vlut 0, 0, 0, 0
# CHECK-NEXT: vlut dst_row=0, src_row=0, rows=0, table_row=0
vlut dst_row=16383, src_row=16383, rows=32767, table_row=16383 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vlut dst_row=16383, src_row=16383, rows=32767, table_row=16383 [pop_prev, pop_next, push_prev, push_next]
vlut 8834, 3939, 31812, 10533 [push_prev]
# CHECK-NEXT: vlut dst_row=8834, src_row=3939, rows=31812, table_row=10533 [push_prev]

# vreduce: vector_reduce on the compute queue
vreduce 0, 0, 0, 0
# CHECK-NEXT: vreduce dst_row=0, src_row=0, rows=0, op=0
vreduce dst_row=1023, src_row=1023, rows=2047, op=1 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: vreduce dst_row=1023, src_row=1023, rows=2047, op=1 [pop_prev, pop_next, push_prev, push_next]
vreduce 642, 867, 1092, 1 [push_prev]
# CHECK-NEXT: vreduce dst_row=642, src_row=867, rows=1092, op=1 [push_prev]

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
