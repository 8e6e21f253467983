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
cmake --preset default >/dev/null
cmake --build --preset app
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  stage 3 "start finetune-studio with the quick-start"
  exec build/bin/finetune-studio --quickstart "$@"
fi
stage 3 "no display found: training the quick-start in the terminal (the GUI shows this run later)"
exec build/bin/fts train resources/quickstart/quickstart.json "$@"
