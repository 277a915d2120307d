#!/usr/bin/env bash
# The C++ sources follow .clang-format (clang-format 14, Debian's `clang-format`): lists every file
# that clang-format would change and fails if there is one. To fix: clang-format -i FILE...
set -euo pipefail
root=${1:-$(dirname "$0")/../..}
cd "$root"
command -v clang-format >/dev/null || { echo "clang-format is not installed (Debian: clang-format)"; exit 1; }
bad=0
while IFS= read -r f; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    bad=$((bad + 1))
  fi
done < <(git ls-files '*.cpp' '*.h' 2>/dev/null || find . -name '*.cpp' -o -name '*.h')
echo "$bad file(s) not formatted by .clang-format"
[ "$bad" -eq 0 ]
