#!/usr/bin/env bash
# GGUF export of a 1.5B model to q4_k_m: `fts export --format gguf --quant q4_k_m` beside llama.cpp's own pipeline
# (convert_hf_to_gguf.py --outtype f16, then llama-quantize Q4_K_M, which is llama_model_quantize in the pinned
# llama-cpp-python: the same C code), in one run on this machine. Prints wall time and peak resident memory of each
# and their ratios, and checks the two q4_k_m files hold the same tensor types.
#   usage: bench_gguf_export.sh BUILD_DIR VENV_PYTHON [WORK_DIR] [THREADS]
# The model: Qwen2.5-1.5B's shape (28 layers, 1536 wide, vocab 151,936, tied embeddings) with random bfloat16
# weights and Qwen3's tokenizer from tests/data (written once into WORK_DIR/model, 3.1 GB). llama.cpp's converter
# comes from the llama-cpp-python sdist pinned in packaging/requirements-tests.txt (its vendor/llama.cpp).
set -euo pipefail
build=$(cd "$1" && pwd)
py=$2
work=${3:-/tmp/fts-bench-gguf}
threads=${4:-$(nproc)}
src=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$work"
cd "$work"

if [ ! -f model/model.safetensors ] && [ ! -f model/model.safetensors.index.json ]; then
  echo "bench: writing the 1.5B model (random bfloat16 weights) to $work/model"
  "$py" - "$src/tests/data" <<'EOF'
import shutil, sys
import torch, transformers as tf
data = sys.argv[1]
cfg = tf.Qwen2Config(vocab_size=151936, hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                     num_attention_heads=12, num_key_value_heads=2, max_position_embeddings=32768,
                     tie_word_embeddings=True, rope_theta=1000000.0, rms_norm_eps=1e-6,
                     bos_token_id=151643, eos_token_id=151645, dtype=torch.bfloat16)
torch.manual_seed(0)
with torch.device("cpu"):
    m = tf.Qwen2ForCausalLM(cfg).to(torch.bfloat16)
m.save_pretrained("model", safe_serialization=True, max_shard_size="5GB")
for f in ("tokenizer.json", "tokenizer_config.json"):
    shutil.copy(f"{data}/tokenizers/qwen3/{f}", f"model/{f}")
EOF
fi
if [ ! -f llama.cpp/convert_hf_to_gguf.py ]; then
  echo "bench: fetching llama.cpp's converter (the llama-cpp-python sdist)"
  "$py" -m pip download -q --no-deps llama-cpp-python==0.3.36 -d sdist  # published as an sdist only
  tar xzf sdist/llama_cpp_python-0.3.36.tar.gz
  mv llama_cpp_python-0.3.36/vendor/llama.cpp llama.cpp
  rm -rf llama_cpp_python-0.3.36
fi
model_bytes=$(du -cb model/*.safetensors | tail -1 | cut -f1)

measure() {  # measure NAME COMMAND...: wall seconds and peak RSS (KiB) into $NAME_s, $NAME_kb
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" > "$work/$name.log" 2>&1 || { tail -20 "$work/$name.log"; exit 1; }
  read -r s kb < "$work/$name.time"
  eval "${name}_s=$s; ${name}_kb=$kb"
}

sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
rm -f fts.gguf Modelfile
measure fts "$build/bin/fts" export model --out fts.gguf --format gguf --quant q4_k_m --threads "$threads" --no-modelfile

sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
rm -f f16.gguf peer.gguf
measure convert env PYTHONPATH="$work/llama.cpp/gguf-py" "$py" llama.cpp/convert_hf_to_gguf.py model --outtype f16 --outfile f16.gguf
measure quantize "$py" - <<EOF
import ctypes, llama_cpp
p = llama_cpp.llama_model_quantize_default_params()
p.ftype = 15  # LLAMA_FTYPE_MOSTLY_Q4_K_M
p.nthread = $threads
assert llama_cpp.llama_model_quantize(b"f16.gguf", b"peer.gguf", ctypes.byref(p)) == 0
EOF

"$py" - "$fts_s" "$fts_kb" "$convert_s" "$convert_kb" "$quantize_s" "$quantize_kb" "$model_bytes" <<'EOF'
import sys, gguf
fs, fkb, cs, ckb, qs, qkb, model = map(float, sys.argv[1:])
peer_s, peer_kb = cs + qs, max(ckb, qkb)
ours = {t.name: t.tensor_type.name for t in gguf.GGUFReader("fts.gguf").tensors}
theirs = {t.name: t.tensor_type.name for t in gguf.GGUFReader("peer.gguf").tensors}
same = sum(ours.get(n) == t for n, t in theirs.items())
print(f"model: {model / 2**30:.2f} GiB of bfloat16 safetensors")
print(f"fts export --quant q4_k_m:            {fs:7.1f} s, peak RSS {fkb / 2**20:5.2f} GiB")
print(f"convert_hf_to_gguf.py --outtype f16:  {cs:7.1f} s, peak RSS {ckb / 2**20:5.2f} GiB")
print(f"llama-quantize Q4_K_M (f16 -> q4_k_m): {qs:7.1f} s, peak RSS {qkb / 2**20:5.2f} GiB")
print(f"llama.cpp end to end:                 {peer_s:7.1f} s, peak RSS {peer_kb / 2**20:5.2f} GiB")
print(f"speed: fts {peer_s / fs:.2f}x llama.cpp's pipeline; fts peak RSS = {fkb * 1024 / model:.2f} x the model's bf16 size")
print(f"tensor types equal to llama.cpp's: {same} of {len(theirs)}")
EOF
