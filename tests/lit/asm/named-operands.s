# Named operands may come in any order; every order encodes the same instruction, which the
# disassembler prints in field order.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml | FileCheck %s

# CHECK: vlut dst_row=1, src_row=2, rows=3, table_row=4
# CHECK-NEXT: vlut dst_row=1, src_row=2, rows=3, table_row=4
# CHECK-NEXT: vlut dst_row=1, src_row=2, rows=3, table_row=4
# CHECK-NEXT: vlut dst_row=1, src_row=2, rows=3, table_row=4
vlut dst_row=1, src_row=2, rows=3, table_row=4
vlut table_row=4, rows=3, src_row=2, dst_row=1
vlut rows=3, dst_row=1, table_row=4, src_row=2
vlut 1, 2, 3, 4
# Spaces around '=' are allowed.
# CHECK-NEXT: widen spad_row=7, acc_row=8, rows=9, zero_point=-3, multiplier=-300
widen multiplier = -300, zero_point= -3, rows =9, acc_row=8, spad_row=7
