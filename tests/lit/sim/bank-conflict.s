# vadd reads two accumulator rows per row step; the default accumulator has 2 banks (row r in
# bank r mod 2). Sources 0 and 2 share a bank: each of the 8 rows costs 1 more cycle.
#   vadd: vector.latency + rows + rows * conflict_cycles = 4 + 8 + 8 = 20, finish 1: 21 cycles.
# The vadd occupies the unit for its `issue` (rows = 8) plus the conflicts; finish waits the
# vector.latency (4) for it to complete: a hazard stall.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole sim %t.sbin --isa %configs/default.yaml | FileCheck %s

vadd dst_row=16, a_row=0, b_row=2, rows=8
finish
# CHECK: {{^}}cycles: 21 (
# CHECK: compute[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=8 hazard=4]

# Sources 0 and 1 are in different banks: 4 + 8 + 1 = 13 cycles.
# RUN: printf 'vadd dst_row=16, a_row=0, b_row=1, rows=8\nfinish\n' > %t.nc.s
# RUN: %systole asm %t.nc.s --isa %configs/default.yaml -o %t.nc.sbin
# RUN: %systole sim %t.nc.sbin --isa %configs/default.yaml | FileCheck --check-prefix=NOCONFLICT %s
# NOCONFLICT: {{^}}cycles: 13 (
# NOCONFLICT: compute[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=4]
