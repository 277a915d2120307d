#!/usr/bin/env python3
"""Systole against SCALE-Sim v2's closed forms, like for like: the matrix layers of a model
(Conv, Gemm, MatMul) simulated on a copy of a config with the overlap features off and ideal
memory (no pipelined compute `issue`, one weight set, one DMA in flight, no broadcast, no 2-D loads, DRAM
latency 0 and 1024 bytes per cycle), against SCALE-Sim's per-fold forms (Sr x Sc array, T rows
streamed): weight-stationary 2 Sr + Sc + T - 2 per fold with T the output pixels, folds =
ceil(K / Sr) x ceil(N / Sc) (K = the reduction kh kw C/group, N the output channels);
output-stationary T + Sr + Sc - 2 per fold with T = K, folds = ceil(P / Sr) x ceil(N / Sc)
(P the output pixels). Grouped convolutions are costed per group, as SCALE-Sim runs them as
separate layers.
With --onchip BYTES the scratchpad and the accumulator are that large, so that (up to its size) a
layer's output tile is one chunk: then a fold is one weight tile and every output pixel streamed
through it, paying the array's fill and drain once, as SCALE-Sim counts it (whole-layer folds).
   bench/scalesim_compare.py MODEL.onnx CONFIG.yaml [SIZE] [--onchip BYTES]
   (SIZE: array rows = cols, default the config's; BYTES as the YAML writes sizes, e.g. 4MiB)
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import onnx
import yaml
from onnx import numpy_helper, shape_inference

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTOLE = os.path.join(ROOT, "build/default/tools/systole")


def ideal_config(path, size, onchip):
    cfg = yaml.safe_load(open(path))
    cfg["name"] = "scalesim_" + cfg["name"]
    if size:
        cfg["array"]["rows"] = cfg["array"]["cols"] = size
    if onchip:
        for memory in ("scratchpad", "accumulator"):
            cfg["memories"][memory]["size"] = onchip
    cfg["array"]["weight_buffers"] = 1
    cfg["memories"]["dram"].update({"latency": 0, "bytes_per_cycle": 1024})
    cfg["dma"].pop("outstanding", None)
    cfg["dma"].pop("broadcast", None)
    cfg["instructions"] = [ins for ins in cfg["instructions"] if ins["semantics"] != "dma_load_2d"]
    for ins in cfg["instructions"]:
        ins["timing"].pop("issue", None)
    return cfg


def layer_shapes(model_path):
    """Per node name: (op, K per group, N per group, groups, output pixels)."""
    m = shape_inference.infer_shapes(onnx.load(model_path))
    shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim] for vi in
              list(m.graph.value_info) + list(m.graph.output) + list(m.graph.input)}
    inits = {t.name: numpy_helper.to_array(t).shape for t in m.graph.initializer}
    out = {}
    for n in m.graph.node:
        if n.op_type == "Conv" and n.input[1] in inits:
            oc, icg, kh, kw = inits[n.input[1]]
            g = next((a.i for a in n.attribute if a.name == "group"), 1)
            y = shapes.get(n.output[0])
            if not y or len(y) != 4:
                continue
            out[n.name] = ("Conv", icg * kh * kw, oc // g, g, y[0] * y[2] * y[3])
        elif n.op_type in ("Gemm", "MatMul") and n.input[1] in inits:
            k, nn = inits[n.input[1]]
            if n.op_type == "Gemm" and any(a.name == "transB" and a.i for a in n.attribute):
                k, nn = nn, k
            y = shapes.get(n.output[0])
            rows = math.prod(y[:-1]) if y else 1
            out[n.name] = (n.op_type, k, nn, 1, rows)
    return out


def scalesim(kind, K, N, groups, P, S):
    if kind == "ws":
        return groups * (math.ceil(K / S) * math.ceil(N / S) * (2 * S + S + P - 2) - 1)
    return groups * (math.ceil(P / S) * math.ceil(N / S) * (K + S + S - 2) - 1)


def main():
    args = sys.argv[1:]
    onchip = None
    if "--onchip" in args:
        i = args.index("--onchip")
        onchip = args[i + 1]
        del args[i:i + 2]
    model, config = args[0], args[1]
    size = int(args[2]) if len(args) > 2 else 0
    cfg = ideal_config(config, size, onchip)
    S = cfg["array"]["rows"]
    kind = "os" if cfg["array"]["dataflow"] == "output_stationary" else "ws"
    with tempfile.TemporaryDirectory() as tmp:
        cfg_path = os.path.join(tmp, cfg["name"] + ".yaml")
        yaml.safe_dump(cfg, open(cfg_path, "w"), sort_keys=False)
        stats = os.path.join(tmp, "stats.json")
        subprocess.run([SYSTOLE, "run", model, "--isa", cfg_path, "--timing-only", "-q", "--stats", stats],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        layers = json.load(open(stats))["layers"]
    shapes = layer_shapes(model)
    rows, total_sys, total_ss, within = [], 0, 0, 0
    for l in layers:
        node = (l.get("onnx_nodes") or [l["name"]])[0]
        if l["runs_on"] != "npu" or node not in shapes:
            continue
        ss = scalesim(kind, *shapes[node][1:], S)
        rows.append((l["name"], l["npu_cycles"], ss))
        total_sys += l["npu_cycles"]
        total_ss += ss
        within += abs(l["npu_cycles"] - ss) <= 0.05 * ss
    print(f"{os.path.basename(model)} on {cfg['name']} ({S}x{S} {kind.upper()}, features off, ideal memory): "
          f"{'on-chip ' + onchip + ' each, ' if onchip else ''}{within}/{len(rows)} matrix layers within 5% of SCALE-Sim, total {total_sys} vs {total_ss} = {total_sys / total_ss:.3f}x")
    for name, sysc, ss in rows:
        print(f"  {name[-40:]:40s} {sysc:10d} {ss:10d} {sysc / ss:6.3f}x")


if __name__ == "__main__":
    main()
