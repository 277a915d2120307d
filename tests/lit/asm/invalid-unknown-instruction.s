# A mnemonic the config does not define (tiny's 'ld' is 'dma.load' here).
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

finish
# CHECK: [[@LINE+1]]:3: error: unknown instruction 'ld' for ISA 'default'
  ld 0, 0, 0, 0, 0
