# A directive the assembler does not know.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:1: error: unknown directive '.text'
.text
