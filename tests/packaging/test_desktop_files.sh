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
# With a screenshot URL (cmake/metainfo_screenshots.cmake, as a release build sets FTS_SCREENSHOT_BASE_URL): it still
# validates and lists every image of docs/screenshots/ with its size; a URL that is not https is refused.
cmake -DSOURCE="$root/packaging/linux/$id.metainfo.xml" -DOUTPUT="$tmp/with-shots.xml" \
  -DBASE_URL=https://example.org/finetune-studio/docs/screenshots/ -P "$root/cmake/metainfo_screenshots.cmake"
appstreamcli validate --no-net "$tmp/with-shots.xml" || fail "appstreamcli validate (with screenshots)"
for png in "$root"/docs/screenshots/*.png; do
  name=$(basename "$png")
  grep -qF ">https://example.org/finetune-studio/docs/screenshots/$name</image>" "$tmp/with-shots.xml" ||
    fail "the metainfo does not list $name"
  size=$(file -b "$png" | grep -oE "[0-9]+ x [0-9]+" | tr -d ' ')
  grep -F "/$name</image>" "$tmp/with-shots.xml" | grep -qF "width=\"${size%x*}\" height=\"${size#*x}\"" ||
    fail "the metainfo's size of $name is not its $size"
done
cmake -DSOURCE="$root/packaging/linux/$id.metainfo.xml" -DOUTPUT="$tmp/bad.xml" -DBASE_URL=http://example.org \
  -P "$root/cmake/metainfo_screenshots.cmake" 2> /dev/null && fail "an http:// screenshot URL was accepted"
for size in 16 32 48 64 128 256; do
  rsvg-convert -w "$size" -h "$size" "$root/resources/icons/finetune-studio.svg" -o "$tmp/$size.png"
  [ "$(file -b "$tmp/$size.png" | grep -o "$size x $size")" = "$size x $size" ] || fail "the icon at $size px"
done
echo "ok: desktop entry, metainfo and icon"
