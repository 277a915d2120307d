# '#' starts a comment anywhere on a line; blank lines, comment-only lines and surrounding
# whitespace (spaces or tabs) are skipped.
# RUN: %systole asm %s --isa %configs/default.yaml -o %t.sbin
# RUN: %systole disasm %t.sbin --isa %configs/default.yaml | FileCheck %s

# CHECK: # program for ISA 'default', 4 instructions

      # an indented comment
	nop	# after a tab
# CHECK-NEXT: nop{{$}}
gemm 1, 2, 3, 1   # a comment that looks like tokens: [pop_prev] frob x=1
# CHECK-NEXT: gemm a_row=1, acc_row=2, m=3, accumulate=1{{$}}
nop [push_next]# no space before the comment
# CHECK-NEXT: nop [push_next]{{$}}
finish#
# CHECK-NEXT: finish{{$}}
   
