#!/usr/bin/env bash
# Issue 31's wild-model bench: every model of models.tsv (bench/wild/fetch.sh fetches them) run by
# `systole run` on default with a realistic input (make_inputs.py: rendered text, captchas, symbols,
# photos, synthetic speech; oww_features.js: openWakeWord's features of it) and calibration drawn
# the same way, checked bit for bit against the reference interpreter (--check), and its
# outputs compared with onnxruntime's (the independent float oracle, ort_reference.js). Prints a
# Markdown table: NPU programs, host operators, cosine and SQNR against onnxruntime, argmax agreement;
# a model that does not run gets its row with the error it stopped at.
#   bash bench/wild/run.sh        (BUILD=build/default, WILD=$BUILD/wild)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/default}
WILD=${WILD:-$BUILD/wild}
S=$BUILD/tools/systole
bash bench/wild/fetch.sh > /dev/null
echo "| model | input | NPU programs | host operators | check | cosine vs onnxruntime | SQNR vs onnxruntime | argmax agrees |"
echo "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |"
# The measured input and the calibration samples of one model: rendered by make_inputs.py, or for
# the wake-word heads, synthetic speech through openWakeWord's own melspectrogram and embedding models.
make_inputs() {
  local name=$1 kind=$2 shape=$3
  if [ "$kind" != oww_features ]; then
    /usr/bin/python3 bench/wild/make_inputs.py "$kind" "$shape" "$WILD" "$name"
    return
  fi
  local windows
  windows=$(echo "$shape" | cut -dx -f2)
  /usr/bin/python3 bench/wild/make_inputs.py speech 1x64000 "$WILD" "$name.speech"
  mkdir -p "$WILD/$name.calib"
  for f in "$WILD/$name.speech.input.npy" "$WILD/$name.speech.calib"/*.npy; do
    out=$WILD/$name.calib/$(basename "$f")
    [ "$f" = "$WILD/$name.speech.input.npy" ] && out=$WILD/$name.input.npy
    NODE_PATH=$WILD/ort/node_modules node bench/wild/oww_features.js "$WILD/oww_melspectrogram.onnx" \
      "$WILD/oww_embedding.onnx" "$f" "$windows" "$out"
  done
}

grep -v '^#' bench/wild/models.tsv | while IFS=$'\t' read -r name _ _ binding kind; do
  input=${binding%%=*} shape=${binding#*=}
  make_inputs "$name" "$kind" "$shape"
  rm -rf "$WILD/$name.ort" "$WILD/$name.npu"
  status=bit-exact
  "$S" run "$WILD/$name.onnx" --shape "$binding" --input "$input=$WILD/$name.input.npy" --calib "$WILD/$name.calib" \
    --check --output-dir "$WILD/$name.npu" > "$WILD/$name.log" 2>&1 || status="FAILED (exit $?)"
  if [ ! -d "$WILD/$name.npu" ]; then  # it did not run: say why
    reason=$(grep -m1 'error:' "$WILD/$name.log" | sed 's/.*error: //; s/|/\\|/g')
    echo "| $name | ${kind//_/ } | - | - | $status: $reason | - | - | - |"
    continue
  fi
  NODE_PATH=$WILD/ort/node_modules node bench/wild/ort_reference.js "$WILD/$name.onnx" "$input" \
    "$WILD/$name.input.npy" "$WILD/$name.ort" 2> /dev/null
  summary=$(sed -n 's/.*: \([0-9]*\) NPU program(s), [0-9]* instructions, [0-9]* NPU layers, \([0-9]*\) host operators.*/\1 | \2/p' "$WILD/$name.log")
  /usr/bin/python3 - "$name" "$kind" "${summary:-- | -}" "$status" "$WILD/$name.ort" "$WILD/$name.npu" <<'PY'
import glob, os, sys
import numpy as np
name, kind, summary, status, ort_dir, npu_dir = sys.argv[1:]
cells = []
for ref_file in sorted(glob.glob(os.path.join(ort_dir, "*.npy"))):
    got_file = os.path.join(npu_dir, os.path.basename(ref_file))
    if not os.path.exists(got_file):
        cells.append(("-", "-", "-"))
        continue
    r, q = np.load(ref_file).astype(np.float64).ravel(), np.load(got_file).astype(np.float64).ravel()
    if r.size == 1:  # a score: no direction to compare, its difference says it
        cells.append(("n/a (one element)", f"{r[0]:.3g} vs {q[0]:.3g}", "-"))
        continue
    cos = r @ q / (np.linalg.norm(r) * np.linalg.norm(q) + 1e-300)
    sqnr = 10 * np.log10((r @ r) / max(((q - r) ** 2).sum(), 1e-300))
    shaped_r, shaped_q = np.load(ref_file), np.load(got_file)
    last = shaped_r.shape[-1] if shaped_r.ndim else 1
    rows_r, rows_q = shaped_r.reshape(-1, last), shaped_q.reshape(-1, last)
    # argmax per row for class scores ([N, K]) and per step for sequences ([N, T, K]); a map is not a choice
    agree = (rows_r.argmax(1) == rows_q.argmax(1)).mean() if last > 1 and shaped_r.ndim <= 3 else float("nan")
    cells.append((f"{cos:.4f}", f"{sqnr:.1f} dB", "-" if np.isnan(agree) else f"{100 * agree:.1f}% of {len(rows_r)} rows"))
cos, sqnr, agree = (" / ".join(c[i] for c in cells) for i in range(3))
print(f"| {name} | {kind.replace('_', ' ')} | {summary} | {status} | {cos} | {sqnr} | {agree} |")
PY
done
