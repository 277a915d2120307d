#!/usr/bin/env bash
# The host JIT end to end (hostjit/): `systole run --check` of a model with the JIT on and off
# gives the same output files byte for byte; with it on, every host operator runs JIT-compiled, and
# the second run takes the compiled code from the cache.
#   host_jit.sh SYSTOLE MODEL.onnx EXPECTED_JIT_COMPILED_COUNT
set -euo pipefail
SYSTOLE=$1
MODEL=$2
WANT=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
fail() { echo "FAIL: $*"; exit 1; }

"$SYSTOLE" run "$MODEL" --check -q --output-dir "$work/on" > "$work/on.txt"
"$SYSTOLE" run "$MODEL" --check -q --output-dir "$work/off" --host-jit=off > "$work/off.txt"
for f in "$work"/off/*.npy; do
  cmp "$f" "$work/on/$(basename "$f")" || fail "$(basename "$f") differs with the JIT on and off"
done
grep -q "host operators run: $WANT JIT-compiled, 0 interpreted" "$work/on.txt" || { cat "$work/on.txt"; fail "not every host operator ran JIT-compiled"; }
grep -q "code stored in cache" "$work/on.txt" || { cat "$work/on.txt"; fail "the first run did not store its code"; }
grep -q "host operators run: 0 JIT-compiled, $WANT interpreted" "$work/off.txt" || { cat "$work/off.txt"; fail "--host-jit=off still compiled"; }
"$SYSTOLE" run "$MODEL" --check -q --output-dir "$work/again" > "$work/again.txt"
grep -q "code from cache" "$work/again.txt" || { cat "$work/again.txt"; fail "the second run did not reuse the cached code"; }
for f in "$work"/off/*.npy; do
  cmp "$f" "$work/again/$(basename "$f")" || fail "$(basename "$f") differs with the cached code"
done
echo "host JIT: $(basename "$MODEL") bit for bit with the JIT on, off and cached"
