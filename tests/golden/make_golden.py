#!/usr/bin/env python3
"""Known answers for the int8 path, made once by hand (not in CI) and checked in:

    /usr/bin/python3 tests/golden/make_golden.py build/default/tools/systole [CASE ...]

For each case (golden.CASES) it compiles the float model with `systole compile` (a product output:
the .sbin holds the quantized graph, docs/sbin-format.md), reads the quantization parameters and
int8 weights from it with sbin_model.py, runs fixed inputs through the integer contract of
docs/quantized-ops.md as reimplemented in int8_ops.py, and writes into tests/golden/CASE/:
inputs.npy (float32, one model input per row), output_NAME.npy per model output (the int8
values its DequantizeLinear reads, one row per input) and params.json (the graph's quantization parameters,
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
import int8_ops


def fixed_inputs(name, shape):
    """The model's bundled demo input when it has one, then seeded samples of the calibration data's
    distribution at 1x and 2x, the latter saturating the input quantization."""
    rng = np.random.default_rng(17)
    case = golden.CASES[name]
    draw = {"normal": rng.standard_normal, "uniform": lambda s: rng.uniform(-1, 1, s)}[case["inputs"]]
    rows = []
    demo = os.path.join(golden.ROOT, os.path.splitext(case["model"])[0] + ".input.npy")
    if os.path.exists(demo):
        rows.append(np.load(demo).astype(np.float32).reshape(shape))
    rows += [draw(shape).astype(np.float32) * scale for scale in (1.0, 1.0, 2.0)]
    return np.stack(rows)


def make(systole, name):
    with tempfile.TemporaryDirectory() as tmp:
        g = golden.compile_case(systole, name, "default", os.path.join(tmp, "model.sbin"))
    assert len(g.inputs) == 1, "one input per case"
    x = g.values[g.inputs[0]]
    inputs = fixed_inputs(name, x.shape)
    results = [golden_model.run(g, {x.name: row}) for row in inputs]
    directory = golden.case_dir(name)
    os.makedirs(directory, exist_ok=True)
    np.save(os.path.join(directory, "inputs.npy"), inputs)
    outputs = []
    for out_name, qid in golden.int8_outputs(g):
        q = g.values[qid]
        values = np.stack([r[qid] for r in results]).astype(np.int8)
        np.save(os.path.join(directory, golden.output_file(out_name)), values)
        outputs.append(dict(name=out_name, scale_bits=int(q.scale.view(np.uint32)[0]), zero_point=int(q.zero_point[0])))
        print(f"{name}/{out_name}: {len(inputs)} inputs x {values.shape[1:]} int8, {np.unique(values).size} distinct values, "
              f"{np.mean((values == -128) | (values == 127)):.0%} at -128 or 127")
    with open(os.path.join(directory, "params.json"), "w") as f:
        json.dump(dict(input=x.name, outputs=outputs, quantization=golden.fingerprint(g)), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    int8_ops.self_check()
    for case in sys.argv[2:] or golden.CASES:
        make(sys.argv[1], case)
