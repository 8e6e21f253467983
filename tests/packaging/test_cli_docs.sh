#!/usr/bin/env bash
# `man fts` and the bash completion the build generates (packaging/cli_docs.py): the page renders without a groff
# warning and has a section for every subcommand fts lists; the completion completes subcommands, their
# sub-subcommands and each command's own options; the studio's page describes every option of its --help.
set -euo pipefail
fts=$1 build=$2
page="$build/share/man/man1/fts.1" comp="$build/share/bash-completion/completions/fts"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -s "$page" ] || fail "no man page at $page"
[ -s "$comp" ] || fail "no completion at $comp"

warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff failed: $warnings"
[ -z "$warnings" ] || fail "groff warns: $warnings"
rendered=$(MANWIDTH=100 man -l "$page" 2>&1)
# The page is the same on every machine: no default resolved from this one's home or environment.
grep -qF "$HOME/" "$page" && fail "the man page holds a path of this machine: $(grep -nF "$HOME/" "$page" | head -1)"
for sub in $("$fts" --help | awk '/^Subcommands:/ {s=1; next} s && /^  [a-z]/ {print $1}'); do
  # (a here-string, not `echo | grep -q`: under pipefail grep's early exit can kill echo with SIGPIPE and fail the
  # pipeline for a section that is there)
  grep -q "^   fts $sub\$" <<< "$rendered" || fail "the man page has no section for fts $sub"
done

complete_words() {  # the completions of the given words, the last being completed
  bash -c 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _fts; echo "${COMPREPLY[*]}"' "$comp" "$@"
}
[ "$(complete_words fts gen)" = generate ] || fail "fts gen -> $(complete_words fts gen)"
[ "$(complete_words fts generate --max_n)" = --max_new_tokens ] || fail "generate --max_n -> $(complete_words fts generate --max_n)"
[ "$(complete_words fts runs sh)" = show ] || fail "runs sh -> $(complete_words fts runs sh)"
[ "$(complete_words fts runs list --js)" = --json ] || fail "runs list --js -> $(complete_words fts runs list --js)"
[ "$(complete_words fts train --res)" = --resume ] || fail "train --res -> $(complete_words fts train --res)"
# The studio's hand-written page (packaging/linux/finetune-studio.1) describes every option its --help lists.
studio="$build/bin/finetune-studio" studio_page="$(dirname "$0")/../../packaging/linux/finetune-studio.1"
if [ -x "$studio" ]; then
  warnings=$(groff -man -Tutf8 -ww -z "$studio_page" 2>&1) || fail "groff failed on finetune-studio.1: $warnings"
  [ -z "$warnings" ] || fail "groff warns on finetune-studio.1: $warnings"
  options=$(QT_QPA_PLATFORM=offscreen "$studio" --help 2>/dev/null | grep -oE '^  (-[a-z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+$')
  [ -n "$options" ] || fail "finetune-studio --help lists no option"
  for opt in $options; do
    grep -qF -- "$(echo "$opt" | sed 's/-/\\-/g')" "$studio_page" || fail "finetune-studio.1 does not describe $opt"
  done
fi
echo "ok: man page and completion"
