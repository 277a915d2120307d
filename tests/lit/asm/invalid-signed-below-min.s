# A signed 8-bit field takes -128..127: one below the minimum.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:45: error: value -129 out of range for field 'clamp_min' [-128, 127]
requant 0, 0, 1, 0, zero_point=0, clamp_min=-129, clamp_max=127
