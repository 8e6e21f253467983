#!/usr/bin/env bash
# The README's first command (packaging/quickstart.sh) sets up only what building and running need: its set-up
# installs the run set (torch) and none of the reference libraries the tests compare against; the second command
# (packaging/test.sh) installs both. Checked through setup-debian.sh's dry run (nothing installed).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

grep -qE '^\./packaging/setup-debian\.sh$' "$root/packaging/quickstart.sh" || fail "quickstart.sh does not run setup-debian.sh without arguments"
grep -qE '^\./packaging/setup-debian\.sh --tests$' "$root/packaging/test.sh" || fail "test.sh does not run setup-debian.sh --tests"

first=$(FTS_SETUP_DRY_RUN=1 "$root/packaging/setup-debian.sh")
echo "$first" | grep -q "would install the run set: requirements-run.txt" || fail "the first command installs no run set: $first"
echo "$first" | grep -q "tests set" && fail "the first command installs the tests set: $first"
echo "$first" | grep -q "openssh-server" && fail "the first command installs the test-only Debian packages"

second=$(FTS_SETUP_DRY_RUN=1 "$root/packaging/setup-debian.sh" --tests)
echo "$second" | grep -q "would install the tests set: requirements-tests.txt requirements-no-build-isolation.txt" || fail "the second command misses the tests set: $second"

# The run set pins no reference library.
for ref in transformers peft tokenizers deepspeed scikit-learn scipy safetensors; do
  grep -qiE "^$ref==" "$root/packaging/requirements-run.txt" && fail "requirements-run.txt installs $ref"
  grep -qiE "^$ref==" "$root/packaging/requirements-tests.txt" "$root/packaging/requirements-no-build-isolation.txt" \
    || fail "$ref is pinned nowhere"
done
grep -qE '^torch==' "$root/packaging/requirements-run.txt" || fail "requirements-run.txt does not pin torch"
echo "ok: the first command installs the run set only; the second adds the tests set"
