#!/usr/bin/env python3
"""Writes a random legal ISA config (docs/isa-schema.md) for a seed; the same seed, the same file.

Drawn: the array (2..64 rows and columns, either dataflow, 1 or 2 weight sets), the memories'
sizes and banks, DRAM size, bandwidth and latency, DMA bursts and transfers in flight, queue
depths, the vector latency, timing expressions with and without `issue`, opcodes, the opcode
width, the order of each instruction's fields and their widths, and which optional instructions
the set has (the compiler runs an operator on the host when the ISA lacks one of its
instructions, issues one dma_load per run without dma_load_2d, and preloads weight tiles without
matmul_stream).

Widths keep what the memories need: a row field addresses every row of its memory, except in one
config in five where some row fields are 1-3 bits narrower (the compiler keeps its layout within
the rows every field reaches); `dram_addr` every DRAM byte, `bytes` a whole row; the count fields
(rows, m, k_slices, runs) and strides may be narrower, which the compiler's tiling reads from the
fields' limits.

    gen_config.py SEED [-o FILE]
"""
import argparse
import math
import random
import sys

MIB = 1 << 20


def bits_for(n):
    """Bits of an unsigned field that holds 0..n."""
    return max(1, int(n).bit_length())


def size_text(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def log_uniform(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


class Draw:
    """The config's independent parameters, drawn from one seeded generator."""

    def __init__(self, seed):
        rng = self.rng = random.Random(seed)
        self.seed = seed
        dim = lambda: rng.choice([2, 4, 8, 16, 32, 64]) if rng.random() < 0.4 else rng.randint(2, 64)
        self.rows, self.cols = dim(), dim()
        self.output_stationary = rng.random() < 0.5
        self.row_bytes = max(self.rows, self.cols)
        self.acc_row_bytes = 4 * self.cols
        lut_rows = -(-256 // self.row_bytes)
        # One config in ten has memories too small for some layers (the compiler must say so).
        self.starved = rng.random() < 0.1
        self.spad_banks = rng.choice([1, 2, 4, 8])
        floor = max(self.rows, lut_rows)
        spad = rng.randint(floor, 6 * floor) if self.starved else log_uniform(rng, 8 * floor, max(16 * floor, (2 * MIB) // self.row_bytes))
        self.spad_rows = -(-spad // self.spad_banks) * self.spad_banks
        self.acc_banks = rng.choice([1, 2, 4])
        acc = rng.randint(2, 16) if self.starved else log_uniform(rng, 16, max(32, MIB // self.acc_row_bytes))
        self.acc_rows = -(-acc // self.acc_banks) * self.acc_banks
        self.dram_size = rng.choice([2, 4]) * MIB if self.starved and rng.random() < 0.5 else rng.randint(16, 1024) * MIB
        self.weight_buffers = rng.choice([1, 2])
        self.outstanding = rng.choice([1, 1, 2, 4, 8])
        self.broadcast = rng.random() < 0.5
        self.pipelined = rng.random() < 0.5  # compute instructions give `issue`
        self.stream = self.output_stationary and rng.random() < 0.7
        self.short_names = rng.random() < 0.3  # tiny.yaml's mnemonics (ld, mm, rq, ...)
        self.narrowed = []  # row fields narrower than their memory (narrow_row_fields)
        # Optional instructions (dma.store.acc the compiler never emits; the rest fall back to the host).
        optional = ["dma.load2d", "dma.store.acc", "vreduce", "vlut", "vmax", "vmul", "vadd", "widen"]
        self.dropped = {name for name in optional if rng.random() < 0.25}
        # int4 weights (the default width, with int8 offered too) in about one config in three,
        # drawn from a generator of their own so the other configs stay as they were.
        self.int4 = random.Random(seed * 1000003 + 4).random() < 0.3
        # A saturating accumulator narrower than int32 in about one config in three (int24 and
        # int16 alike), from a generator of its own too; the accumulator keeps its rows (fewer bytes).
        narrow = random.Random(seed * 1000003 + 5).random()
        self.acc_bits = 24 if narrow < 0.15 else 16 if narrow < 0.3 else 32
        if rng.random() < 0.05:
            self.dropped |= {"preload", "gemm"}  # matrix products on the host, or on matmul_stream only


def count_bits(rng, reach):
    """A count field: up to 3 bits narrower than its memory's rows, or one wider."""
    full = bits_for(reach)
    return rng.randint(max(2, full - 3), full + 1)


def instructions(d):
    """(name, semantics, unit, fields, cycles, issue) of every instruction the set has."""
    rng = d.rng
    spad = bits_for(d.spad_rows - 1) + rng.randint(0, 1)
    acc = bits_for(d.acc_rows - 1) + rng.randint(0, 1)
    addr = bits_for(d.dram_size - 1) + rng.randint(0, 2)
    stride = lambda: rng.randint(6, 24)  # narrow ones make the compiler split strided DMAs by row
    sbytes = lambda: {"bits": bits_for(d.row_bytes) + rng.randint(0, 2), "max": "scratchpad.row_bytes"}
    abytes = lambda: {"bits": bits_for(d.acc_row_bytes) + rng.randint(0, 2), "max": "accumulator.row_bytes"}
    srows = lambda: count_bits(rng, d.spad_rows)
    arows = lambda: count_bits(rng, d.acc_rows)
    extra = lambda: "" if rng.random() < 0.6 else f" + {rng.randint(1, 8)}"
    transfer = "rows * ceil_div(bytes, dram.bytes_per_cycle)"
    bcast = f"min(dram_stride, 1) * {transfer} + (1 - min(dram_stride, 1)) * (ceil_div(bytes, dram.bytes_per_cycle) + max(rows, 1) - 1)"

    def dma(name, sem, unit, row, row_bits, nbytes, load):
        move = bcast if load and d.broadcast else transfer
        issue = move if rng.random() < 0.7 else None
        fields = [("dram_addr", {"bits": addr}), (row, {"bits": row_bits}), ("rows", {"bits": srows() if row == "spad_row" else arows()}),
                  ("bytes", nbytes()), ("dram_stride", {"bits": stride()})]
        return (name, sem, unit, fields, f"dram.latency + {move}{extra()}", issue)

    def vector(name, sem, fields, tail=""):
        cycles = f"vector.latency + rows{tail}{extra()}"
        return (name, sem, "compute", fields, cycles, "rows" if d.pipelined else None)

    m_max = {"max": "array.rows"} if d.output_stationary else {}
    if d.output_stationary:
        gemm_cycles, gemm_issue = "array.rows + array.cols + 2 * m - 2", "m" if d.pipelined else None
    else:
        gemm_cycles, gemm_issue = "m + array.rows + array.cols - 2", "m" if d.pipelined else None
    m_bits = rng.randint(2, bits_for(d.rows) + 1) if d.output_stationary else srows()
    sign8 = {"bits": 8, "signed": True}
    out = [
        dma("dma.load", "dma_load", "load", "spad_row", spad, sbytes, True),
        ("dma.load2d", "dma_load_2d", "load",
         [("dram_addr", {"bits": addr}), ("spad_row", {"bits": spad}), ("rows", {"bits": srows()}), ("bytes", sbytes()),
          ("dram_stride", {"bits": stride()}), ("runs", {"bits": rng.randint(2, 8)}), ("run_stride", {"bits": rng.randint(16, 26)})],
         "dram.latency + runs * " + transfer, "runs * " + transfer if rng.random() < 0.7 else None),
        dma("dma.load.acc", "dma_load_acc", "load", "acc_row", acc, abytes, True),
        dma("dma.store", "dma_store", "store", "spad_row", spad, sbytes, False),
        dma("dma.store.acc", "dma_store_acc", "store", "acc_row", acc, abytes, False),
        ("preload", "weight_preload", "compute", [("spad_row", {"bits": spad})], "array.rows" + extra(), None),
        ("gemm", "matmul_tile", "compute",
         [("a_row", {"bits": spad}), ("acc_row", {"bits": acc}), ("m", {"bits": m_bits, **m_max}), ("accumulate", {"bits": 1})],
         gemm_cycles, gemm_issue),
    ]
    if d.stream:
        out.append(("gemm.stream", "matmul_stream", "compute",
                    [("a_row", {"bits": spad}), ("a_stride", {"bits": spad}), ("w_row", {"bits": spad}), ("acc_row", {"bits": acc}),
                     ("m", {"bits": rng.randint(2, bits_for(d.rows) + 1), "max": "array.rows"}), ("k_slices", {"bits": rng.randint(3, 12)}),
                     ("accumulate", {"bits": 1})],
                    "k_slices * array.rows + m + array.cols - 2", None))
    out += [
        vector("requant", "requantize", [("acc_row", {"bits": acc}), ("spad_row", {"bits": spad}), ("rows", {"bits": arows()}),
                                         ("scale_row", {"bits": acc}), ("zero_point", sign8), ("clamp_min", sign8), ("clamp_max", sign8)]),
        vector("widen", "vector_widen", [("spad_row", {"bits": spad}), ("acc_row", {"bits": acc}), ("rows", {"bits": arows()}),
                                         ("zero_point", sign8), ("multiplier", {"bits": 16, "signed": True})]),
        vector("vadd", "vector_add", [("dst_row", {"bits": acc}), ("a_row", {"bits": acc}), ("b_row", {"bits": acc}), ("rows", {"bits": arows()})]),
        vector("vmul", "vector_mul", [("dst_row", {"bits": acc}), ("a_row", {"bits": acc}), ("b_row", {"bits": acc}), ("rows", {"bits": arows()})]),
        vector("vmax", "vector_max", [("dst_row", {"bits": spad}), ("a_row", {"bits": spad}), ("b_row", {"bits": spad}), ("rows", {"bits": srows()})]),
        vector("vlut", "vector_lut", [("dst_row", {"bits": spad}), ("src_row", {"bits": spad}), ("rows", {"bits": srows()}), ("table_row", {"bits": spad})]),
        vector("vreduce", "vector_reduce", [("dst_row", {"bits": acc}), ("src_row", {"bits": acc}), ("rows", {"bits": arows()}), ("op", {"bits": 1})],
               " + log2_ceil(vector.lanes)"),
        ("nop", "nop", "compute", [], "1", None),
        ("finish", "finish", "compute", [], "1", None),
    ]
    kept = [i for i in out if i[0] not in d.dropped]
    for _, _, _, fields, _, _ in kept:
        rng.shuffle(fields)  # fields are placed in list order: a new layout per config
    if d.int4:
        kept.insert(1, int4_load(d, addr, spad))
    return kept


def int4_load(d, addr, spad):
    """dma.load.w4 (dma_load_int4), from the int4 generator: a row moves ceil(bytes / 2) DRAM bytes."""
    r4 = random.Random(d.seed * 1000003 + 5)
    fields = [("dram_addr", {"bits": addr}), ("spad_row", {"bits": spad}), ("rows", {"bits": count_bits(r4, d.spad_rows)}),
              ("bytes", {"bits": bits_for(d.row_bytes) + r4.randint(0, 2), "max": "scratchpad.row_bytes"}),
              ("dram_stride", {"bits": r4.randint(6, 24)})]
    r4.shuffle(fields)
    move = "rows * ceil_div(ceil_div(bytes, 2), dram.bytes_per_cycle)"
    return ("dma.load.w4", "dma_load_int4", "load", fields, f"dram.latency + {move}", move if r4.random() < 0.7 else None)


ACCUMULATOR_ROW_FIELDS = {"acc_row", "scale_row"}
ACCUMULATOR_ONLY = {"vector_add", "vector_mul", "vector_reduce"}


def narrow_row_fields(d, instrs):
    """In one config in five, makes some row fields 1-3 bits narrower than their memory needs.
    Drawn from a generator of its own, so every other draw of a seed stays what it was."""
    rng = random.Random(f"narrow-{d.seed}")
    if rng.random() >= 0.2:
        return
    d.narrowed = []
    for name, sem, _, fields, _, _ in instrs:
        for field, spec in fields:
            if not field.endswith("_row") or rng.random() >= 0.3:
                continue
            rows = d.acc_rows if field in ACCUMULATOR_ROW_FIELDS or sem in ACCUMULATOR_ONLY else d.spad_rows
            spec["bits"] = max(1, bits_for(rows - 1) - rng.randint(1, 3))
            d.narrowed.append(f"{name}.{field}")


# tiny.yaml's style of mnemonics: the compiler and simulator find instructions by semantics.
SHORT_NAMES = {"dma.load": "ld", "dma.load2d": "ld2", "dma.load.acc": "ld.acc", "dma.store": "st", "dma.store.acc": "st.acc",
               "preload": "wload", "gemm": "mm", "gemm.stream": "mms", "requant": "rq", "widen": "wd", "vadd": "add",
               "vmul": "mul", "vmax": "max", "vlut": "lut", "vreduce": "red", "finish": "halt"}


def place_fields(rng, fields, first):
    """Each field's lsb: packed from bit `first` in list order, or (one instruction in three) with
    gaps of up to 3 bits, written out. Returns [(name, spec, lsb or None)] and the end bit."""
    gaps = rng.random() < 1 / 3
    placed, at = [], first
    for name, spec in fields:
        at += rng.randint(0, 3) if gaps else 0
        placed.append((name, spec, at if gaps else None))
        at += spec["bits"]
    return placed, at


def field_text(name, spec, lsb):
    parts = [f"name: {name}", f"bits: {spec['bits']}"] + ([f"lsb: {lsb}"] if lsb is not None else [])
    if spec.get("signed"):
        parts.append("signed: true")
    if "max" in spec:
        parts.append(f"max: {spec['max']}")
    return "{" + ", ".join(parts) + "}"


def config_text(seed):
    d = Draw(seed)
    rng = d.rng
    instrs = instructions(d)
    narrow_row_fields(d, instrs)
    opcode_bits = rng.randint(bits_for(len(instrs) - 1), 8)
    opcodes = rng.sample(range(1 << opcode_bits), len(instrs))
    layouts = [place_fields(rng, fields, opcode_bits + 4) for _, _, _, fields, _, _ in instrs]
    widest = max(end for _, end in layouts)
    width = min(512, 32 * (-(-widest // 32) + rng.randint(0, 1)))
    dataflow = "output_stationary" if d.output_stationary else "weight_stationary"
    lines = [
        f"# Random legal config, seed {seed} (tests/randcfg/gen_config.py).",
        f"name: rand{seed}",
        f"description: \"{d.rows}x{d.cols} {dataflow}{', int4 weights' if d.int4 else ''}{f', int{d.acc_bits} accumulators' if d.acc_bits < 32 else ''}, without: {', '.join(sorted(d.dropped)) or 'none'}" + (f", narrow: {', '.join(d.narrowed)}" if d.narrowed else "") + "\"",
        f"clock_mhz: {rng.choice([200, 500, 800, 1000, 1200])}",
        "types: {activation: int8, weight: " + ("[int4, int8]" if d.int4 else "int8") + ", accumulator: int" + str(d.acc_bits) + "}",
        f"array: {{rows: {d.rows}, cols: {d.cols}, dataflow: {dataflow}, weight_buffers: {d.weight_buffers}}}",
        "memories:",
        f"  dram:        {{size: {size_text(d.dram_size)}, bytes_per_cycle: {rng.choice([1, 2, 4, 8, 16, 32, 64, 128])}, latency: {rng.randint(0, 300)}}}",
        f"  scratchpad:  {{size: {size_text(d.spad_rows * d.row_bytes)}, banks: {d.spad_banks}, conflict_cycles: {rng.randint(0, 3)}}}",
        f"  accumulator: {{size: {size_text(d.acc_rows * d.cols * d.acc_bits // 8)}, banks: {d.acc_banks}, conflict_cycles: {rng.randint(0, 3)}}}",
        f"dma: {{burst_bytes: {rng.choice([4, 16, 64, 256, 1000])}, outstanding: {d.outstanding}, broadcast: {str(d.broadcast).lower()}}}",
        f"vector: {{latency: {rng.randint(0, 8)}}}",
        "queues: {" + ", ".join(f"{q}: {rng.choice([1, 2, 3, 4, 8, 16, 32])}" for q in ("load", "compute", "store")) + "}",
        f"host: {{elements_per_cycle: {rng.choice([1, 8, 64])}, macs_per_cycle: {rng.choice([1, 32, 256])}, op_cycles: {rng.randint(0, 2000)}}}",
        f"encoding: {{width: {width}, opcode_bits: {opcode_bits}}}",
        "instructions:",
    ]
    for (name, sem, unit, fields, cycles, issue), opcode, (placed, _) in zip(instrs, opcodes, layouts):
        name = SHORT_NAMES.get(name, name) if d.short_names else name
        lines += [f"  - name: {name}", f"    opcode: {opcode:#x}", f"    unit: {unit}", f"    semantics: {sem}"]
        lines.append("    fields: []" if not fields else "    fields:")
        lines += [f"      - {field_text(*f)}" for f in placed]
        timing = f'cycles: "{cycles}"' + (f', issue: "{issue}"' if issue else "")
        lines.append(f"    timing: {{{timing}}}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seed", type=int)
    ap.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = ap.parse_args()
    text = config_text(args.seed)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
