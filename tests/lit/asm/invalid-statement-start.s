# A statement must start with an instruction or a directive.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:3: error: expected an instruction or a directive, got '42'
  42 nop
