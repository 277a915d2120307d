#!/usr/bin/env bash
# Whole models on the NPU: for each ONNX model given, one Markdown row: NPU programs, host
# operators by type, the share of MACs on the NPU, and NPU / host / transfer / total cycles (the
# config's host model). Timing-only runs (no data), so large models take seconds.
#   bench/model_suite.sh CONFIG MODEL.onnx...
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=$1
shift
SYSTOLE=build/default/tools/systole
echo "| model | NPU programs | host operators | MACs on the NPU | NPU cycles | host cycles | transfer cycles | total cycles |"
echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
for m in "$@"; do
  out=$(mktemp)
  if "$SYSTOLE" run "$m" --isa "$CONFIG" --timing-only > "$out" 2>&1; then
    /usr/bin/python3 - "$out" "$m" <<'PY'
import re, sys, os
text = open(sys.argv[1]).read()
name = os.path.basename(sys.argv[2]).replace(".onnx", "")
if name == "model":
    name = os.path.basename(os.path.dirname(sys.argv[2]))
programs = re.search(r"(\d+) NPU program\(s\)", text).group(1)
total = re.search(r"total cycles: (\d+) = NPU (\d+) \+ host (\d+) \(\d+ operators, (\d+) MACs.*transfers (\d+)", text)
npu_macs = int(re.search(r"model MACs (\d+)", text).group(1))
host_macs = int(total.group(4))
host = re.search(r"^host operators: \d+ \((.*)\)", text, re.M)
share = 100.0 * npu_macs / max(1, npu_macs + host_macs)
print(f"| {name} | {programs} | {host.group(1) if host else '-'} | {share:.2f}% | {total.group(2)} | {total.group(3)} | {total.group(5)} | {total.group(1)} |")
PY
  else
    echo "| $(basename "$m" .onnx) | $(grep -m1 'error' "$out" | sed 's/|/\\|/g; s/^.*error: //' | cut -c1-120) | | | | | | |"
  fi
  rm -f "$out"
done
