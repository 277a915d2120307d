# A DMA whose DRAM rows run past the end of the 512 MiB DRAM is a fault naming the instruction, its
# disassembly and the byte range; the exit code is 1 and nothing goes to stdout.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml 2>&1 | FileCheck -DPROG=%t.sbin %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml > %t.out 2> /dev/null; test $? -eq 1
# RUN: count 0 < %t.out

# The first row [0x1FFFFFF0, 0x20000000) fits; the second, one stride on, does not.
dma.load dram_addr=0x1FFFFFF0, spad_row=0, rows=2, bytes=16, dram_stride=16 [push_next]
nop [pop_prev]
finish
# CHECK: {{^}}[[PROG]]: error: simulation fault: instruction 0 (dma.load dram_addr=536870896, spad_row=0, rows=2, bytes=16, dram_stride=16 [push_next]): DRAM access [536870912, 536870928) out of range: the DRAM has 536870912 bytes{{$}}
