#!/usr/bin/env python3
"""The compiler's cost model predicts the simulator: on an exported model, at least MIN_WITHIN of
the NPU layers are predicted within 5% of their simulated cycles and the total within 5%.
Reads the per-layer stats (`systole run --stats`, docs/stats.md).
   prediction_accuracy.py SYSTOLE MODEL.onnx CONFIG MIN_WITHIN"""
import json
import subprocess
import sys
import tempfile

systole, model, config, min_within = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
with tempfile.NamedTemporaryFile(suffix=".json") as stats:
    subprocess.run([systole, "run", model, "--isa", config, "--timing-only", "-q", "--stats", stats.name],
                   check=True, stdout=subprocess.DEVNULL)
    layers = [l for l in json.load(open(stats.name))["layers"] if l["runs_on"] == "npu" and l["npu_cycles"] > 0]
within = [l for l in layers if abs(l["predicted_cycles"] - l["npu_cycles"]) <= 0.05 * l["npu_cycles"]]
predicted, simulated = sum(l["predicted_cycles"] for l in layers), sum(l["npu_cycles"] for l in layers)
print(f"{model} on {config}: {len(within)}/{len(layers)} layers within 5%, total predicted {predicted} vs simulated {simulated}")
for l in sorted(layers, key=lambda l: -abs(l["predicted_cycles"] - l["npu_cycles"]) / l["npu_cycles"])[:5]:
    print(f"  {l['name']}: predicted {l['predicted_cycles']}, simulated {l['npu_cycles']}")
ok = len(within) >= min_within * len(layers) and abs(predicted - simulated) <= 0.05 * simulated
sys.exit(0 if ok else 1)
