# A dropped load -> compute token: the compute queue's preload reads rows the load queue writes,
# and nothing orders them. The data may still come out right (the load happens to finish first);
# --races reports the race by itself, naming both instructions. Without --races it runs.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: not %systole sim %t.sbin --isa %configs/default.yaml --races 2>&1 | FileCheck -DPROG=%t.sbin %s
# RUN: %systole sim %t.sbin --isa %configs/default.yaml --races > /dev/null 2>&1; test $? -eq 1
# RUN: %systole sim %t.sbin --isa %configs/default.yaml -q

dma.load dram_addr=0, spad_row=0, rows=16, bytes=16, dram_stride=16
preload spad_row=0
finish
# CHECK: {{^}}[[PROG]]: error: simulation fault: race: instruction 1 (preload spad_row=0) reads scratchpad row 0, which instruction 0 (dma.load dram_addr=0, spad_row=0, rows=16, bytes=16, dram_stride=16) writes, and no dependency token orders them (read after write){{$}}
