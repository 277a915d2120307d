# The store queue is last: no push_next either.
# RUN: not %systole asm %s --isa %configs/large.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:28: error: the store queue has no next queue to exchange tokens with
dma.store 0, 0, 1, 32, 32 [push_next]
