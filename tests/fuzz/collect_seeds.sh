#!/usr/bin/env bash
# Seed corpora for the fuzz targets, built from the inputs the tests already use (nothing large is
# committed): collect_seeds.sh SYSTOLE OUTDIR writes OUTDIR/<target>/ for every target of
# tests/fuzz. SYSTOLE is a `systole` executable (it assembles the .s tests into .sbin seeds).
# ONNX and extra .npy seeds need /usr/bin/python3 with onnx and numpy; without them those are skipped.
set -euo pipefail
systole=$1
out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
python=/usr/bin/python3
rm -rf "$out"
mkdir -p "$out"/{config,expr,asm,sim,npy,onnx}

# Copies the files named *.EXT under tests/ (not tests/fuzz) into DIR, named by their path.
copy_tests() {
  local ext=$1 dir=$2 f
  while IFS= read -r f; do cp "$f" "$dir/$(echo "${f#"$src"/}" | tr / _)"; done \
    < <(find "$src/tests" -name "*.$ext" -not -path '*/fuzz/*')
}

# config: the shipped configs and every YAML lit test (valid and invalid ones).
for f in "$src"/isa/configs/*.yaml "$src"/tests/lit/yaml/*.yaml; do cp "$f" "$out/config/$(basename "$f")"; done
# ... and the shipped default under each `--set KEY=VALUE` of the lit tests, as a leading `#set` line.
grep -rohE -- '--set ("[^"]+"|[^ ]+)' "$src"/tests/lit | sed -E 's/^--set //; s/^"//; s/"$//' | sort -u | {
  n=0
  while IFS= read -r o; do
    { printf '#set %s\n' "$o"; cat "$src/isa/configs/default.yaml"; } > "$out/config/set-$n.yaml"
    n=$((n + 1))
  done
}

# expr: every quoted expression of those configs, one per file.
grep -ohE '(cycles|issue|limit|max)[a-z_]*: *"[^"]+"' "$src"/isa/configs/*.yaml "$src"/tests/lit/yaml/*.yaml |
  sed -E 's/^[^"]*"//; s/"$//' | sort -u | {
  n=0
  while IFS= read -r e; do printf '%s' "$e" > "$out/expr/$n.txt"; n=$((n + 1)); done
}

# asm: every assembly file; sim: each of them assembled for the config its RUN line names.
while IFS= read -r f; do
  name=$(echo "${f#"$src"/}" | tr / _)
  cp "$f" "$out/asm/$name"
  config=$(grep -om1 -- '--isa %configs/[a-z0-9]*\.yaml' "$f" | sed 's#.*/##' || true)
  set=$(grep -m1 -- '%systole asm' "$f" | grep -oE -- '--set [^ ]+' || true)  # e.g. int16 activations
  # shellcheck disable=SC2086  # $set is a flag and its value, or nothing
  "$systole" asm "$f" --isa "$src/isa/configs/${config:-default.yaml}" $set -o "$out/sim/${name%.s}.sbin" 2>/dev/null ||
    true
done < <(find "$src/isa/examples" "$src/tests/lit" -name '*.s')

# npy: the committed arrays, plus every dtype and header version numpy writes.
copy_tests npy "$out/npy"
if "$python" -c 'import numpy' 2>/dev/null; then
  "$python" - "$out/npy" <<'PY'
import sys, numpy as np, numpy.lib.format as fmt
out = sys.argv[1]
for dt in ["int8", "uint8", "int32", "float32", "float64", "int64"]:
    np.save(f"{out}/{dt}.npy", np.arange(12, dtype=dt).reshape(3, 4))
np.save(f"{out}/scalar.npy", np.array(3, dtype="float32"))
np.save(f"{out}/empty.npy", np.zeros((0, 5), dtype="int8"))
np.save(f"{out}/fortran.npy", np.asfortranarray(np.arange(6, dtype="int32").reshape(2, 3)))
np.save(f"{out}/bigendian.npy", np.arange(4, dtype=">i4"))
for version in [(2, 0), (3, 0)]:
    with open(f"{out}/v{version[0]}.npy", "wb") as f:
        a = np.arange(8, dtype="int8")
        fmt.write_array(f, a, version=version)
PY
fi

# onnx: the committed models and every lit test model (make_model.py, valid and hostile ones).
copy_tests onnx "$out/onnx"
if "$python" -c 'import onnx' 2>/dev/null; then
  make_model="$src/tests/lit/compiler/Inputs/make_model.py"
  for m in $("$python" "$make_model" --list); do "$python" "$make_model" "$m" "$out/onnx/$m.onnx" 2>/dev/null || true; done
fi

for d in "$out"/*/; do echo "$(basename "$d"): $(find "$d" -type f | wc -l) seeds"; done
