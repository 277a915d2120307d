#!/usr/bin/env bash
# Issue 32's transformer benchmarks: compiles and simulates each model on a config (calibrated on
# its N(0, 1) samples, checked bit for bit against the reference interpreter) and prints one
# Markdown row per model: NPU programs, host operators, the share of MACs on the NPU, NPU and
# host cycles, the summed per-layer roofline bound and the ratio to it, cosine against the float
# model. Then, for the encoder_sNNN models, each attention layer's cycles and on-chip traffic
# (the sweep of sequence length: the quadratic terms).
#   bench/transformers.sh [CONFIG] [DIR]   (DIR: bench/export_transformers.py --out DIR; build/transformers)
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-default}
DIR=${2:-build/transformers}
SYSTOLE=build/default/tools/systole
/usr/bin/python3 bench/export_transformers.py --out "$DIR" >&2
echo "| model | programs | host ops | MACs on NPU | NPU cycles | host cycles | total cycles | roofline bound | NPU / bound | cosine |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for m in encoder decoder vit encoder_s64 encoder_s128 encoder_s256 encoder_s512 encoder_s1024; do
  out=$(mktemp) stats=$(mktemp)
  if "$SYSTOLE" run "$DIR/$m.onnx" --isa "$CONFIG" --calib "$DIR/$m.calib" --check --stats "$stats" > "$out" 2>&1; then
    /usr/bin/python3 - "$out" "$stats" "$m" <<'PY'
import json, re, sys
text, doc, name = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]  # docs/stats.md
npu = doc["cycles"]
bound = doc["totals"]["roofline"]["bound_cycles"]
total = int(re.search(r"total cycles: (\d+)", text).group(1))
programs = re.search(r"(\d+) NPU program", text).group(1)
host_ops = re.search(r"host operators: (\d+)", text).group(1)
npu_macs = sum(l["macs"] for l in doc["layers"] if l["runs_on"] == "npu")
all_macs = sum(l["macs"] for l in doc["layers"])
cosines = [float(c) for c in re.findall(r"cosine ([0-9.]+)", text)]
assert "check: every NPU output equals the reference interpreter bit for bit" in text
print(f"| {name} | {programs} | {host_ops} | {100 * npu_macs / max(all_macs, 1):.1f}% | {npu} | {total - npu} | {total} "
      f"| {bound} | {npu / bound:.2f} | {min(cosines):.5f} |")
PY
  else
    echo "| $m | $(grep -m1 'error' "$out" | sed 's/|/\\|/g' | cut -c1-150) | | | | | | | | |"
  fi
  rm -f "$out" "$stats"
done
echo
echo "| sequence | Q K^T cycles | Softmax cycles | P V cycles | attention share | other layers' cycles | attention SRAM bytes |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for seq in 64 128 256 512 1024; do
  stats=$(mktemp)
  "$SYSTOLE" run "$DIR/encoder_s$seq.onnx" --isa "$CONFIG" --calib "$DIR/encoder_s$seq.calib" --stats "$stats" > /dev/null 2>&1
  /usr/bin/python3 - "$stats" "$seq" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
parts = {"qk": 0, "softmax": 0, "pv": 0, "other": 0}
sram = 0
for l in doc["layers"]:
    kind = ("qk" if re.search(r"self_attn/MatMul_1$", l["name"]) else "pv" if re.search(r"self_attn/MatMul_2$", l["name"])
            else "softmax" if l["op"] == "Softmax" else "other")
    parts[kind] += l["cycles"]
    if kind != "other" and l["runs_on"] == "npu":
        sram += sum(v for k, v in l["sram"].items() if "_bytes_" in k)
att = parts["qk"] + parts["softmax"] + parts["pv"]
print(f"| {sys.argv[2]} | {parts['qk']} | {parts['softmax']} | {parts['pv']} | {100 * att / (att + parts['other']):.1f}% "
      f"| {parts['other']} | {sram} |")
PY
  rm -f "$stats"
done
