#!/usr/bin/env bash
# The .deb (cmake/FtsPackaging.cmake, docs/packaging.md), as a user gets it: CPack builds it; dpkg -x unpacks it into
# a scratch root (no system install); from there, with a clean environment (no LD_LIBRARY_PATH, no venv, an empty
# HOME), the installed fts and finetune-studio run, every library resolves inside the package or the system's
# folders, and the headless quick-start trains, exports and generates. The control fields, the desktop entry, the
# metainfo, the icons, the man pages and the completion are checked, and lintian passes with only the package's
# documented overrides. Prints the sizes and the time to build the package ("measure:" lines).
#   test_deb.sh BUILD_DIR
#   Scratch space: under BUILD_DIR (the disk that holds the build, not a possibly small /tmp); at its peak, while
#   cpack compresses, the staging tree (3 GB), data.tar.zst and the .deb (2 GB each). With less than 8 GiB free the
#   test is skipped (exit 77, ctest's SKIP_RETURN_CODE) and says so.
set -euo pipefail
build=$(cd "$1" && pwd)
mkdir -p "$build/packaging"
tmp=$(mktemp -d "$build/packaging/test-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
free_kib=$(df --output=avail -k "$tmp" | tail -1 | tr -d ' ')
need_kib=$(( 8 * 1024 * 1024 ))
if [ "$free_kib" -lt "$need_kib" ]; then
  echo "SKIP: $tmp has $(( free_kib / 1024 )) MiB free; building and unpacking the package needs 8192 MiB"
  exit 77
fi
now() { date +%s.%N; }
seconds() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$@"; }

# 1. Build it.
t0=$(now)
cpack --config "$build/CPackConfig.cmake" -B "$tmp/pkg" > "$tmp/cpack.log" 2>&1 ||
  fail "cpack: $(tail -30 "$tmp/cpack.log")
$(df -h "$tmp")"
t1=$(now)
deb=$(ls "$tmp"/pkg/finetune-studio_*_amd64.deb)
rm -rf "$tmp/pkg/_CPack_Packages"  # the staging copy: 3 GB the rest does not need
echo "measure: package built in $(seconds "$t0" "$t1") s (cpack: install, dpkg-shlibdeps, zstd)"
echo "measure: $(basename "$deb"): $(( $(stat -c %s "$deb") / 1048576 )) MiB"

# 2. Control fields: Depends holds the Debian libraries it links (from dpkg-shlibdeps) and nothing bundled.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = finetune-studio ] || fail "Package: $(field Package)"
version=$(field Version)
depends=$(field Depends)
dep_names=$(echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/[ (].*//')
dpkg-deb -c "$deb" > "$tmp/contents.txt"
has_gui=0
grep -q "./opt/finetune-studio/bin/finetune-studio$" "$tmp/contents.txt" && has_gui=1
wanted=(libc6 libstdc++6 libsqlite3-0 libicu72 libpcre2-8-0)
[ $has_gui = 1 ] && wanted+=(libqt6core6 libqt6widgets6 libqcustomplot2.1-qt6 qt6-qpa-plugins)
for dep in "${wanted[@]}"; do
  grep -qxF "$dep" <<< "$dep_names" || fail "Depends lacks $dep: $depends"
done
grep -qiE "torch|cuda|nccl|cudnn|nvidia" <<< "$depends" && fail "Depends names a bundled library: $depends"

# 3. Unpack; the tree's layout.
root="$tmp/root"
dpkg -x "$deb" "$root"
echo "measure: installed tree $(du -sm "$root" | cut -f1) MiB ($(du -sm "$root/opt/finetune-studio/lib" | cut -f1) MiB of bundled libraries)"
opt="$root/opt/finetune-studio"
exes=(fts)
[ $has_gui = 1 ] && exes+=(finetune-studio)
for exe in "${exes[@]}"; do
  [ "$(readlink "$root/usr/bin/$exe")" = "/opt/finetune-studio/bin/$exe" ] || fail "/usr/bin/$exe -> $(readlink "$root/usr/bin/$exe")"
  runpath=$(readelf -d "$opt/bin/$exe" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  [ "$runpath" = '$ORIGIN/../lib' ] || fail "$exe's RUNPATH is '$runpath', expected \$ORIGIN/../lib"
  file -b "$opt/bin/$exe" | grep -q "not stripped" && fail "$exe is not stripped"
done
[ -f "$opt/share/finetune-studio/resources/quickstart/quickstart.json" ] || fail "no quick-start in the package"
[ -f "$root/usr/share/doc/finetune-studio/copyright" ] || fail "no copyright file"
ls "$root/usr/share/doc/finetune-studio/licenses/torch-"*/LICENSE > /dev/null || fail "no LibTorch license text"

# 4. Every library the binaries and the bundled libraries need resolves inside the package or the system's folders
# (never the build's venv or /usr/local), in a clean environment. libcuda.so.1 is the NVIDIA driver's (absent here).
clean_env=(env -i "HOME=$tmp/home" "PATH=/usr/bin:/bin" "LANG=C.UTF-8")
mkdir -p "$tmp/home"
for f in "$opt"/bin/* "$opt"/lib/*.so*; do
  while read -r name arrow path; do
    [ "$arrow" = "=>" ] || continue
    if [ "$path" = "not found" ]; then
      [ "$name" = libcuda.so.1 ] || fail "$(basename "$f") needs $name: not found"
      continue
    fi
    case "$(realpath -m "$path")" in
      "$opt/lib/"* | /lib/* | /usr/lib/* | /lib64/*) ;;
      *) fail "$(basename "$f") loads $name from outside the package and the system: $path" ;;
    esac
  done < <("${clean_env[@]}" ldd "$f" 2>&1 | sed 's/ (0x[0-9a-f]*)$//')
done

fts="$opt/bin/fts"
out=$("${clean_env[@]}" "$fts" --version) || fail "fts --version: $out"
grep -qx "fts $version" <<< "$out" || fail "fts --version does not say $version: $out"
grep -q "^LibTorch 2\.11\.0 (CUDA runtime 13\." <<< "$out" || fail "fts --version names no LibTorch/CUDA: $out"
if [ $has_gui = 1 ]; then
  out=$("${clean_env[@]}" QT_QPA_PLATFORM=offscreen "$opt/bin/finetune-studio" --version 2>/dev/null) ||
    fail "finetune-studio --version: $out"
  [ "$out" = "finetune-studio $version" ] || fail "finetune-studio --version: $out"
fi

# 5. The headless quick-start from the installed tree: trains, records the run completed, exports, generates.
qs="$opt/share/finetune-studio/resources/quickstart/quickstart.json"
"${clean_env[@]}" "$fts" train "$qs" --quiet > "$tmp/train.log" 2>&1 || fail "fts train (quick-start): $(tail -20 "$tmp/train.log")"
"${clean_env[@]}" "$fts" runs list --json > "$tmp/runs.json"
python3 - "$tmp/runs.json" <<'EOF' || fail "the quick-start's run: $(head -c 2000 "$tmp/runs.json")"
import json, sys
runs = json.load(open(sys.argv[1]))
assert len(runs) == 1, f"{len(runs)} runs in the new store"
r = runs[0]
assert r["status"] == "completed", r["status"]
assert r["last_step"] == 200, r["last_step"]
loss = r["final_metrics"].get("eval_loss")
assert loss is not None and loss < 2.0, f"final eval loss {loss}"
print(f"measure: quick-start from the package: {r['duration_s']:.0f} s, final eval loss {loss:.3f}")
EOF
final="$tmp/home/.local/share/finetune-studio/outputs/quickstart/final"
[ -f "$final/model.safetensors" ] || fail "no export at $final"
story=$("${clean_env[@]}" "$fts" generate --model "$final" --prompt "Once upon a time" --max_new_tokens 12 2>&1) ||
  fail "fts generate on the export: $story"
[ "${#story}" -gt 16 ] || fail "fts generate wrote nothing: $story"

# 6. Man pages, completion, desktop entry, metainfo, icons.
for page in fts finetune-studio; do
  [ $has_gui = 0 ] && [ $page = finetune-studio ] && continue
  rendered=$(MANWIDTH=100 man -l "$root/usr/share/man/man1/$page.1.gz" 2>&1) || fail "man -l $page.1.gz: $rendered"
  grep -q "^NAME" <<< "$rendered" || fail "man -l $page.1.gz shows no NAME section"
done
got=$(bash -c 'source "$0"; COMP_WORDS=(fts tra); COMP_CWORD=1; _fts; echo "${COMPREPLY[*]}"' \
  "$root/usr/share/bash-completion/completions/fts")
[ "$got" = train ] || fail "the installed completion completes 'fts tra' to '$got'"
if [ $has_gui = 1 ]; then
  id=io.github.finetunestudio.FinetuneStudio
  desktop-file-validate "$root/usr/share/applications/$id.desktop" || fail "desktop-file-validate"
  appstreamcli validate --no-net "$root/usr/share/metainfo/$id.metainfo.xml" > /dev/null || fail "appstreamcli validate"
  [ -f "$root/usr/share/icons/hicolor/scalable/apps/$id.svg" ] || fail "no scalable icon"
  for size in 16 22 24 32 48 64 128 256 512; do
    png="$root/usr/share/icons/hicolor/${size}x$size/apps/$id.png"
    file -b "$png" | grep -q "PNG image data, $size x $size" || fail "icon $png: $(file -b "$png" 2>&1)"
  done
fi

# 7. lintian. Its overrides are the package's usr/share/lintian/overrides/finetune-studio, each with its reason; any
# other error or warning fails, and so does an override that no longer matches anything.
rm -rf "$root"
t2=$(now)
lintian --info --show-overrides "$deb" > "$tmp/lintian.log" 2>&1 || true
t3=$(now)
grep -E "^(E|W): " "$tmp/lintian.log" && fail "lintian reports the lines above"
grep -E "unused-override|mismatched-override" "$tmp/lintian.log" && fail "lintian: an override matches nothing"
grep -qE "^O: finetune-studio: dir-or-file-in-opt" "$tmp/lintian.log" || fail "lintian did not run over the package: $(tail -5 "$tmp/lintian.log")"
echo "measure: lintian $(seconds "$t2" "$t3") s, no error or warning beyond $(grep -c "^O: " "$tmp/lintian.log") overridden tags"
echo "ok: the .deb builds, installs by dpkg -x, runs the quick-start from the tree, and passes lintian"
