# A DMA of 0 bytes per row moves nothing and runs: the loads zero-fill their rows, the store writes
# no byte. Under the asan preset (UBSan) this checks that no memcpy sees the empty row buffer's
# null pointer (found by tests/fuzz/sim_fuzzer; the first DMA of a process had no buffer yet).
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole sim %t.sbin --isa %configs/default.yaml | FileCheck %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml --timing-only | FileCheck %s

dma.load  dram_addr=0x0, spad_row=0, rows=2, bytes=0, dram_stride=16
dma.load.acc dram_addr=0x0, acc_row=0, rows=2, bytes=0, dram_stride=16
dma.store dram_addr=0x100, spad_row=0, rows=2, bytes=0, dram_stride=16
finish
# CHECK: cycles:
