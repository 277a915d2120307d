#!/usr/bin/python3
"""Lists the C++ lines outside isa/ that restate the int8 range as a literal (-128 or 127, or
-128.0 and 127.0).

Issue 33: the activation range comes from one place, isa::arith::kActMin / kActMax (the one type
types.activation accepts), so no literal int8 range remains outside isa/. The test runs it with
--max-count 0.

    tests/code/int8_literals.py [--max-count K] [ROOT]

Comments are ignored (a `//` comment's text, and lines inside /* */ blocks). Prints each line as
FILE:LINE: TEXT and the count; exits 1 if there are more than K.
"""
import argparse
import os
import re
import sys

from product_files import cpp_files

PRODUCT_DIRS = ["compiler", "simulator", "runtime", "hostjit", "tools", "python/src", "rtl/cosim"]
LITERAL = re.compile(r"(?<![\w.])(-128|127)(\.0)?(?![\w.])")


def code_lines(path):
    """(line number, code without comments) of each line of a C++ file."""
    in_block = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            code = ""
            rest = line.rstrip("\n")
            while rest:
                if in_block:
                    end = rest.find("*/")
                    if end < 0:
                        rest = ""
                    else:
                        in_block, rest = False, rest[end + 2:]
                    continue
                start_line, start_block = rest.find("//"), rest.find("/*")
                cuts = [c for c in (start_line, start_block) if c >= 0]
                if not cuts:
                    code += rest
                    break
                cut = min(cuts)
                code += rest[:cut]
                if cut == start_line:
                    break
                in_block, rest = True, rest[cut + 2:]
            yield number, code


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--max-count", type=int, default=0)
    p.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = p.parse_args()
    found = []
    for path in cpp_files(args.root, PRODUCT_DIRS):
        for number, code in code_lines(path):
            if LITERAL.search(code):
                found.append(f"{os.path.relpath(path, args.root)}:{number}: {code.strip()}")
    for line in sorted(found):
        print(line)
    print(f"{len(found)} lines restate the int8 range outside isa/ (allowed: {args.max_count})")
    return 1 if len(found) > args.max_count else 0


if __name__ == "__main__":
    sys.exit(main())
