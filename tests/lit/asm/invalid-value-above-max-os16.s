# On the output-stationary config a gemm covers at most array.rows (16) rows.
# RUN: not %systole asm %s --isa %configs/os16.yaml -o %t.sbin 2>&1 | FileCheck %s

# CHECK: [[@LINE+1]]:12: error: value 17 out of range for field 'm' [0, 16] (max: array.rows)
gemm 0, 0, 17, 0
