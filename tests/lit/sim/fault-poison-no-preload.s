# In poison mode a matmul before any weight_preload is a fault: the array's weights were never
# loaded, so its products are of whatever the array held. Without --poison it runs.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml --poison 2>&1 | FileCheck -DPROG=%t.sbin %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml -q

dma.load 0, 0, 4, 16, 16 [push_next]
gemm a_row=0, acc_row=0, m=4, accumulate=0 [pop_prev]
finish
# CHECK: {{^}}[[PROG]]: error: simulation fault: instruction 1 (gemm a_row=0, acc_row=0, m=4, accumulate=0 [pop_prev]): the array's weights were never loaded: no weight_preload ran before it (poison mode){{$}}
