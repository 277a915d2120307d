# dma.broadcast (on in default.yaml): a load with dram_stride 0 reads its row from DRAM once and
# writes it to all 64 rows, one per cycle (issue 1 + 64 - 1 = 64, latency 100: done at 164). The
# DRAM channel is busy for that one row only, so a store dispatched at cycle 1 does not wait for it
# (its 100 + 32 cycles end at 133), and the DRAM read count is 16 bytes.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole sim %t.sbin --isa %configs/default.yaml | FileCheck %s
# CHECK: {{^}}cycles: 164 (
# CHECK: store[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=0]{{$}}
# CHECK: {{^}}DRAM bytes: read 16, written 512{{$}}

# Without broadcast the same load holds the channel for all 64 rows (as contention.s): the store
# waits 63 cycles, and 1024 bytes are read.
# RUN: %systole asm %s --isa %configs/default.yaml --set dma.broadcast=false -o %t.off.sbin
# RUN: %systole sim %t.off.sbin --isa %configs/default.yaml --set dma.broadcast=false | FileCheck --check-prefix=OFF %s
# OFF: {{^}}cycles: 196 (
# OFF: store[token=0 queue_full=0 dram_bandwidth=63 bank_conflict=0 hazard=0]{{$}}
# OFF: {{^}}DRAM bytes: read 1024, written 512{{$}}

dma.load  dram_addr=0x0, spad_row=0, rows=64, bytes=16, dram_stride=0
dma.store dram_addr=0x10000, spad_row=100, rows=32, bytes=16, dram_stride=16
finish
