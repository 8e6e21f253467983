#!/usr/bin/env bash
# Installs what Finetune Studio needs on Debian 12: the Debian packages and a Python virtual environment with the
# pinned wheels. Without arguments: what building and running need (the README's first command); --tests adds what
# the tests need (the README's second). Idempotent: what is there stays. FTS_SETUP_DRY_RUN=1 prints what it would
# install and changes nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The venv lives outside the checkout so fresh clones (and CI) reuse it instead of re-installing.
venv="${FTS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/finetune-studio/venv}"

debs=(build-essential cmake ninja-build ccache mold pkg-config git
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
# clang-format for the layout check CI runs (packaging/check-format.sh), man and groff to check `man fts`, and the
# validators of the desktop entry, the AppStream metainfo and the icon, and lintian for the .deb (tests/packaging;
# rsvg-convert also draws the icon's PNG sizes when the package is built), and Go, whose text/template is the engine
# of Ollama's Modelfile templates (tests/core/gguf: the exported templates render as the trainer's chat templates).
[ "${1:-}" = "--tests" ] && debs+=(openssh-server clang-format man-db groff-base desktop-file-utils appstream librsvg2-bin file
                                  lintian golang-go)
# --fuzz: clang with libFuzzer and the sanitizer runtimes, for the `fuzz` preset (docs/fuzzing.md).
[ "${1:-}" = "--fuzz" ] && debs+=(clang libclang-rt-dev)

missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ -n "${FTS_SETUP_DRY_RUN:-}" ]; then
  echo "setup: would install the Debian packages: ${debs[*]}"
elif [ ${#missing[@]} -eq 0 ]; then
  echo "setup: Debian packages: all ${#debs[@]} installed"
else
  echo "setup: Debian packages: installing ${#missing[@]} of ${#debs[@]}: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}"
fi

py=/usr/bin/python3; [ -x "$py" ] || py=$(command -v python3)
if [ -z "${FTS_SETUP_DRY_RUN:-}" ] && [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating virtual environment $venv"
  "$py" -m venv "$venv"
fi
# Two pinned sets: what building and running need (requirements-run.txt: torch, whose LibTorch the build links),
# and with --tests the references the tests and benchmarks compare against (requirements-tests.txt, then DeepSpeed
# built against the venv's torch). Each set is installed only when its files changed since its last successful
# install (no re-downloads).
# llama.cpp built for the machine it builds on (GGML_NATIVE) uses AMX where the CPU lists it, and on this project's
# VMs (which list AMX) its quantized matmuls die of SIGILL at the first AMX instruction (tileloadd): the GGUF tests
# failed on a fresh machine. The reference is built for AVX2/FMA/F16C instead, so the venv runs on any x86-64-v3
# machine; a venv holding a native build with AMX is rebuilt once.
llama_cpp_cmake_args="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
llama_cpp_is_native() {
  "$venv/bin/python" -c 'import llama_cpp, sys; sys.exit(0 if b"AMX_INT8 = 1" in llama_cpp.llama_print_system_info() else 1)' \
    2>/dev/null
}
sets=(run)
[ "${1:-}" = "--tests" ] && sets+=(tests)
for set in "${sets[@]}"; do
  files=("$root/packaging/requirements-$set.txt")
  [ "$set" = tests ] && files+=("$root/packaging/requirements-no-build-isolation.txt")
  if [ -n "${FTS_SETUP_DRY_RUN:-}" ]; then  # tests/packaging: which files a set-up installs, nothing done
    echo "setup: would install the $set set: ${files[*]##*/}"
    continue
  fi
  stamp="$venv/.fts-requirements-$set.sha256"
  want=$(cat "${files[@]}" | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    echo "setup: Python wheels ($set set): installed in $venv"
  else
    echo "setup: Python wheels ($set set): installing the pinned wheels into $venv (torch alone is ~1 GB to fetch once)"
    # llama-cpp-python (tests set) compiles llama.cpp: for a fixed x86-64-v3 baseline, not -march=native (see below)
    CMAKE_ARGS="$llama_cpp_cmake_args" "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "${files[0]}"
    if [ "$set" = tests ]; then
      DS_BUILD_OPS=0 "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
        -r "${files[1]}"
    fi
    echo "$want" > "$stamp"
  fi
  if [ "$set" = tests ] && llama_cpp_is_native; then
    echo "setup: rebuilding llama-cpp-python without AMX (about 5 minutes on 2 cores, once)"
    pin=$(grep -E '^llama-cpp-python==' "$root/packaging/requirements-tests.txt")
    CMAKE_ARGS="$llama_cpp_cmake_args" "$venv/bin/python" -m pip install -q --disable-pip-version-check \
      --force-reinstall --no-deps --no-cache-dir "$pin"
  fi
done
