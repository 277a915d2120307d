#!/usr/bin/python3
"""Lists the product functions longer than a limit (issue 29: 80 lines).

A function is a definition whose header ends a line with '{' at the indentation of a namespace
member (column 0) or of a class member (column 2), other than namespace, class, struct, enum and
union bodies and initializer tables; it ends at the first later line that is a '}' (or '};') at the
same indentation. Its length counts the lines from the header's first line to that brace. The
code follows .clang-format, which makes the indentation reliable.

    tests/code/long_functions.py [--limit N] [--max-count K] [ROOT]

Prints each long function as FILE:LINE: NAME (N lines) and exits 1 if there are more than K
(default 0).
"""
import argparse
import os
import re
import sys

from product_files import cpp_files

PRODUCT_DIRS = ["isa", "compiler", "simulator", "runtime", "hostjit", "tools", "python", "rtl/cosim"]
NOT_FUNCTIONS = re.compile(r"^\s*(namespace|class|struct|enum|union|extern|template\s*<[^>]*>\s*(class|struct))\b|=\s*\{$|^\s*\w.*\bconst\w*\s+\w+(\[\])?\s*=")


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("{") and line.strip() != "{" and not line.lstrip().startswith(("//", "#", "}")):
            # The header may start on earlier lines (a wrapped parameter list): back up to its start.
            start = i
            while start > 0 and lines[start - 1].strip() and not lines[start - 1].rstrip().endswith((";", "}", "{", ":")) \
                    and not lines[start - 1].lstrip().startswith(("//", "#", "template")):
                start -= 1
            indent = len(lines[start]) - len(lines[start].lstrip(" "))
            header = " ".join(l.strip() for l in lines[start:i + 1])
            if indent in (0, 2) and "(" in header and not NOT_FUNCTIONS.search(header):
                close = " " * indent + "}"
                j = i + 1
                while j < len(lines) and lines[j].rstrip() not in (close, close + ";"):
                    j += 1
                name = re.search(r"([\w:~<>]+)\s*\(", header)
                out.append((start + 1, name.group(1) if name else header[:40], j - start + 1))
                i = j
        i += 1
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--limit", type=int, default=80)
    p.add_argument("--max-count", type=int, default=0)
    p.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    a = p.parse_args()
    long = []
    for path in cpp_files(a.root, PRODUCT_DIRS):
        for line, name, length in functions(path):
            if length > a.limit:
                long.append((os.path.relpath(path, a.root), line, name, length))
    for path, line, name, length in sorted(long, key=lambda t: -t[3]):
        print(f"{path}:{line}: {name} ({length} lines)")
    print(f"{len(long)} product functions over {a.limit} lines (allowed: {a.max_count})")
    return 1 if len(long) > a.max_count else 0


if __name__ == "__main__":
    sys.exit(main())
