#!/usr/bin/env bash
# Issue 34's depthwise table: bench/sweeps/depthwise.yaml (default with and without its depthwise
# mode and its vector MACs, at 16 x 16 and 32 x 32, on mobilenet_v2, mobilenet_v3_large, efficientnet_b0 and resnet18,
# every run checked bit for bit), then the same models on `large` (32 x 32, 1 MiB scratchpad, no
# mode). One Markdown row per run: NPU cycles, their ratio to the summed roofline bound, energy, area.
#   bash bench/depthwise.sh        (needs the exported models: cmake --build --preset default --target models)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/default}
OUT=${OUT:-$BUILD/depthwise}
rm -rf "$OUT"
mkdir -p "$OUT/large"
"$BUILD/tools/systole" sweep bench/sweeps/depthwise.yaml -o "$OUT/sweep" -q
for m in mobilenet_v2 mobilenet_v3_large efficientnet_b0 resnet18; do
  "$BUILD/tools/systole" run "$BUILD/models/$m.onnx" --isa large --check --stats "$OUT/large/$m.json" > /dev/null
done
python3 - "$OUT" <<'PY'
import csv, glob, json, os, sys
out = sys.argv[1]
rows = []
for r in csv.DictReader(open(f"{out}/sweep/results.csv")):
    # the grid's linked values joined by "x": 256x~ (mode), 0x~ (vmac), 256 (both), 0x~x~ (neither)
    mode = r["depthwise"].startswith("256")
    vmac = r["depthwise"].count("~") == (0 if mode else 1)
    design = ("default" if r["array"] == "16x16" else "default at 32x32") + " " + \
        {(True, False): "+ depthwise mode", (False, True): "+ vector MACs", (True, True): "+ both", (False, False): "without either"}[(mode, vmac)]
    rows.append((r["model"], design, int(r["npu_cycles"]), float(r["cycles_per_bound"]), float(r["energy_pj"]), float(r["area_mm2"])))
for path in sorted(glob.glob(f"{out}/large/*.json")):
    d = json.load(open(path))  # docs/stats.md
    rows.append((os.path.basename(path)[:-5], "large", d["cycles"], d["totals"]["roofline"]["cycles_per_bound"],
                 d["energy"]["total_pj"], d["area"]["total_mm2"]))
print("| model | design | NPU cycles | cycles / roofline bound | energy (uJ) | area (mm^2) |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for model in dict.fromkeys(r[0] for r in rows):
    for m, design, cycles, ratio, pj, mm2 in (r for r in rows if r[0] == model):
        print(f"| {m} | {design} | {cycles:,} | {ratio:.2f} | {pj / 1e6:.0f} | {mm2:.3f} |")
PY
