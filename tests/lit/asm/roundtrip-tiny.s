# Every instruction of the shipped 'tiny' config, with zero, maximum (the field width or its
# `max:` limit), signed minimum and -1, a distinct value per field, and each dependency token its
# queue allows: assembling, disassembling and reassembling gives identical bytes, and the
# disassembly prints every field by name.
# RUN: %systole asm %s --isa %configs/tiny.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/tiny.yaml | FileCheck %s
# RUN: %systole disasm %t.sbin --isa %configs/tiny.yaml -o %t.dis.s
# RUN: %systole asm %t.dis.s --isa %configs/tiny.yaml -o %t.re.sbin
# RUN: cmp %t.sbin %t.re.sbin

# CHECK: # program for ISA 'tiny', 55 instructions

# ld: dma_load on the load queue
ld 0, 0, 0, 0, 0
# CHECK-NEXT: ld dram_addr=0, spad_row=0, rows=0, bytes=0, dram_stride=0
ld dram_addr=16777215, spad_row=255, rows=255, bytes=4, dram_stride=2047 [push_next, pop_next]
# CHECK-NEXT: ld dram_addr=16777215, spad_row=255, rows=255, bytes=4, dram_stride=2047 [pop_next, push_next]
ld 9544322, 99, 68, 1, 1542 [push_next]
# CHECK-NEXT: ld dram_addr=9544322, spad_row=99, rows=68, bytes=1, dram_stride=1542 [push_next]

# ld.acc: dma_load_acc on the load queue
ld.acc 0, 0, 0, 0, 0
# CHECK-NEXT: ld.acc dram_addr=0, acc_row=0, rows=0, bytes=0, dram_stride=0
ld.acc dram_addr=16777215, acc_row=63, rows=255, bytes=16, dram_stride=2047 [push_next, pop_next]
# CHECK-NEXT: ld.acc dram_addr=16777215, acc_row=63, rows=255, bytes=16, dram_stride=2047 [pop_next, push_next]
ld.acc 9544322, 35, 68, 0, 1542 [push_next]
# CHECK-NEXT: ld.acc dram_addr=9544322, acc_row=35, rows=68, bytes=0, dram_stride=1542 [push_next]

# st: dma_store on the store queue
st 0, 0, 0, 0, 0
# CHECK-NEXT: st dram_addr=0, spad_row=0, rows=0, bytes=0, dram_stride=0
st dram_addr=16777215, spad_row=255, rows=255, bytes=4, dram_stride=2047 [push_prev, pop_prev]
# CHECK-NEXT: st dram_addr=16777215, spad_row=255, rows=255, bytes=4, dram_stride=2047 [pop_prev, push_prev]
st 9544322, 99, 68, 1, 1542 [push_prev]
# CHECK-NEXT: st dram_addr=9544322, spad_row=99, rows=68, bytes=1, dram_stride=1542 [push_prev]

# st.acc: dma_store_acc on the store queue
st.acc 0, 0, 0, 0, 0
# CHECK-NEXT: st.acc dram_addr=0, acc_row=0, rows=0, bytes=0, dram_stride=0
st.acc dram_addr=16777215, acc_row=63, rows=255, bytes=16, dram_stride=2047 [push_prev, pop_prev]
# CHECK-NEXT: st.acc dram_addr=16777215, acc_row=63, rows=255, bytes=16, dram_stride=2047 [pop_prev, push_prev]
st.acc 9544322, 35, 68, 0, 1542 [push_prev]
# CHECK-NEXT: st.acc dram_addr=9544322, acc_row=35, rows=68, bytes=0, dram_stride=1542 [push_prev]

# wload: weight_preload on the compute queue
wload 0
# CHECK-NEXT: wload spad_row=0
wload spad_row=255 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: wload spad_row=255 [pop_prev, pop_next, push_prev, push_next]
wload 130 [push_prev]
# CHECK-NEXT: wload spad_row=130 [push_prev]

# mm: matmul_tile on the compute queue
mm 0, 0, 0, 0
# CHECK-NEXT: mm a_row=0, acc_row=0, m=0, accumulate=0
mm a_row=255, acc_row=63, m=63, accumulate=1 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: mm a_row=255, acc_row=63, m=63, accumulate=1 [pop_prev, pop_next, push_prev, push_next]
mm 130, 35, 4, 1 [push_prev]
# CHECK-NEXT: mm a_row=130, acc_row=35, m=4, accumulate=1 [push_prev]

