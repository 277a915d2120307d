# Operands may be written in hex (0x or 0X, either case of digit), with an optional sign.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml | FileCheck %s

# CHECK: dma.load dram_addr=233495534, spad_row=0, rows=16, bytes=15, dram_stride=16777215
dma.load dram_addr=0xDEADBEE, spad_row=0x0, rows=0X10, bytes=0xf, dram_stride=0xFfFfFf
# CHECK-NEXT: requant acc_row=16, spad_row=16383, rows=1, scale_row=0, zero_point=-128, clamp_min=-1, clamp_max=127
requant +0x10, 0x3fff, +1, 0, -0x80, -0x1, 0x7F
# Leading zeros are allowed in decimal and hex.
# CHECK-NEXT: preload spad_row=8
preload 0x0008
# CHECK-NEXT: preload spad_row=10
preload 010
