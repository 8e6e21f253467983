#!/usr/bin/env bash
# Packs the folder run_on_device.sh runs from, to carry to a GPU machine (default: PROJECT/.dev; keep /.dev/ in
# .git/info/exclude) from a built project tree:   tests/gpu/pack.sh PROJECT [BUILD_DIR] [OUT_DIR]
# bundle.tgz = stripped fts and the test programs holding gpu-labelled suites, plus the shared libraries they need
# that are neither LibTorch/CUDA (the device's torch wheel has those) nor glibc/libstdc++ (Qt Core and Test, ICU,
# SQLite, ...); models (Llama configs, quick-start tokenizer), data, optional generation cases, and the scripts.
set -euo pipefail
P=$(cd "$1" && pwd); B=${2:-$P/build}; H=$(cd "$(dirname "$0")" && pwd); D=${3:-$P/.dev}
rm -rf "$D"; mkdir -p "$D/b/bin" "$D/b/lib" "$D/models" "$D/data"
cp "$B/bin/fts" "$D/b/bin/fts"; strip "$D/b/bin/fts"
# the programs of the gpu-labelled suites (ctest -L gpu -N names them: <program> <suite>)
GPU_PROGRAMS=$(cd "$B" && ctest -L gpu -N -V 2>/dev/null | awk '/Test command:/{print $4}' | sort -u)
for prog in $GPU_PROGRAMS; do cp "$prog" "$D/b/bin/"; strip "$D/b/bin/$(basename "$prog")"; done
(cd "$B" && ctest -L gpu -N -V | awk '/Test command:/{n=split($4,a,"/"); gsub(/"/,"",$5); print a[n], $5}') > "$D/gpu_suites.txt"
for exe in "$D"/b/bin/*; do ldd "$exe"; done | awk '/=> \//{print $1, $3}' | sort -u | while read -r name path; do
  case "$path" in
    */torch/lib/*|*/nvidia/*|*/cuda*/lib*) continue ;;
    */libc.so*|*/libutil.so*|*/libm.so*|*/libpthread.so*|*/libdl.so*|*/librt.so*|*/ld-linux*|*/libstdc++.so*|*/libgcc_s.so*) continue ;;
  esac
  cp -L "$path" "$D/b/lib/$name"
done
ls -la "$D/b/lib"
tar czf "$D/bundle.tgz" -C "$D/b" bin lib && rm -rf "$D/b"
Q=$P/resources/quickstart
head -c 1200000 "$Q/sample_stories.jsonl" > "$D/data/stories.jsonl"
for m in llama-small llama-1b; do
  mkdir -p "$D/models/$m"; cp "$Q/model/tokenizer.json" "$Q/model/tokenizer_config.json" "$D/models/$m/"
done
python3 - "$D/models" <<'PY'
import json, sys
base = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_act="silu", rms_norm_eps=1e-5,
            rope_theta=10000.0, tie_word_embeddings=False, bos_token_id=0, eos_token_id=0, attention_bias=False,
            mlp_bias=False, initializer_range=0.02, attention_dropout=0.0)
small = dict(base, hidden_size=256, intermediate_size=688, num_hidden_layers=4, num_attention_heads=4,
             num_key_value_heads=2, vocab_size=590, max_position_embeddings=512, torch_dtype="float32")
big = dict(base, hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
           num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048, torch_dtype="bfloat16")
json.dump(small, open(sys.argv[1] + "/llama-small/config.json", "w"), indent=1)
json.dump(big, open(sys.argv[1] + "/llama-1b/config.json", "w"), indent=1)
PY
# optional greedy-generation cases (folders gpt2/llama/qwen2 + expected.json), e.g. from a test fixture
[ -n "${GEN_CASES:-}" ] && cp -r "$GEN_CASES" "$D/generate" && rm -f "$D/generate"/*.py
cp "$H/run_on_device.sh" "$H/dev.py" "$H/report.py" "$D/"
du -sh "$D" "$D"/*
