# The load queue is first: no push_prev either (on tiny's 'ld.acc').
# RUN: not %systole asm %s --isa %configs/tiny.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:24: error: the load queue has no previous queue to exchange tokens with
ld.acc 0, 0, 1, 16, 0 [push_prev]
