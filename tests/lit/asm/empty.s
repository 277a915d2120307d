# A file with only comments is an empty program: no instructions, tensors or data.
# RUN: %systole asm %s --isa %configs/tiny.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin | FileCheck %s

# CHECK: # program for ISA 'tiny', 0 instructions
# CHECK-NOT: {{.}}
