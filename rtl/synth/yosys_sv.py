#!/usr/bin/env python3
"""Rewrites the generated package and one RTL block into the SystemVerilog subset Yosys 0.55 reads.

Yosys 0.55 (YoWASP's build, rtl/synth/yosys.mjs) reads packages and `pkg::NAME`, but not `import pkg::*` in a module header,
`localparam string`, or package functions. The datapath blocks use only the package's integer
localparams, so the package keeps those and each block names them as `systole_pkg::NAME`.
The rewrite is textual and touches nothing else; Yosys's own parser checks the result.

usage: yosys_sv.py PACKAGE.sv BLOCK.sv OUT_DIR   (writes OUT_DIR/systole_pkg.sv, OUT_DIR/BLOCK.sv)
"""
import pathlib
import re
import sys

LOCALPARAM = re.compile(r"^\s*localparam\s+(?:int|longint)\s+(\w+)\s*=.*;", re.MULTILINE)
HEADER_IMPORT = re.compile(r"^\s*import\s+systole_pkg::\*;\s*\n", re.MULTILINE)


def integer_package(package_text):
    """The package with only its integer localparams, and their names."""
    lines = [m.group(0).strip() for m in LOCALPARAM.finditer(package_text)]
    names = [m.group(1) for m in LOCALPARAM.finditer(package_text)]
    body = "".join(f"  {line}\n" for line in lines)
    return f"package systole_pkg;\n{body}endpackage\n", names


def qualified_block(name, block_text, names):
    """The block without its header import, every package name qualified."""
    if not HEADER_IMPORT.search(block_text):
        raise SystemExit(f"{name}: error: the block does not import systole_pkg::* in its header")
    text = HEADER_IMPORT.sub("", block_text, count=1)
    pattern = re.compile(r"(?<![\w:.$])(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")
    return pattern.sub(r"systole_pkg::\1", text)


def main(argv):
    if len(argv) != 4:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    package, block, out = (pathlib.Path(a) for a in argv[1:])
    package_text, names = integer_package(package.read_text())
    out.mkdir(parents=True, exist_ok=True)
    (out / "systole_pkg.sv").write_text(package_text)
    (out / block.name).write_text(qualified_block(block, block.read_text(), names))


if __name__ == "__main__":
    main(sys.argv)
