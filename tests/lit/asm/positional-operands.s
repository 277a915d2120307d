# Positional operands fill an instruction's fields in the order the config lists them; spaces
# around the commas are optional.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml | FileCheck %s

# CHECK: dma.load dram_addr=1, spad_row=2, rows=3, bytes=4, dram_stride=5
dma.load 1, 2, 3, 4, 5
# CHECK-NEXT: requant acc_row=1, spad_row=2, rows=3, scale_row=4, zero_point=-5, clamp_min=-6, clamp_max=7 [push_next]
requant 1,2,3,4,-5,-6,7[push_next]
# CHECK-NEXT: preload spad_row=9
preload 9
# Positional operands may be followed by named ones for the remaining fields.
# CHECK-NEXT: gemm a_row=16, acc_row=32, m=8, accumulate=1
gemm 16, 32, accumulate=1, m=8
# CHECK-NEXT: finish
finish
