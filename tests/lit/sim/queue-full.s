# The compute queue (8 deep on the default config) fills behind a nop that waits for a 116-cycle
# load (100 + 16 rows). Compute instruction k would be dispatched at cycle k + 1; instruction 8
# waits until the blocked nop starts at 116: queue_full = 116 - 9 = 107. Then the 12 compute
# instructions (11 nops and finish) run one per cycle from 116: 128 cycles.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole sim %t.sbin --isa %configs/default.yaml | FileCheck %s

dma.load 0, 0, 16, 16, 16 [push_next]
nop [pop_prev]
nop
nop
nop
nop
nop
nop
nop
nop
nop
nop
finish
# CHECK: {{^}}cycles: 128 (
# CHECK: compute[token=115 queue_full=107 dram_bandwidth=0 bank_conflict=0 hazard=0]
