#!/usr/bin/env python3
"""Known answers for the int8 path, made once by hand (not in CI) and checked in:

    /usr/bin/python3 tests/golden/make_golden.py build/default/tools/systole [CASE ...]

For each case (golden.CASES) it compiles the float model with `systole compile` (a product output:
the .sbin holds the quantized graph, docs/sbin-format.md), reads the quantization parameters and
int8 weights from it with sbin_model.py, runs fixed inputs through the integer contract of
docs/quantized-ops.md as reimplemented in int8_ops.py, and writes into tests/golden/CASE/:
inputs.npy (float32, one model input per row), outputs.npy (the int8 values each output's
DequantizeLinear reads, one row per input) and params.json (the graph's quantization parameters,
which the goldens hold for). Nothing comes from the reference interpreter or the simulator.
Regenerate after an intended change of quantization (calibration, parameter choice) and review
the diff of params.json; check_golden.py says when that is needed."""
import json
import os
import sys
import tempfile

import numpy as np

import golden
import golden_model


def fixed_inputs(name, shape):
    """The model's bundled demo input when it has one, then seeded normal samples (the calibration
    data's distribution) at 1x and 2x, the latter saturating the input quantization."""
    rng = np.random.default_rng(17)
    rows = []
    demo = os.path.join(golden.ROOT, os.path.splitext(golden.CASES[name]["model"])[0] + ".input.npy")
    if os.path.exists(demo):
        rows.append(np.load(demo).astype(np.float32).reshape(shape))
    rows += [rng.standard_normal(shape).astype(np.float32) * scale for scale in (1.0, 1.0, 2.0)]
    return np.stack(rows)


def make(systole, name):
    with tempfile.TemporaryDirectory() as tmp:
        g = golden.compile_case(systole, name, "default", os.path.join(tmp, "model.sbin"))
    assert len(g.inputs) == 1 and len(g.outputs) == 1, "one input and one output per case"
    x = g.values[g.inputs[0]]
    out_name, qid = golden.int8_outputs(g)[0]
    q = g.values[qid]
    inputs = fixed_inputs(name, x.shape)
    outputs = np.stack([golden_model.run(g, {x.name: row})[qid] for row in inputs]).astype(np.int8)
    directory = golden.case_dir(name)
    os.makedirs(directory, exist_ok=True)
    np.save(os.path.join(directory, "inputs.npy"), inputs)
    np.save(os.path.join(directory, "outputs.npy"), outputs)
    params = dict(input=x.name, output=out_name, output_scale_bits=int(q.scale.view(np.uint32)[0]),
                  output_zero_point=int(q.zero_point[0]), quantization=golden.fingerprint(g))
    with open(os.path.join(directory, "params.json"), "w") as f:
        json.dump(params, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{name}: {len(inputs)} inputs, outputs {outputs.shape[1:]} int8, "
          f"{np.unique(outputs).size} distinct values, {np.mean((outputs == -128) | (outputs == 127)):.0%} saturated")


if __name__ == "__main__":
    for case in sys.argv[2:] or golden.CASES:
        make(sys.argv[1], case)
