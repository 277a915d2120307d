"""What make_golden.py (run by hand) and check_golden.py (ctest) share: the cases, how a case's
model is compiled, and the quantization parameters that the goldens were computed with."""
import hashlib
import os
import subprocess
import sys

import numpy as np

import sbin_model

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name -> the float model, its calibration samples (None: systole's seeded synthetic inputs, uniform
# in [-1, 1)) and the distribution the golden inputs are drawn from (the calibration data's)
CASES = {
    "tiny_cnn": dict(model="tests/models/bundled/tiny_cnn.onnx", calib="tests/models/bundled/tiny_cnn.calib", inputs="normal"),
    "small_net": dict(model="tests/golden/small_net.onnx", calib=None, inputs="uniform"),
}


def case_dir(name):
    return os.path.join(HERE, name)


def systole_command(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({r.returncode}):\n{r.stderr[-3000:]}")


def compile_case(systole, name, isa, out_sbin):
    case = CASES[name]
    calib = ["--calib", os.path.join(ROOT, case["calib"])] if case["calib"] else []
    systole_command([systole, "compile", os.path.join(ROOT, case["model"]), *calib, "--isa", isa, "-q", "-o", out_sbin])
    return sbin_model.read_quantized_graph(out_sbin)


def output_file(name):
    return "output_" + "".join(c if c.isalnum() else "_" for c in name) + ".npy"


def int8_outputs(g):
    """(graph output name, id of the int8 value its DequantizeLinear reads) for every graph output."""
    producer = {node.outputs[0]: node for node in g.nodes}
    out = []
    for vid in g.outputs:
        node = producer[vid]
        assert node.op == "DequantizeLinear", f"output '{g.values[vid].name}' is not dequantized from int8"
        out.append((g.values[vid].name, node.inputs[0]))
    return out


def fingerprint(g):
    """Every quantization parameter of the graph, by value or node name: scales (as float32 bit
    patterns, so equality is exact), zero points, the requantization attributes, a hash of each
    constant's bytes. The goldens hold only for these parameters."""
    out = {}
    for v in g.values:
        entry = {}
        if v.scale is not None:
            entry["scale_bits"] = [int(b) for b in v.scale.view(np.uint32)]
            entry["zero_point"] = [int(z) for z in v.zero_point]
        if v.is_constant:
            entry["sha256"] = hashlib.sha256(v.data.tobytes()).hexdigest()[:16]
        if entry:
            out["value " + v.name] = entry
    for node in g.nodes:
        attrs = {k: a for k, a in node.attrs.items()
                 if k in ("multiplier", "shift", "act_min", "act_max", "a_multiplier", "b_multiplier")}
        if attrs:
            out[f"node {node.name} ({node.op})"] = attrs
    return out


def diff_fingerprints(expected, actual):
    lines = []
    for key in sorted(set(expected) | set(actual)):
        if expected.get(key) != actual.get(key):
            lines.append(f"  {key}: goldens made with {expected.get(key)}, now {actual.get(key)}")
    return lines
