#!/usr/bin/env bash
# DPO on the CPU, fts vs TRL 1.16's DPOTrainer (docs/benchmarks.md): the same Llama (hidden 512, 6 layers,
# intermediate 1536, the quick-start tokenizer), the same pairs (a story's opening as the prompt, its next part as
# chosen, another story's as rejected; 256 tokens at most), full fine-tune with a frozen reference copy, fp32,
# 4 pairs per step, AdamW, the same threads. tokens/s = the median over steps 3+ of the tokens of both sides of every
# pair (TRL's num_tokens) per step; then fts's peak resident memory with the frozen copy and with the reference
# precomputed. Needs the tests' wheels (packaging/requirements-tests.txt: trl, datasets).
#   tests/bench/scripts/bench_dpo_cpu.sh BUILD_DIR [PYTHON] [THREADS] [STEPS]
set -euo pipefail
B=$(cd "$1" && pwd); PY=${2:-python3}; T=${3:-2}; S=${4:-10}
H=$(cd "$(dirname "$0")/../../.." && pwd); W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export OMP_NUM_THREADS=$T HF_HUB_OFFLINE=1 TRL_EXPERIMENTAL_SILENCE=1
"$PY" - "$W" "$H/resources/quickstart" <<'PY'
import json, shutil, sys, torch
from transformers import LlamaConfig, LlamaForCausalLM
w, qs = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
cfg = LlamaConfig(vocab_size=590, hidden_size=512, intermediate_size=1536, num_hidden_layers=6, num_attention_heads=8,
                  num_key_value_heads=4, max_position_embeddings=512, tie_word_embeddings=False)
LlamaForCausalLM(cfg).save_pretrained(w + "/model")
for f in ("tokenizer.json", "tokenizer_config.json"):
    shutil.copy(qs + "/model/" + f, w + "/model")
stories = [json.loads(l)["text"] for l in open(qs + "/sample_stories.jsonl")]
with open(w + "/pairs.jsonl", "w") as f:
    for i, s in enumerate(stories[:64]):
        other = stories[(i + 7) % len(stories)]
        f.write(json.dumps({"prompt": s[:200], "chosen": s[200:600], "rejected": other[200:600]}) + "\n")
PY
cat > "$W/dpo.json" <<JSON
{"model": {"path": "$W/model"},
 "data": {"train": "$W/pairs.jsonl", "format": "trl", "max_length": 256, "eval_fraction": 0, "shuffle": false},
 "training": {"objective": "dpo", "max_steps": $S, "log_interval": 1, "save_interval": 0, "output_dir": "$W/out",
              "device": "cpu", "learning_rate": 1e-5, "per_device_train_batch_size": 4, "max_grad_norm": 1.0},
 "preference": {"beta": 0.1},
 "deepspeed": {"train_micro_batch_size_per_gpu": "auto"}}
JSON
median() {
  "$PY" -c "
import sqlite3, statistics
c = sqlite3.connect('$1')
v = [r[0] for r in c.execute(\"select value from metrics where name='$2' and step > 2\")]
print(statistics.median(v) if v else 0)"
}
peak() { "$PY" -c "
import sqlite3
c = sqlite3.connect('$1')
print(max(r[0] for r in c.execute(\"select peak from device_samples\")) / 2**20)" 2>/dev/null || echo 0; }
"$B/bin/fts" train "$W/dpo.json" --store "$W/runs.sqlite" --quiet
FTS=$(median "$W/runs.sqlite" tokens_per_s)
FTSPEAK=$(peak "$W/runs.sqlite")
sed -e 's/"beta": 0.1}/"beta": 0.1, "precompute_ref_log_probs": true}/' -e "s#$W/out#$W/out2#" "$W/dpo.json" > "$W/pre.json"
"$B/bin/fts" train "$W/pre.json" --store "$W/runs2.sqlite" --quiet
PRE=$(median "$W/runs2.sqlite" tokens_per_s)
PREPEAK=$(peak "$W/runs2.sqlite")
REF=$("$PY" - "$W" "$S" "$T" <<'PY' 2>/dev/null
import statistics, sys, time, torch
from datasets import load_dataset
from transformers import AutoTokenizer, LlamaForCausalLM, TrainerCallback
from trl import DPOConfig, DPOTrainer
w, steps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
tok = AutoTokenizer.from_pretrained(w + "/model")
if tok.pad_token is None: tok.pad_token = tok.eos_token
class Clock(TrainerCallback):
    def __init__(self): self.t, self.times = 0.0, []
    def on_step_begin(self, *a, **k): self.t = time.perf_counter()
    def on_step_end(self, *a, **k): self.times.append(time.perf_counter() - self.t)
clock = Clock()
args = DPOConfig(output_dir=w + "/trl", max_steps=steps, per_device_train_batch_size=4, learning_rate=1e-5,
                 logging_steps=1, save_strategy="no", report_to="none", bf16=False, use_cpu=True,
                 gradient_checkpointing=False, optim="adamw_torch", beta=0.1, max_length=256,
                 train_sampling_strategy="sequential", disable_tqdm=True, dataloader_num_workers=0)
tr = DPOTrainer(model=LlamaForCausalLM.from_pretrained(w + "/model"),
                ref_model=LlamaForCausalLM.from_pretrained(w + "/model"), args=args,
                train_dataset=load_dataset("json", data_files=w + "/pairs.jsonl")["train"], processing_class=tok,
                callbacks=[clock])
tr.train()
tokens = [r["num_tokens"] for r in tr.state.log_history if "num_tokens" in r]
per_step = [b - a for a, b in zip([0] + tokens[:-1], tokens)]
rates = [n / t for n, t in zip(per_step, clock.times)]
print(statistics.median(rates[2:]))
PY
)
REF=$(tail -n 1 <<< "$REF")  # the figure (libraries may print warnings before it)
"$PY" -c "print(f'DPO CPU, {$T} threads: fts {$FTS:.0f} tokens/s (reference precomputed: {$PRE:.0f}), TRL DPOTrainer {$REF:.0f} tokens/s, ratio {$FTS/$REF:.2f}x; fts peak memory: frozen copy {$FTSPEAK:.0f} MiB, precomputed {$PREPEAK:.0f} MiB')"
