#!/usr/bin/env bash
# The desktop integration files validate: the .desktop entry (desktop-file-validate), the AppStream metainfo
# (appstreamcli validate, offline), and the SVG icon renders at the hicolor sizes the package installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
id=io.github.finetunestudio.FinetuneStudio
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$(desktop-file-validate "$root/packaging/linux/$id.desktop" 2>&1) || fail "desktop-file-validate: $out"
echo "$out" | grep -qE "error|warning|hint" && fail "desktop-file-validate: $out"
appstreamcli validate --no-net "$root/packaging/linux/$id.metainfo.xml" || fail "appstreamcli validate"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for size in 16 32 48 64 128 256; do
  rsvg-convert -w "$size" -h "$size" "$root/resources/icons/finetune-studio.svg" -o "$tmp/$size.png"
  [ "$(file -b "$tmp/$size.png" | grep -o "$size x $size")" = "$size x $size" ] || fail "the icon at $size px"
done
echo "ok: desktop entry, metainfo and icon"
