# The store queue is last: a store instruction cannot pop a token from a next queue.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:42: error: the store queue has no next queue to exchange tokens with
dma.store.acc 0, 0, 1, 64, 64 [pop_prev, pop_next]
