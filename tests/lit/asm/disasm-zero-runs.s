# The disassembler prints whole 16-byte lines of zeros, one after another, as one .zero line, so a
# large zero-filled segment stays short (a 9 KB file with `.zero 94967295` took minutes to
# disassemble as .byte lines; found by tests/fuzz/asm_fuzzer); the text reassembles to the same
# container. A zero line between nonzero bytes that is not whole stays .byte.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml | FileCheck %s
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml -o %t.dis.s
# RUN: %systole asm %t.dis.s --isa %configs/default.yaml -o %t.re.sbin
# RUN: cmp %t.sbin %t.re.sbin

.data 0x100
.byte 1
.zero 15
.zero 1048576
.byte 2
.zero 20
# CHECK:      .data 0x100
# CHECK-NEXT: .byte 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0{{$}}
# CHECK-NEXT: .zero 1048576{{$}}
# CHECK-NEXT: .byte 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0{{$}}
# CHECK-NEXT: .byte 0, 0, 0, 0, 0{{$}}

finish
# CHECK-NEXT: finish
