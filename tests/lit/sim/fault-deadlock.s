# A pop that no instruction will ever satisfy is a deadlock, reported with the waiting
# instruction; the exit code is 1.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.sbin %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml > /dev/null 2>&1; test $? -eq 1

dma.load 0, 0, 1, 16, 16 [push_next]
nop [pop_prev]
# The load pushed one token, which the nop above consumed: this store waits for a token from the
# compute queue, which never pushes one.
dma.store 0x100, 0, 1, 16, 16 [pop_prev]
finish
# CHECK: {{^}}[[PROG]]: error: simulation fault: instruction 2 (dma.store dram_addr=256, spad_row=0, rows=1, bytes=16, dram_stride=16 [pop_prev]): deadlock: the store queue waits for a token from the compute queue that is never pushed{{$}}
