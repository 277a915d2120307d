#!/usr/bin/env bash
# Issue 13's tool-speed figures, measured in one run on this machine and printed beside their goals:
#   - the simulated 1024^3 int8 GEMM with data (default config), process CPU time, against the
#     native int8 GEMM yardstick built beside it with -O3 -march=native (bench/native_int8_gemm);
#   - timing-only simulation of the same program, instructions per CPU second;
#   - compiling ResNet-50 (default calibration and config): wall time and peak RSS;
#   - compiling a VGG-11 (531 MB, exported by bench/export_vgg11.py into $BUILD/bench): peak RSS, once.
# Each timing is the best of REPEAT runs (default 3); peak RSS is the largest.
#   bench/speed.sh [MODEL.onnx]        (default build/default/models/resnet50.onnx)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/default}
REPEAT=${REPEAT:-3}
MODEL=${1:-$BUILD/models/resnet50.onnx}

native=$("$BUILD/bench/native_int8_gemm" --size 1024 --repeat "$REPEAT")
sim=$("$BUILD/bench/sim_gemm_bench" --size 1024 --repeat "$REPEAT" --summary isa/configs/default.yaml)
echo "$native"
echo "$sim" | grep -v '^summary'
echo

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$REPEAT"); do
  /usr/bin/time -f '%e %M' -o "$out/time.$r" "$BUILD/tools/systole" compile "$MODEL" -o "$out/model.sbin" --quiet \
    > "$out/compile.log" 2>&1 || { cat "$out/compile.log" >&2; exit 1; }
done

VGG=$BUILD/bench/vgg11.onnx
/usr/bin/python3 bench/export_vgg11.py "$VGG" > /dev/null
/usr/bin/time -f '%e %M' -o "$out/vgg.time" "$BUILD/tools/systole" compile "$VGG" -o "$out/vgg.sbin" --quiet \
  > "$out/compile.log" 2>&1 || { cat "$out/compile.log" >&2; exit 1; }

/usr/bin/python3 - "$native" "$sim" "$MODEL" "$out" "$REPEAT" "$VGG" <<'PY'
import glob, os, re, sys
native_text, sim_text, model, out, repeat, vgg = sys.argv[1:]
native = float(re.search(r"([\d.]+) s CPU", native_text).group(1))
summary = re.search(r"full_cpu_s=([\d.]+) timing_only_minstr_s=([\d.]+)", sim_text)
sim, minstr = float(summary.group(1)), float(summary.group(2))
runs = [open(f).read().split() for f in sorted(glob.glob(os.path.join(out, "time.*")))]
wall = min(float(r[0]) for r in runs)
rss_mb = max(int(r[1]) for r in runs) / 1024
onnx_mb = os.path.getsize(model) / 2**20
rows = [
    ("simulated 1024^3 GEMM with data / native int8 GEMM (CPU)", f"{sim:.3f} s / {native:.3f} s = {sim / native:.2f}x", "<= 2x", sim / native <= 2),
    ("timing-only simulation", f"{minstr:.2f} M instructions/s", ">= 10 M/s", minstr >= 10),
    (f"compile {os.path.basename(model)}, wall (best of {repeat})", f"{wall:.2f} s", "<= 3 s", wall <= 3),
    ("compile peak RSS / ONNX file size", f"{rss_mb:.0f} MB / {onnx_mb:.0f} MB = {rss_mb / onnx_mb:.2f}x", "<= 2.5x", rss_mb / onnx_mb <= 2.5),
]
vgg_wall, vgg_kb = open(os.path.join(out, "vgg.time")).read().split()
vgg_rss, vgg_mb = int(vgg_kb) / 1024, os.path.getsize(vgg) / 2**20
rows.append(("compile vgg11.onnx: peak RSS / ONNX file size", f"{vgg_rss:.0f} MB / {vgg_mb:.0f} MB = {vgg_rss / vgg_mb:.2f}x ({float(vgg_wall):.1f} s wall)",
             "<= 2.5x", vgg_rss / vgg_mb <= 2.5))
print("| figure | measured | goal | met |")
print("| --- | ---: | ---: | --- |")
for name, value, goal, met in rows:
    print(f"| {name} | {value} | {goal} | {'yes' if met else 'NO'} |")
PY
