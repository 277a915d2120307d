#!/usr/bin/env bash
# Issue 30's design-space grid: bench/sweeps/design_space.yaml (arrays 8x8..128x128, 16x64 and
# 64x16, x scratchpad 64 KiB / 256 KiB / 1 MiB, x squeezenet1_1, resnet18, mobilenet_v2), run
# twice: timing-only (what an architect sweeps), then every run again with --check (compiled,
# simulated with data and compared with the reference interpreter bit for bit). Both sweeps must
# finish with no failed run; results land in $OUT/{timing,check}/results.csv and report.html.
#   bash bench/design_space.sh            (needs the exported models: cmake --build --preset default --target models)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/default}
OUT=${OUT:-$BUILD/design_space}
rm -rf "$OUT"
mkdir -p "$OUT"
sed 's/^options: .*/options: [--check]/' bench/sweeps/design_space.yaml > bench/sweeps/.design_space_check.yaml
trap 'rm -f bench/sweeps/.design_space_check.yaml' EXIT
for kind in timing check; do
  spec=bench/sweeps/design_space.yaml
  [ "$kind" = check ] && spec=bench/sweeps/.design_space_check.yaml
  start=$(date +%s.%N)
  "$BUILD/tools/systole" sweep "$spec" -o "$OUT/$kind" -q
  echo "$kind: $(tail -n +2 "$OUT/$kind/results.csv" | wc -l) runs, all ok, in $(echo "$(date +%s.%N) - $start" | bc) s"
done
# The table of bench/design_space.md: cycles per model and design, timing-only.
python3 - "$OUT/timing/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
models = list(dict.fromkeys(r["model"] for r in rows))
print("| array | scratchpad | " + " | ".join(f"{m} cycles (x bound)" for m in models) + " |")
print("| --- | --- | " + " | ".join("---:" for _ in models) + " |")
for key in dict.fromkeys((r["array"], r["memories.scratchpad.size"]) for r in rows):
    cells = {r["model"]: r for r in rows if (r["array"], r["memories.scratchpad.size"]) == key}
    print(f"| {key[0]} | {key[1]} | " + " | ".join(
        f"{int(cells[m]['total_cycles']):,} ({float(cells[m]['cycles_per_bound']):.2f})" for m in models) + " |")
PY
