#!/usr/bin/env python3
"""ctest: the known answers of tests/golden/CASE (made by make_golden.py) against the NPU.

    check_golden.py SYSTOLE CASE ISA

Compiles the case's model for ISA with `systole compile`, checks that its quantization parameters
are the ones the goldens were computed with, runs every golden input through the compiled model
with `systole run MODEL.sbin` (the NPU programs on the simulator, the host steps on the host) and
compares each output's int8 values with the golden ones, bit for bit: the float output must be
exactly s * (q - z) for the golden q. Exit 1 on any difference."""
import json
import os
import sys
import tempfile

import numpy as np

import golden


def run_npu(systole, sbin, input_name, row, tmp):
    """One input through the compiled model: its float outputs, by name."""
    path, out_dir = os.path.join(tmp, "input.npy"), os.path.join(tmp, "out")
    np.save(path, row)
    golden.systole_command([systole, "run", sbin, "--input", f"{input_name}={path}", "--output-dir", out_dir])
    return lambda name: np.load(os.path.join(out_dir, name + ".npy"))


def to_int8(y, scale, zero_point):
    """The int8 q with y = s * (q - z) exactly as DequantizeLinear computes it, and where one exists."""
    q = np.rint(y / scale).astype(np.int64) + zero_point
    exact = scale * (q - zero_point).astype(np.float32) == y
    return np.clip(q, -128, 127), exact & (q >= -128) & (q <= 127)


def compare(k, out, y, expected):
    """Differences of input k's output `out` (params.json's entry) from its golden int8 values."""
    scale = np.array([out["scale_bits"]], np.uint32).view(np.float32)[0]
    q, exact = to_int8(y, scale, out["zero_point"])
    lines = []
    if not exact.all():
        lines.append(f"input {k}, {out['name']}: {np.sum(~exact)} values are not s * (q - z) for an int8 q "
                     f"with the goldens' s = {scale!r}, z = {out['zero_point']}")
    wrong = np.flatnonzero(q.reshape(-1) != expected.reshape(-1))
    if wrong.size:
        i = wrong[0]
        lines.append(f"input {k}, {out['name']}: {wrong.size} of {q.size} int8 values differ; first at flat index {i}: "
                     f"NPU {q.reshape(-1)[i]}, golden {expected.reshape(-1)[i]}")
    return lines


def main(systole, case, isa):
    directory = golden.case_dir(case)
    with open(os.path.join(directory, "params.json")) as f:
        params = json.load(f)
    inputs = np.load(os.path.join(directory, "inputs.npy"))
    expected = {out["name"]: np.load(os.path.join(directory, golden.output_file(out["name"]))) for out in params["outputs"]}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        sbin = os.path.join(tmp, "model.sbin")
        g = golden.compile_case(systole, case, isa, sbin)
        changed = golden.diff_fingerprints(params["quantization"], golden.fingerprint(g))
        if changed:
            failures.append(f"{len(changed)} quantization parameters differ from the goldens' (if intended, "
                            "regenerate: tests/golden/make_golden.py):\n" + "\n".join(changed[:10]))
        for k, row in enumerate(inputs):
            outputs = run_npu(systole, sbin, params["input"], row, tmp)
            for out in params["outputs"]:
                failures += compare(k, out, outputs(out["name"]), expected[out["name"]][k])
    for line in failures:
        print(f"{case} on {isa}: {line}")
    if failures:
        return 1
    print(f"{case} on {isa}: {len(inputs)} inputs, every int8 output equal to the golden one")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
