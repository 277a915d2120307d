# The load queue is first: a load instruction cannot pop a token from a previous queue.
# RUN: not %systole asm %s --isa %configs/default.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:38: error: the load queue has no previous queue to exchange tokens with
dma.load 0, 0, 1, 16, 16 [push_next, pop_prev]
