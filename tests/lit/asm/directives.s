# .tensor, .data, .byte, .word and .zero: the disassembler prints the tensor table and the data
# segments (as .byte lines of 16 signed bytes, addresses in hex), and that text reassembles to the
# same container.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml | FileCheck %s
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml -o %t.dis.s
# RUN: %systole asm %t.dis.s --isa %configs/default.yaml -o %t.re.sbin
# RUN: cmp %t.sbin %t.re.sbin

# Every kind and dtype; scale 1 and zero_point 0 are the defaults and are not printed.
.tensor input x int8 [16, 16] @0x0000 scale=0.05
.tensor output y uint8 [4] @4096 zero_point=-128
.tensor constant w int32 [2, 3, 4] @0x2000 scale=0.25 zero_point=7
.tensor intermediate t float32 [] @0x3000 scale=1 zero_point=0
.tensor input empty int8 [0, 5] @0x4000 scale=-1.5e-3
# CHECK: # program for ISA 'default', 1 instructions
# CHECK-NEXT: .tensor input x int8 [16, 16] @0x0 scale=0.05{{$}}
# CHECK-NEXT: .tensor output y uint8 [4] @0x1000 zero_point=-128{{$}}
# CHECK-NEXT: .tensor constant w int32 [2, 3, 4] @0x2000 scale=0.25 zero_point=7{{$}}
# CHECK-NEXT: .tensor intermediate t float32 [] @0x3000{{$}}
# CHECK-NEXT: .tensor input empty int8 [0, 5] @0x4000 scale=-0.0015{{$}}

# .byte takes -128..255, .word any 32-bit value (stored little-endian), .zero a count.
.data 0x100
.byte -128, 255, 0, 127, -1
.word 1, -1, 0x7fffffff, -2147483648, 4294967295
.zero 3
# CHECK-NEXT: .data 0x100
# CHECK-NEXT: .byte -128, -1, 0, 127, -1, 1, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1
# CHECK-NEXT: .byte 127, 0, 0, 0, -128, -1, -1, -1, -1, 0, 0, 0{{$}}

# A segment may be empty, and segments keep their order.
.data 0
# CHECK-NEXT: .data 0x0
.data 512
.zero 0
.byte 0x7f
# CHECK-NEXT: .data 0x200
# CHECK-NEXT: .byte 127{{$}}

finish
# CHECK-NEXT: finish
