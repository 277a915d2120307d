#!/usr/bin/env bash
# How well the compiler's per-layer prediction (the cost model, compiler/src/backend/step_cost.cpp)
# matches the simulator: for each model, the layers within 5% of their simulated cycles, the
# median error, the layers over 50 k simulated cycles and how many of them are within 5% (issue 34's
# goal), and the total predicted against the total simulated.
#   bench/prediction_accuracy.sh [CONFIG] [MODEL...]     (models from build/default/models)
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-default}
shift || true
MODELS=${*:-"resnet18 resnet50 mobilenet_v2 squeezenet1_1 efficientnet_b0"}
for m in $MODELS; do
  build/default/tools/systole run "build/default/models/$m.onnx" --isa "$CONFIG" --timing-only --layers -q 2>/dev/null |
    /usr/bin/python3 -c '
import re, sys
rows = []
for line in sys.stdin:
    m = re.match(r"^(\S.{27})\s(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s", line)
    if m and m.group(2) != "op":
        rows.append((int(m.group(4)), int(m.group(5))))
errs = sorted(abs(p - s) / s for p, s in rows if s > 0)
within = sum(e <= 0.05 for e in errs)
big = [abs(p - s) / s for p, s in rows if s > 50000]
big_within = sum(e <= 0.05 for e in big)
tp, ts = sum(p for p, _ in rows), sum(s for _, s in rows)
print(f"| {sys.argv[1]} | {len(rows)} | {within} ({100 * within / len(rows):.0f}%) | {100 * errs[len(errs) // 2]:.1f}% "
      f"| {big_within} of {len(big)} | {tp} | {ts} | {100 * (tp - ts) / ts:+.1f}% |")
' "$m"
done
