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
  out=$(mktemp)
  if /usr/bin/time -v "$SYSTOLE" run "build/default/models/$m.onnx" --isa "$CONFIG" --layers > "$out" 2>&1; then
    /usr/bin/python3 - "$out" "$m" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
cycles = int(re.search(r"^cycles: (\d+)", text, re.M).group(1))
total = re.search(r"^total\s+\d+\s+(\d+)\s+(\d+)\s+\(roofline bound (\d+)\)", text, re.M)
comp = float(re.search(r"compiled in ([\d.e-]+) s", text).group(1))
run = float(re.search(r"run in ([\d.e-]+) s", text).group(1))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024
bound = int(total.group(3))
util = re.search(r"^MAC utilization: ([\d.]+)%", text, re.M).group(1)
print(f"| {sys.argv[2]} | {cycles} | {util}% | {bound} | {cycles / bound:.2f} | {comp:.1f} | {run:.1f} | {rss:.0f} |")
PY
  else
    echo "| $m | $(grep -m1 'error' "$out" | sed 's/|/\\|/g' | cut -c1-150) | | | | | | |"
  fi
  rm -f "$out"
done
