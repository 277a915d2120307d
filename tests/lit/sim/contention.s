# Two independent DMA streams share the DRAM channel (16 bytes per cycle on the default config):
# a load of 64 rows (64 channel cycles) at cycle 0 and a store of 32 rows (32 channel cycles)
# dispatched at cycle 1. First come, first served: the store waits 63 cycles for the load's
# occupancy to end, so the program ends after one DRAM latency plus both occupancies:
# 1 + (100 + 32) + 63 = 100 + 64 + 32 = 196 cycles (each alone: 164 and 132).
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole sim %t.sbin --isa %configs/default.yaml | FileCheck %s

dma.load  dram_addr=0x0, spad_row=0, rows=64, bytes=16, dram_stride=16
dma.store dram_addr=0x10000, spad_row=100, rows=32, bytes=16, dram_stride=16
finish
# CHECK: {{^}}cycles: 196 (
# CHECK: {{^}}stalls (cycles): load[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=0] compute[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=0] store[token=0 queue_full=0 dram_bandwidth=63 bank_conflict=0 hazard=0]{{$}}
# CHECK: {{^}}DRAM bytes: read 1024, written 512{{$}}

# The same streams one after the other (through tokens) never wait for the channel:
# 164 + 1 (nop) + 132 = 297 cycles.
# RUN: printf 'dma.load 0, 0, 64, 16, 16 [push_next]\nnop [pop_prev, push_next]\ndma.store 0x10000, 100, 32, 16, 16 [pop_prev]\nfinish\n' > %t.serial.s
# RUN: %systole asm %t.serial.s --isa %configs/default.yaml -o %t.serial.sbin
# RUN: %systole sim %t.serial.sbin --isa %configs/default.yaml | FileCheck --check-prefix=SERIAL %s
# SERIAL: {{^}}cycles: 297 (
# SERIAL: load[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=0] {{.*}} store[token={{[0-9]+}} queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=0]
