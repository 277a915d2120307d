# A token pushed and never popped is a dependency the program declared and never used: the
# simulator reports it as a fault (exit code 1) rather than exiting 0. Here the load tells the
# compute queue its data is there, but no compute instruction waits for it.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.sbin %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml > /dev/null 2>&1; test $? -eq 1

dma.load 0, 0, 1, 16, 16 [push_next]
nop
finish
# CHECK: {{^}}[[PROG]]: error: simulation fault: 1 token(s) pushed by the load queue to the compute queue were never popped{{$}}
