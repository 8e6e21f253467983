#!/usr/bin/env bash
# QLoRA training on the CPU, fts vs PEFT + bitsandbytes (docs/benchmarks.md): the same Llama (hidden 512, 6 layers,
# intermediate 1536, the quick-start tokenizer's vocabulary), NF4 with double quantization, float32 compute, LoRA
# r=16 on all linear layers, micro-batch 4 x 256 tokens, AdamW, the same threads; tokens/s = the median of steps 3+.
#   tests/bench/scripts/bench_qlora_cpu.sh BUILD_DIR [PYTHON] [THREADS] [STEPS]
set -euo pipefail
B=$(cd "$1" && pwd); PY=${2:-python3}; T=${3:-2}; S=${4:-12}
H=$(cd "$(dirname "$0")/../../.." && pwd); W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export OMP_NUM_THREADS=$T
"$PY" - "$W" "$H/resources/quickstart/model" <<'PY'
import json, shutil, sys, torch
from transformers import LlamaConfig, LlamaForCausalLM
w, tok = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
cfg = LlamaConfig(vocab_size=590, hidden_size=512, intermediate_size=1536, num_hidden_layers=6, num_attention_heads=8,
                  num_key_value_heads=4, max_position_embeddings=512, tie_word_embeddings=False)
LlamaForCausalLM(cfg).save_pretrained(w + "/model")
for f in ("tokenizer.json", "tokenizer_config.json"):
    shutil.copy(tok + "/" + f, w + "/model")
with open(w + "/data.jsonl", "w") as f:
    for line in open(tok + "/../sample_stories.jsonl"):
        f.write(line)
PY
cat > "$W/qlora.json" <<JSON
{"model": {"path": "$W/model", "lora": {"r": 16, "lora_alpha": 32, "target_modules": "all-linear"},
           "quantization": {"load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true,
                            "bnb_4bit_compute_dtype": "float32"}},
 "data": {"train": "$W/data.jsonl", "max_length": 256, "eval_fraction": 0},
 "training": {"max_steps": $S, "log_interval": 1, "save_interval": 0, "output_dir": "$W/out", "device": "cpu"},
 "deepspeed": {"train_micro_batch_size_per_gpu": 4, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}}
JSON
"$B/bin/fts" train "$W/qlora.json" --store "$W/runs.sqlite" --quiet
FTS=$("$PY" -c "
import sqlite3, statistics, sys
c = sqlite3.connect('$W/runs.sqlite')
v = [r[0] for r in c.execute(\"select value from metrics where name='tokens_per_s' and step > 2\")]
print(statistics.median(v))")
REF=$("$PY" - "$W" "$S" "$T" <<'PY' 2>/dev/null
import statistics, sys, time, torch
from transformers import BitsAndBytesConfig, LlamaForCausalLM
from peft import LoraConfig, get_peft_model
w, steps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
q = LlamaForCausalLM.from_pretrained(w + "/model", dtype=torch.float32, device_map="cpu",
        quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                               bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.float32))
m = get_peft_model(q, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM"))
m.train()
opt = torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=1e-4)
x = torch.randint(0, 590, (4, 256))
times = []
for _ in range(steps):
    t0 = time.perf_counter()
    m(input_ids=x, labels=x).loss.backward()
    torch.nn.utils.clip_grad_norm_([p for p in m.parameters() if p.requires_grad], 1.0)
    opt.step(); opt.zero_grad(set_to_none=True)
    times.append(time.perf_counter() - t0)
print(4 * 256 / statistics.median(times[2:]))
PY
)
"$PY" -c "print(f'QLoRA CPU, {$T} threads: fts {$FTS:.0f} tokens/s, PEFT + bitsandbytes {$REF:.0f} tokens/s, ratio {$FTS/$REF:.2f}x')"
