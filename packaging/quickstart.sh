#!/usr/bin/env bash
# The README's first command: installs what is missing, builds only the app (fts and finetune-studio: no tests, no
# benchmarks), and opens finetune-studio with the bundled quick-start (a tiny GPT-2 trained from scratch on sample
# stories) ready to start. Without a display it trains the quick-start in the terminal instead. One progress line
# per stage, with its time.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
stage() { echo "quickstart [$1/3] $2 (at $((SECONDS - start)) s)"; }

stage 1 "Debian packages and Python wheels (packaging/setup-debian.sh)"
./packaging/setup-debian.sh
stage 2 "build fts and finetune-studio into build/ (Ninja shows [done/total] steps; ccache makes a rebuild fast)"
mkdir -p build
# LibTorch's CMake files print warnings that do not apply here (CUDA architectures, kineto): keep the configure
# output in a log and show it only if configuring fails.
if ! cmake --preset default >build/configure.log 2>&1; then
  cat build/configure.log >&2
  echo "quickstart: configuring failed (the log above is in build/configure.log)" >&2
  exit 1
fi
cmake --build --preset app
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  stage 3 "start finetune-studio with the quick-start"
  exec build/bin/finetune-studio --quickstart "$@"
fi
stage 3 "no display found: training the quick-start in the terminal (the GUI shows this run later)"
# Run again, it trains again: into a fresh folder beside the first run's (outputs/quickstart-2, ...) rather than
# stopping at the first run's checkpoints. Arguments given (--resume, --output_dir, ...) are passed as they are.
[ $# -eq 0 ] && set -- --new-output
exec build/bin/fts train resources/quickstart/quickstart.json "$@"
