#!/usr/bin/env bash
# The README's second command: installs what is missing, builds everything with tests, runs the test
# suite (ctest, all labels except bench). .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/setup-debian.sh --tests
cmake --preset default
cmake --build --preset default
ctest --preset default
