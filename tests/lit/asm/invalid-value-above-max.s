# A value that fits the field's 3 bits but exceeds its 'max: scratchpad.row_bytes' (4 on tiny).
# RUN: not %systole asm %s --isa %configs/tiny.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:19: error: value 5 out of range for field 'bytes' [0, 4] (max: scratchpad.row_bytes)
ld 0, 0, 1, bytes=5, dram_stride=4
