# Scratchpad and accumulator rows out of range are faults naming the operand, the row range and
# the memory's size (default: 16384 scratchpad rows, 1024 accumulator rows).
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.sbin %s

nop
vmax dst_row=16380, a_row=0, b_row=0, rows=8
finish
# CHECK: {{^}}[[PROG]]: error: simulation fault: instruction 1 (vmax dst_row=16380, a_row=0, b_row=0, rows=8): destination rows [16380, 16388) out of range: the scratchpad has 16384 rows{{$}}

# RUN: printf 'vadd dst_row=0, a_row=0, b_row=1020, rows=8\nfinish\n' > %t.acc.s
# RUN: %systole asm %t.acc.s --isa %configs/default.yaml -o %t.acc.sbin
# RUN: not %systole sim %t.acc.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.acc.sbin --check-prefix=ACC %s
# ACC: {{^}}[[PROG]]: error: simulation fault: instruction 0 (vadd dst_row=0, a_row=0, b_row=1020, rows=8): second source rows [1020, 1028) out of range: the accumulator has 1024 rows{{$}}

# vmac's strided source: rows [src_row, src_row + stride * (rows - 1) + 1) must exist.
# RUN: printf 'vmac dst_row=0, src_row=16370, w_row=0, rows=8, stride=2, accumulate=0\nfinish\n' > %t.vmac.s
# RUN: %systole asm %t.vmac.s --isa %configs/default.yaml -o %t.vmac.sbin
# RUN: not %systole sim %t.vmac.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.vmac.sbin --check-prefix=VMAC %s
# VMAC: {{^}}[[PROG]]: error: simulation fault: instruction 0 (vmac dst_row=0, src_row=16370, w_row=0, rows=8, stride=2, accumulate=0): source rows [16370, 16385) out of range: the scratchpad has 16384 rows{{$}}
