#!/usr/bin/env bash
# Runs the bundled model on two configs, writes their report, runs a small sweep, and checks both
# pages in headless Chromium (render_check.py). usage: render_report.sh SYSTOLE SOURCE_DIR WORK_DIR
set -euo pipefail
systole=$1 src=$2 work=$3
mkdir -p "$work"
model=$src/tests/models/bundled/tiny_cnn.onnx
"$systole" run "$model" --isa default -q --stats "$work/a.json" > /dev/null
"$systole" run "$model" --isa default -q --set array.rows=32 --set array.cols=32 --stats "$work/b.json" > /dev/null
"$systole" report "$work/a.json" "$work/b.json" -o "$work/report.html"
/usr/bin/python3 "$src/tests/report/render_check.py" "$work/report.html" "$work/report.png"

rm -rf "$work/sweep"
printf 'isa: default\nmodels: [%s]\ngrid:\n  array: [{array.rows: 8, array.cols: 8}, {array.rows: 16, array.cols: 16}]\n  memories.dram.bytes_per_cycle: [4, 16]\noptions: [--timing-only]\n' "$model" > "$work/sweep.yaml"
"$systole" sweep "$work/sweep.yaml" -o "$work/sweep" -q
exec /usr/bin/python3 "$src/tests/report/render_check.py" "$work/sweep/report.html" "$work/sweep.png"
