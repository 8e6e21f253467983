#!/usr/bin/env bash
# Installs everything Finetune Studio needs on Debian 12: the Debian packages and a Python virtual
# environment (.venv in the project root) with the pinned wheels. Idempotent: what is there stays.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The venv lives outside the checkout so fresh clones (and CI) reuse it instead of re-installing.
venv="${FTS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/finetune-studio/venv}"

debs=(build-essential cmake ninja-build ccache pkg-config git
      qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n libqcustomplot-dev
      libgl-dev libxkbcommon-dev
      libsqlite3-dev nlohmann-json3-dev libcli11-dev libfmt-dev libpcre2-dev libicu-dev
      libxxhash-dev liburing-dev openssh-client fio
      iproute2 procps
      libgloo-dev
      python3 python3-venv python3-dev
      xvfb xauth
      fonts-wqy-microhei)  # the studio's Chinese UI needs a CJK font (a bare Debian has none: every glyph a box)

# --tests: also what the test suite needs beyond the build: sshd for the multi-node harness (network namespaces,
# tests/integration/netns_hosts.sh; Debian enables its service on install; the app itself never needs it), and
# clang-format for the layout check CI runs (packaging/check-format.sh).
[ "${1:-}" = "--tests" ] && debs+=(openssh-server clang-format)
# --fuzz: clang with libFuzzer and the sanitizer runtimes, for the `fuzz` preset (docs/fuzzing.md).
[ "${1:-}" = "--fuzz" ] && debs+=(clang libclang-rt-dev)

missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}"
fi

py=/usr/bin/python3; [ -x "$py" ] || py=$(command -v python3)
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating virtual environment $venv"
  "$py" -m venv "$venv"
fi
# Install only when the pinned set changed since the last successful install (no re-downloads).
stamp="$venv/.fts-requirements.sha256"
want=$(cat "$root/packaging/requirements.txt" "$root/packaging/requirements-no-build-isolation.txt" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing pinned wheels into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/packaging/requirements.txt"
  DS_BUILD_OPS=0 "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
    -r "$root/packaging/requirements-no-build-isolation.txt"
  echo "$want" > "$stamp"
fi
