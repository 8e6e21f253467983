#!/usr/bin/env bash
# Checks that every C++ and CUDA file of the project is laid out as .clang-format says (STYLE.md 8); CI runs it.
# Fix with: clang-format -i $(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
# The layout depends on clang-format's version: this uses Debian 12's clang-format 14 (setup-debian.sh --tests).
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
  echo "check-format: clang-format not found (apt install clang-format, or ./packaging/setup-debian.sh --tests)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
if ! "$cf" --dry-run -Werror "${files[@]}"; then
  echo "check-format: the files above differ from .clang-format; run: $cf -i <file>" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format ($("$cf" --version | head -1))"
