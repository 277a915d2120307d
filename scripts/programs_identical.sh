#!/usr/bin/env bash
# Compiles every exported model on every shipped config with two `systole` binaries and compares
# the programs byte for byte: the check that a refactoring changed no compiled program.
#
#   scripts/programs_identical.sh OLD_SYSTOLE NEW_SYSTOLE [MODELS_DIR]
#
# MODELS_DIR defaults to build/default/models (tests/models/export_models.py --calib writes it);
# each model compiles with its NAME.calib samples. A model that does not fit a config must fail
# the same way with both. Prints one line per program and a summary; exits 1 on any difference.
set -euo pipefail
old=$1 new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
models=${3:-$root/build/default/models}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
same=0 differ=0 failed=0
for m in "$models"/*.onnx; do
  name=$(basename "$m" .onnx)
  calib=()
  [ -d "$models/$name.calib" ] && calib=(--calib "$models/$name.calib")
  for c in "$root"/isa/configs/*.yaml; do
    cfg=$(basename "$c" .yaml)
    a=$work/$name.$cfg.old.sbin b=$work/$name.$cfg.new.sbin
    ra=0 rb=0
    "$old" compile "$m" --isa "$c" "${calib[@]}" -o "$a" >/dev/null 2>"$work/err.old" || ra=$?
    "$new" compile "$m" --isa "$c" "${calib[@]}" -o "$b" >/dev/null 2>"$work/err.new" || rb=$?
    if [ "$ra" -ne 0 ] || [ "$rb" -ne 0 ]; then
      if [ "$ra" -ne 0 ] && [ "$rb" -ne 0 ] && cmp -s "$work/err.old" "$work/err.new"; then
        echo "both fail   $name $cfg: $(tail -1 "$work/err.new")"
        failed=$((failed + 1))
      else
        echo "DIFFERENT   $name $cfg: exit $ra vs $rb"
        differ=$((differ + 1))
      fi
    elif cmp -s "$a" "$b"; then
      echo "identical   $name $cfg"
      same=$((same + 1))
    else
      echo "DIFFERENT   $name $cfg: $(cmp "$a" "$b" | head -1)"
      differ=$((differ + 1))
    fi
  done
done
echo "programs: $same identical, $differ different, $failed failing the same way with both"
[ "$differ" -eq 0 ]
