# A field left out is missing even when later fields are given by name.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:54: error: missing operand 'dram_stride' for 'dma.load'
dma.load rows=1, bytes=16, spad_row=0, dram_addr=0   # no stride
