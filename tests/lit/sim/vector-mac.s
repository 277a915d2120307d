# vmac (vector_mac): vector.latency + rows cycles, holding the compute queue for its rows. The
# second vmac accumulates onto the first one's rows, so it waits for them to complete:
#   vmac 0: [0, 4 + 8 = 12), vmac 1: [12, 24) (a 4-cycle hazard), finish 1: 25 cycles.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole sim %t.sbin --isa %configs/default.yaml | FileCheck %s

vmac dst_row=0, src_row=0, w_row=100, rows=8, stride=2, accumulate=0
vmac dst_row=0, src_row=1, w_row=101, rows=8, stride=2, accumulate=1
finish
# CHECK: {{^}}cycles: 25 (
# CHECK: compute[token=0 queue_full=0 dram_bandwidth=0 bank_conflict=0 hazard=8]

# A gemm after a vmac (no shared rows) waits for the vmac's 8 rows: gemm [8, 8 + 8 + 30 = 46),
# finish 1: 47 cycles. With vector.parallel the vector unit has its own issue path and the gemm
# starts the next cycle: [1, 39), 40 cycles.
# RUN: printf 'vmac dst_row=0, src_row=0, w_row=100, rows=8, stride=1, accumulate=0\ngemm a_row=200, acc_row=300, m=8, accumulate=0\nfinish\n' > %t.par.s
# RUN: %systole asm %t.par.s --isa %configs/default.yaml -o %t.par.sbin
# RUN: %systole sim %t.par.sbin --isa %configs/default.yaml | FileCheck --check-prefix=SERIAL %s
# RUN: %systole asm %t.par.s --isa %configs/default.yaml --set vector.parallel=true -o %t.par2.sbin
# RUN: %systole sim %t.par2.sbin --isa %configs/default.yaml --set vector.parallel=true | FileCheck --check-prefix=PARALLEL %s
# SERIAL: {{^}}cycles: 47 (
# PARALLEL: {{^}}cycles: 40 (
