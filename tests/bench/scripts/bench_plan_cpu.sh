#!/usr/bin/env bash
# fts plan on the CPU (docs/benchmarks.md): for the quick-start and a 25M-parameter Llama, the variant the plan
# proposes (4 probes) against the best of an exhaustive probe (every variant that fits), both measured in the
# exhaustive run so that the ratio compares like with like, and the time the plan takes.
#   [MODELS="quickstart m25"] tests/bench/scripts/bench_plan_cpu.sh BUILD_DIR OUT_DIR [CAPACITY]
# CAPACITY (e.g. 1GiB) sets the memory a rank may use (default: what the machine has free).
set -euo pipefail
B=$(cd "$1" && pwd); W=$2; CAP=${3:-}
P=$(cd "$(dirname "$0")/../../.." && pwd); Q=$P/resources/quickstart
FTS=$B/bin/fts
rm -rf "$W"; mkdir -p "$W/m25"
cp "$Q/model/tokenizer.json" "$Q/model/tokenizer_config.json" "$W/m25/"
python3 - "$W" "$Q" <<'PY'
import json, sys
w, q = sys.argv[1], sys.argv[2]
json.dump(dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=512, intermediate_size=1536,
               num_hidden_layers=8, num_attention_heads=8, num_key_value_heads=8, vocab_size=590,
               max_position_embeddings=512, rms_norm_eps=1e-5, rope_theta=10000.0, hidden_act="silu",
               tie_word_embeddings=False, torch_dtype="float32", bos_token_id=0, eos_token_id=0),
          open(w + "/m25/config.json", "w"), indent=1)
base = json.load(open(q + "/quickstart.json"))
for name, model, length, micro in (("quickstart", q + "/model", 128, 16), ("m25", w + "/m25", 256, 8)):
    c = json.loads(json.dumps(base))
    c["model"] = {"path": model, "init": "random"}
    c["data"].update(train=q + "/sample_stories.jsonl", max_length=length, eval_fraction=0)
    c["training"].update(output_dir=w + "/" + name + "-out", device="cpu", eval_interval=0)
    c["deepspeed"]["train_micro_batch_size_per_gpu"] = micro
    json.dump(c, open(w + "/" + name + ".json", "w"), indent=1)
PY
capacity=(); [ -n "$CAP" ] && capacity=(--capacity "$CAP")
for name in ${MODELS:-quickstart m25}; do
  t0=$(date +%s.%N)
  "$FTS" plan "$W/$name.json" --json --store "$W/runs.sqlite" "${capacity[@]}" > "$W/$name-plan.json" 2> "$W/$name-plan.log"
  t1=$(date +%s.%N)
  "$FTS" plan "$W/$name.json" --json --store "$W/runs.sqlite" --probes 64 --max-minutes 120 "${capacity[@]}" \
      > "$W/$name-all.json" 2> "$W/$name-all.log"
  python3 - "$W/$name-plan.json" "$W/$name-all.json" "$name" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json, sys
plan, full, name, seconds = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], float(sys.argv[4])
key = lambda c: c["label"]
chosen = plan["candidates"][plan["chosen"]]
measured = {key(c): c["probe"]["tokens_per_s"] for c in full["candidates"] if "probe" in c and "failure" not in c["probe"]}
best = max(measured, key=measured.get)
print(f"{name}: plan {seconds:.1f} s, {sum('probe' in c for c in plan['candidates'])} probes; chosen '{key(chosen)}'"
      f" {measured.get(key(chosen), float('nan')):.0f} tokens/s in the exhaustive run; best '{best}' {measured[best]:.0f}"
      f" tokens/s of {len(measured)} variants: {measured.get(key(chosen), 0) / measured[best]:.3f} of the best;"
      f" exhaustive probe {full['seconds']:.0f} s")
PY
done
# Six-step probes on a shared 2-core machine are noisy (a few percent to 15% between runs of the same variant), so the
# plan's choice and the exhaustive best are then run side by side for longer: 24 steps each, alternating, twice each;
# the ratio of their medians says whether the choice is really within reach of the best.
for name in ${MODELS:-quickstart m25}; do
  python3 - "$FTS" "$W" "$name" <<'PY'
import json, sqlite3, statistics, subprocess, sys
fts, w, name = sys.argv[1:]
plan, full = json.load(open(f"{w}/{name}-plan.json")), json.load(open(f"{w}/{name}-all.json"))
chosen = plan["candidates"][plan["chosen"]]
probed = [c for c in full["candidates"] if "probe" in c and "failure" not in c["probe"]]
best = max(probed, key=lambda c: c["probe"]["tokens_per_s"])
base = json.load(open(f"{w}/{name}.json"))
def variant(c, tag):
    cfg = json.loads(json.dumps(base))
    z = cfg["deepspeed"].setdefault("zero_optimization", {})
    z["stage"] = c["zero_stage"]
    cfg["deepspeed"]["train_micro_batch_size_per_gpu"] = c["train_micro_batch_size_per_gpu"]
    cfg["deepspeed"]["gradient_accumulation_steps"] = c["gradient_accumulation_steps"]
    cfg["model"]["activation_checkpointing"] = c["activation_checkpointing"]
    cfg["model"]["chunked_loss"] = c["chunked_loss"]
    cfg["training"].update(max_steps=24, save_interval=0, eval_interval=0)
    path = f"{w}/{name}-duel-{tag}.json"
    json.dump(cfg, open(path, "w"))
    return path
speeds = {"chosen": [], "best": []}
files = {"chosen": variant(chosen, "chosen"), "best": variant(best, "best")}
store = f"{w}/duel.sqlite"
for rnd in range(2):
    for who in ("chosen", "best"):
        out = f"{w}/{name}-duel-{who}-{rnd}"
        subprocess.run(["rm", "-rf", out], check=True)
        subprocess.run([fts, "train", files[who], "--store", store, "--quiet", "--output_dir", out], check=True)
        db = sqlite3.connect(store)
        rid = db.execute("select max(id) from runs").fetchone()[0]
        v = [r[0] for r in db.execute("select value from metrics where run_id=? and name='tokens_per_s' and step>1", (rid,))]
        speeds[who].append(statistics.median(v))
c, b = statistics.median(speeds["chosen"]), statistics.median(speeds["best"])
print(f"{name}: side by side, 24 steps x 2 each: chosen '{chosen['label']}' {c:.0f} tokens/s, exhaustive best "
      f"'{best['label']}' {b:.0f} tokens/s: {c / b:.3f} ({speeds})")
PY
done
