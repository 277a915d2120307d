# A program without a finish instruction would never end: the simulator refuses it (exit code 1).
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.sbin %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml > /dev/null 2>&1; test $? -eq 1

dma.load 0, 0, 1, 16, 16 [push_next]
nop [pop_prev]
# CHECK: {{^}}[[PROG]]: error: simulation fault: the program has no 'finish' instruction, so it would never end{{$}}
