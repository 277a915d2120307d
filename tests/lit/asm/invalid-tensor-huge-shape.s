# A shape whose element count overflows 64 bits must not wrap around to a size that fits.
# RUN: not %systole asm %s --isa %configs/tiny.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:15: error: tensor 'huge' does not fit in DRAM
.tensor input huge int8 [4294967296, 4294967296] @0
