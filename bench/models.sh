#!/usr/bin/env bash
# Compiles and simulates the exported models on a config and prints one Markdown row per model:
# cycles, MAC utilization (model MACs / (cycles x PEs)), the summed per-layer roofline bound and
# the ratio to it, compile and simulation wall time, and peak memory.
#   bench/models.sh [CONFIG] [MODEL...]      (models from build/default/models)
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-default}
shift || true
MODELS=${*:-"mlp squeezenet1_1 resnet18 resnet18_b4 mobilenet_v2 mobilenet_v3_large efficientnet_b0 resnet50 transformer"}
SYSTOLE=build/default/tools/systole
echo "| model | cycles | MAC util | roofline bound | cycles / bound | compile s | simulate s | peak RSS MB |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for m in $MODELS; do
  out=$(mktemp) stats=$(mktemp)
  # --no-cache: the compile time and peak memory are measured, so every run compiles.
  if /usr/bin/time -v "$SYSTOLE" run "build/default/models/$m.onnx" --isa "$CONFIG" --no-cache --stats "$stats" > "$out" 2>&1; then
    /usr/bin/python3 - "$out" "$stats" "$m" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[2]))  # docs/stats.md
cycles, bound = doc["cycles"], doc["totals"]["roofline"]["bound_cycles"]
npu_macs = sum(l["macs"] for l in doc["layers"] if l["runs_on"] == "npu")
util = 100 * npu_macs / (cycles * doc["array_pes"])
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(sys.argv[1]).read()).group(1)) / 1024
wall = doc["wall_seconds"]
print(f"| {sys.argv[3]} | {cycles} | {util:.1f}% | {bound} | {cycles / bound:.2f} | {wall['compile']:.1f} | {wall['run']:.1f} | {rss:.0f} |")
PY
  else
    echo "| $m | $(grep -m1 'error' "$out" | sed 's/|/\\|/g' | cut -c1-150) | | | | | | |"
  fi
  rm -f "$out" "$stats"
done
