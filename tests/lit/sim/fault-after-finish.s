# Instructions after finish would never run (the controller stops dispatching at finish): the
# simulator refuses the program rather than dropping them silently (exit code 1), here a store
# whose data a load->compute->store chain was meant to deliver.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.sbin %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml > /dev/null 2>&1; test $? -eq 1

dma.load 0, 0, 1, 16, 16 [push_next]
nop [pop_prev, push_next]
finish
dma.store 0x100, 0, 1, 16, 16 [pop_prev]
# CHECK: {{^}}[[PROG]]: error: simulation fault: instruction 3 (dma.store) comes after 'finish', so it would never run{{$}}
