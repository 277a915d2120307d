# A signed 8-bit field takes -128..127: one above the maximum (128 does not wrap to -128).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:24: error: value 128 out of range for field 'clamp_min' [-128, 127]
requant 0, 0, 1, 0, 0, 128, 127