# rq: requantize on the compute queue
rq 0, 0, 0, 0, 0, 0, 0
# CHECK-NEXT: rq acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=0, clamp_min=0, clamp_max=0
rq acc_row=63, spad_row=255, rows=63, scale_row=63, zero_point=127, clamp_min=127, clamp_max=127 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: rq acc_row=63, spad_row=255, rows=63, scale_row=63, zero_point=127, clamp_min=127, clamp_max=127 [pop_prev, pop_next, push_prev, push_next]
rq acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=-128, clamp_min=-128, clamp_max=-128 [pop_prev]
# CHECK-NEXT: rq acc_row=0, spad_row=0, rows=0, scale_row=0, zero_point=-128, clamp_min=-128, clamp_max=-128 [pop_prev]
rq acc_row=1, spad_row=1, rows=1, scale_row=1, zero_point=-1, clamp_min=-1, clamp_max=-1 [push_next]
# CHECK-NEXT: rq acc_row=1, spad_row=1, rows=1, scale_row=1, zero_point=-1, clamp_min=-1, clamp_max=-1 [push_next]
rq 2, 99, 4, 37, -122, 103, 72 [push_prev]
# CHECK-NEXT: rq acc_row=2, spad_row=99, rows=4, scale_row=37, zero_point=-122, clamp_min=103, clamp_max=72 [push_prev]

# widen: vector_widen on the compute queue
widen 0, 0, 0, 0, 0
# CHECK-NEXT: widen spad_row=0, acc_row=0, rows=0, zero_point=0, multiplier=0
widen spad_row=255, acc_row=63, rows=63, zero_point=127, multiplier=32767 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: widen spad_row=255, acc_row=63, rows=63, zero_point=127, multiplier=32767 [pop_prev, pop_next, push_prev, push_next]
widen spad_row=0, acc_row=0, rows=0, zero_point=-128, multiplier=-32768 [pop_prev]
# CHECK-NEXT: widen spad_row=0, acc_row=0, rows=0, zero_point=-128, multiplier=-32768 [pop_prev]
widen spad_row=1, acc_row=1, rows=1, zero_point=-1, multiplier=-1 [push_next]
# CHECK-NEXT: widen spad_row=1, acc_row=1, rows=1, zero_point=-1, multiplier=-1 [push_next]
widen 130, 35, 4, -91, -10746 [push_prev]
# CHECK-NEXT: widen spad_row=130, acc_row=35, rows=4, zero_point=-91, multiplier=-10746 [push_prev]

# add: vector_add on the compute queue
add 0, 0, 0, 0
# CHECK-NEXT: add dst_row=0, a_row=0, b_row=0, rows=0
add dst_row=63, a_row=63, b_row=63, rows=63 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: add dst_row=63, a_row=63, b_row=63, rows=63 [pop_prev, pop_next, push_prev, push_next]
add 2, 35, 4, 37 [push_prev]
# CHECK-NEXT: add dst_row=2, a_row=35, b_row=4, rows=37 [push_prev]

# mul: vector_mul on the compute queue
mul 0, 0, 0, 0
# CHECK-NEXT: mul dst_row=0, a_row=0, b_row=0, rows=0
mul dst_row=63, a_row=63, b_row=63, rows=63 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: mul dst_row=63, a_row=63, b_row=63, rows=63 [pop_prev, pop_next, push_prev, push_next]
mul 2, 35, 4, 37 [push_prev]
# CHECK-NEXT: mul dst_row=2, a_row=35, b_row=4, rows=37 [push_prev]

# max: vector_max on the compute queue
max 0, 0, 0, 0
# CHECK-NEXT: max dst_row=0, a_row=0, b_row=0, rows=0
max dst_row=255, a_row=255, b_row=255, rows=255 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: max dst_row=255, a_row=255, b_row=255, rows=255 [pop_prev, pop_next, push_prev, push_next]
max 130, 99, 68, 37 [push_prev]
# CHECK-NEXT: max dst_row=130, a_row=99, b_row=68, rows=37 [push_prev]

# lut: vector_lut on the compute queue
lut 0, 0, 0, 0
# CHECK-NEXT: lut dst_row=0, src_row=0, rows=0, table_row=0
lut dst_row=255, src_row=255, rows=255, table_row=255 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: lut dst_row=255, src_row=255, rows=255, table_row=255 [pop_prev, pop_next, push_prev, push_next]
lut 130, 99, 68, 37 [push_prev]
# CHECK-NEXT: lut dst_row=130, src_row=99, rows=68, table_row=37 [push_prev]

# reduce: vector_reduce on the compute queue
reduce 0, 0, 0, 0
# CHECK-NEXT: reduce dst_row=0, src_row=0, rows=0, op=0
reduce dst_row=63, src_row=63, rows=63, op=1 [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: reduce dst_row=63, src_row=63, rows=63, op=1 [pop_prev, pop_next, push_prev, push_next]
reduce 2, 35, 4, 1 [push_prev]
# CHECK-NEXT: reduce dst_row=2, src_row=35, rows=4, op=1 [push_prev]

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

# halt: finish on the compute queue
halt
# CHECK-NEXT: halt
halt [pop_prev]
# CHECK-NEXT: halt [pop_prev]
halt [pop_next]
# CHECK-NEXT: halt [pop_next]
halt [push_prev]
# CHECK-NEXT: halt [push_prev]
halt [push_next]
# CHECK-NEXT: halt [push_next]
halt [push_next, push_prev, pop_next, pop_prev]
# CHECK-NEXT: halt [pop_prev, pop_next, push_prev, push_next]

# Nothing follows the last instruction.
# CHECK-NOT: {{.}}
