#!/usr/bin/env bash
# The C++ sources follow .clang-format (clang-format 14, Debian's `clang-format`): lists every file
# that clang-format would change and fails if there is one. To fix: clang-format -i FILE...
set -euo pipefail
root=${1:-$(dirname "$0")/../..}
cd "$root"
command -v clang-format >/dev/null || { echo "clang-format is not installed (Debian: clang-format)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' 2>/dev/null || find . -name '*.cpp' -o -name '*.h')
if out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1); then
  echo "${#files[@]} files formatted as .clang-format says"
  exit 0
fi
printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/not formatted: \1/p' | sort -u
exit 1
