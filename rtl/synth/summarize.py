#!/usr/bin/env python3
"""Collects the per-block Yosys statistics of one config into the NPU's synthesis summary.

usage: summarize.py PACKAGE.sv STAT_DIR OUT.json
  PACKAGE.sv: the config's generated systole_pkg.sv; STAT_DIR: BLOCK.json per block (rtl/synth/yosys.mjs).

A block is counted as often as the NPU has it: the lanes once per vector lane, the DMA address
generator once per DMA unit, a class's block only when the config has an instruction of that
class. Flip-flops are Yosys's $_*DFF*_ cells; transistors are Yosys's CMOS estimate (`stat -tech
cmos`) plus 16 per flip-flop type that estimate leaves out (its plain DFF's count), so a
flip-flop with reset or enable counts as a plain one. OUT.json also has the package's parameters,
by which `systole report --rtl-area` knows the config it was synthesized from. Prints a table.
"""
import json
import pathlib
import re
import sys

PLAIN_DFF_TRANSISTORS = 16
PRICED_FLIP_FLOPS = {"$_DFF_P_", "$_DFF_N_"}


def package_facts(text):
    """The config's name, vector lanes and the semantics classes its instructions use."""
    name = re.search(r"ISA '([^']*)'", text).group(1)
    lanes = int(re.search(r"localparam int VECTOR_LANES = (\d+);", text).group(1))
    classes = set(re.findall(r"^  // \S+ \((\w+)\)$", text, re.MULTILINE))
    return name, lanes, classes


def package_parameters(text):
    """The config's parameters as the package has them (SystemVerilog names): the integer
    localparams before the first instruction's."""
    head = re.split(r"^  // \S+ \(\w+\)$", text, maxsplit=1, flags=re.MULTILINE)[0]
    return {name: int(value) for name, value in
            re.findall(r"^  localparam (?:int|longint) (\w+) = (?:64'd)?(\d+);$", head, re.MULTILINE)}


def instances(block, lanes, classes):
    """How many of `block` the config's NPU has (0: none of its classes)."""
    has = lambda *c: any(x in classes for x in c)
    counts = {
        "systolic_array": 1,
        "weight_transposer": int(has("weight_preload_t")),
        "requant_lane": lanes * has("requantize"),
        "vector_alu_lane": lanes * has("vector_widen", "vector_add", "vector_mul", "vector_max", "vector_lut"),
        "vector_reduce_row": int(has("vector_reduce")),
        "recip_lane": lanes * has("vector_recip"),
        "vector_mac_lane": lanes * has("vector_mac"),
        "dma_addr_gen": 2,  # the load and the store unit
        "int4_unpack": int(has("dma_load_int4")),
    }
    if block not in counts:
        raise SystemExit(f"error: summarize.py does not know how many {block} the NPU has; add it to instances()")
    return counts[block]


def block_figures(stat):
    design = stat["design"]
    by_type = design.get("num_cells_by_type", {})
    flops = {t: n for t, n in by_type.items() if "DFF" in t}
    estimate = str(design.get("estimated_num_transistors", "0")).rstrip("+")
    unpriced = sum(n for t, n in flops.items() if t not in PRICED_FLIP_FLOPS)
    return {
        "cells": design["num_cells"],
        "flip_flops": sum(flops.values()),
        "memory_bits": design.get("num_memory_bits", 0),
        "transistors": int(estimate) + PLAIN_DFF_TRANSISTORS * unpriced,
    }


def main(argv):
    if len(argv) != 4:
        raise SystemExit(__doc__.strip().splitlines()[2])
    package, stat_dir, out = pathlib.Path(argv[1]), pathlib.Path(argv[2]), pathlib.Path(argv[3])
    text = package.read_text()
    name, lanes, classes = package_facts(text)
    blocks = {}
    for stat in sorted(stat_dir.glob("*.json")):
        count = instances(stat.stem, lanes, classes)
        blocks[stat.stem] = dict(block_figures(json.loads(stat.read_text())), instances=count)
    out.write_text(json.dumps({"config": name, "parameters": package_parameters(text), "blocks": blocks}, indent=2) + "\n")
    print(f"{name}: {'block':<18} {'instances':>9} {'cells':>9} {'flip-flops':>10} {'memory bits':>11} {'transistors':>11}")
    for block, f in blocks.items():
        print(f"{'':{len(name) + 2}}{block:<18} {f['instances']:>9} {f['cells']:>9,} {f['flip_flops']:>10,} "
              f"{f['memory_bits']:>11,} {f['transistors']:>11,}")


if __name__ == "__main__":
    main(sys.argv)
