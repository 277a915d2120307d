#!/usr/bin/env bash
# Issue 30's speed figures where users run the tool: whole `systole` processes on compiled models,
# CPU time (user + system) of each, best of REPEAT (default 3):
#   - timing-only: `systole sim gemm2048.sbin --timing-only` minus the same on gemm256.sbin (which
#     cancels start-up: loading the binary, LLVM and SystemC), over the difference in instructions;
#   - with data: `systole sim gemm2048.sbin` minus gemm256.sbin, against the native int8 GEMM
#     yardstick of the same size (bench/native_int8_gemm, -O3 -march=native);
#   - `systole compile` of ResNet-50, wall time.
# The in-process figures of the same simulator are bench/speed.sh's (sim_gemm_bench).
#   bash bench/cli_speed.sh [MODEL.onnx]   (default build/default/models/resnet50.onnx)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/default}
REPEAT=${REPEAT:-3}
MODEL=${1:-$BUILD/models/resnet50.onnx}
S=$BUILD/tools/systole
work=$BUILD/bench/cli_speed
mkdir -p "$work"
export XDG_CACHE_HOME=$work/cache  # compiles below are never served from the user's cache
for n in 256 2048; do
  /usr/bin/python3 bench/export_gemm.py "$work/gemm$n.onnx" "$n" > /dev/null
  [ -f "$work/gemm$n.sbin" ] || "$S" compile "$work/gemm$n.onnx" -o "$work/gemm$n.sbin" --quiet > /dev/null
done
best() {  # best CPU seconds (user + sys) and wall seconds of REPEAT runs of "$@"
  local cpu=999 wall=999
  for _ in $(seq "$REPEAT"); do
    /usr/bin/time -f '%U %S %e' -o "$work/time" "$@" > "$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
    read -r u s e < "$work/time"
    cpu=$(echo "c = $u + $s; if (c < $cpu) c else $cpu" | bc)
    wall=$(echo "if ($e < $wall) $e else $wall" | bc)
  done
  echo "$cpu $wall"
}
instructions() { "$S" sim "$1" --timing-only | sed -n 's/.*, \([0-9]*\) instructions,.*/\1/p'; }
read -r t256 _ <<< "$(best "$S" sim "$work/gemm256.sbin" --timing-only)"
read -r t2048 _ <<< "$(best "$S" sim "$work/gemm2048.sbin" --timing-only)"
read -r d256 _ <<< "$(best "$S" sim "$work/gemm256.sbin")"
read -r d2048 _ <<< "$(best "$S" sim "$work/gemm2048.sbin")"
native=$("${NATIVE:-$BUILD/bench/native_int8_gemm}" --size 2048 --repeat "$REPEAT" | sed -n 's/.*: \([0-9.]*\) s CPU.*/\1/p')
read -r _ compile <<< "$(best "$S" compile "$MODEL" -o "$work/model.sbin" --quiet)"
i256=$(instructions "$work/gemm256.sbin") i2048=$(instructions "$work/gemm2048.sbin")
/usr/bin/python3 - "$t256" "$t2048" "$i256" "$i2048" "$d256" "$d2048" "$native" "$compile" "$(basename "$MODEL")" <<'PY'
import sys
t256, t2048, i256, i2048, d256, d2048, native, compile_s = map(float, sys.argv[1:9])
rate = (i2048 - i256) / (t2048 - t256) / 1e6
data = d2048 - d256
rows = [
    ("timing-only, CLI: (gemm2048 - gemm256) instructions / CPU s",
     f"{i2048 - i256:.0f} / ({t2048:.2f} - {t256:.2f}) s = {rate:.2f} M/s", ">= 10 M/s", rate >= 10),
    ("with data, CLI: (gemm2048 - gemm256) CPU / native int8 GEMM 2048^3",
     f"({d2048:.2f} - {d256:.2f}) s / {native:.3f} s = {data / native:.2f}x", "<= 2x", data / native <= 2),
    (f"compile {sys.argv[9]}, wall (best of runs)", f"{compile_s:.2f} s", "<= 3 s", compile_s <= 3),
]
print("| figure | measured | goal | met |")
print("| --- | ---: | ---: | --- |")
for name, value, goal, met in rows:
    print(f"| {name} | {value} | {goal} | {'yes' if met else 'NO'} |")
PY
