#!/usr/bin/env python3
"""Reads the output folder of tests/gpu/run_on_device.sh ($OUT) and prints what it shows: the gpu suites, the
correctness checks against transformers, the throughput table beside the HF Trainer (ratio, MFU, peak memory,
fts estimate), the section times (deepspeed.wall_clock_breakdown) and the head of each step profile.
   report.py OUTDIR [GENERATE_EXPECTED_JSON]"""
import json, os, sqlite3, statistics, sys

o = sys.argv[1]
exp_file = sys.argv[2] if len(sys.argv) > 2 else None
PEAK = 989e12  # H100/H200 SXM dense bf16, datasheet
# Llama 1.1B (hidden 2048, 22 layers, inter 5632, 32 heads, 4 kv, vocab 32000), seq 2048
d, L, I, V, kv, s = 2048, 22, 5632, 32000, 256 * 2, 2048
per_layer = d * d * 2 + d * kv + 3 * d * I
N_nonemb = L * per_layer + d * V  # lm_head counts, input embedding lookup does not
flops_tok = 6 * N_nonemb + 12 * L * d * s
lora_flops_tok = 4 * N_nonemb + 12 * L * d * s  # frozen weights: no weight-gradient products (approx.)


def show(path):
    p = os.path.join(o, path)
    return open(p).read() if os.path.exists(p) else None


print((show("gpu.txt") or "no gpu.txt").strip())
for f in sorted(os.listdir(o)):
    if f.startswith("gputest_"):
        t = show(f)
        tot = [l for l in t.splitlines() if l.startswith("Totals")]
        fails = [l for l in t.splitlines() if l.startswith("FAIL")]
        print(f"gpu suite {f[8:-4]}: {tot[0] if tot else 'no totals (crashed?)'} {' '.join(fails)[:300]}")
db = os.path.join(o, "runs.sqlite")
runs = {}
if os.path.exists(db):
    c = sqlite3.connect(db)
    for rid, name, status, err in c.execute("select id, name, status, failure_reason from runs"):
        m = {}
        for step, n, v in c.execute("select step, name, value from metrics where run_id=? order by step", (rid,)):
            m.setdefault(n, []).append((step, v))
        peak = c.execute("select max(peak) from device_samples where run_id=? and device like 'cuda%'",
                         (rid,)).fetchone()[0]
        runs[name] = dict(id=rid, status=status, error=err, metrics=m, peak=peak)
for n, r in runs.items():
    tps = [v for st, v in r["metrics"].get("tokens_per_s", []) if st > 5]
    loss = [v for st, v in r["metrics"].get("loss", [])]
    print(f"run {n}: {r['status']} {r['error'][:200]} steps={len(loss)} "
          f"tokens/s(median, step>5)={statistics.median(tps) if tps else None} peak={r['peak']}")


def losses(name):
    return [v for st, v in runs.get(name, {}).get("metrics", {}).get("loss", [])]


def cmp(a, b, la, lb):
    n = min(len(a), len(b))
    if not n:
        print(f"  {la} vs {lb}: nothing to compare ({len(a)}, {len(b)})"); return
    rel = [abs(x - y) / max(abs(y), 1e-12) for x, y in zip(a[:n], b[:n])]
    print(f"  {la} vs {lb}: {n} steps, max rel diff {max(rel):.2e}, first {a[0]:.5f}/{b[0]:.5f}, "
          f"last {a[n-1]:.5f}/{b[n-1]:.5f}")


hf32 = json.loads(show("hf_fixed_fp32.json") or "{}").get("losses", [])
hfb = json.loads(show("hf_fixed_bf16.json") or "{}").get("losses", [])
print("correctness, fixed batch (llama-small, 20 steps):")
cmp(losses("fixed32"), hf32, "fts fp32 cuda", "transformers fp32 cuda")
for st in range(4):
    cmp(losses(f"bf16_s{st}"), hfb, f"fts bf16 stage {st}", "transformers bf16 autocast")
for st in range(1, 4):
    cmp(losses(f"bf16_s{st}"), losses("bf16_s0"), f"fts bf16 stage {st}", "fts bf16 stage 0")
cmp(losses("fp16_s2"), hf32, "fts fp16 stage 2", "transformers fp32")
print("  fp16 loss scale:", [v for st, v in runs.get("fp16_s2", {}).get("metrics", {}).get("loss_scale", [])][:8])

if exp_file and os.path.exists(exp_file):
    exp = json.load(open(exp_file)); ok = tot = 0; bad = []
    for a, rows in exp.items():
        try:
            got = [json.loads(l) for l in open(os.path.join(o, f"gen_{a}.jsonl")) if l.strip().startswith("{")]
        except OSError:
            got = []
        for i, r in enumerate(rows):
            tot += 1
            if i < len(got) and got[i].get("ids") == r["new_ids"]:
                ok += 1
            else:
                bad.append(f"{a}#{i}")
    print(f"greedy generation on the GPU equal to transformers (CPU reference): {ok}/{tot} {bad}")

print("throughput, Llama 1.1B, bf16, seq 2048, micro batch 4, one GPU:")
for mode, name in (("full", "full"), ("full", "full_unfused"), ("lora", "lora"), ("qlora", "qlora"),
                   ("qlora", "qlora_ops"), ("ac", "ac"), ("s3", "stage3"), ("off_cpu_s2", "off_cpu_s2")):
    r = runs.get(name)
    hf = json.loads(show(f"hf_speed_{mode}.json") or "null")
    ft = None
    if r:
        tps = [v for st, v in r["metrics"].get("tokens_per_s", []) if st > 5]
        ft = statistics.median(tps) if tps else None
    f = lora_flops_tok if mode in ("lora", "qlora") else flops_tok * (4 / 3 if mode == "ac" else 1)
    line = f"  {name}: fts {ft and round(ft)} tok/s"
    if ft:
        line += f" (MFU {ft * f / PEAK:.1%}, peak {r['peak'] and r['peak'] / 2**30:.1f} GiB)"
    if hf:
        line += f"; HF Trainer {round(hf['tokens_per_s'])} tok/s (MFU {hf['tokens_per_s'] * f / PEAK:.1%}, " \
                f"peak {hf['peak_bytes'] / 2**30:.1f} GiB)"
        if ft:
            line += f"; ratio {ft / hf['tokens_per_s']:.2f}x"
    est = show(f"estimate_{mode}.json") if name == mode else None
    if est:
        try:
            e = json.loads(est[est.index("{"):])
            tot = e.get("per_rank", {}).get("total") or e.get("total")
            alloc = e.get("per_rank", {}).get("allocator_peak")
            line += f"; estimate total {tot and tot / 2**30:.2f} GiB, allocator {alloc and alloc / 2**30:.2f} GiB"
            if r and r["peak"] and alloc:
                line += f" (allocator estimate / measured peak {alloc / r['peak']:.3f})"
        except Exception as ex:
            line += f"; estimate unreadable ({ex}): {est.strip()[:80]}"
    if r:
        sec = {k: statistics.median([v for st, v in r["metrics"].get(k, []) if st > 5] or [float("nan")])
               for k in ("time_forward_ms", "time_backward_ms", "time_step_ms")}
        line += "\n    sections (ms/step, median): " + ", ".join(f"{k[5:-3]} {v:.1f}" for k, v in sec.items())
    if mode.startswith("off_") and ft and runs.get("full"):
        base = [v for st, v in runs["full"]["metrics"].get("tokens_per_s", []) if st > 5]
        if base:
            line += f"\n    offload / no offload: {ft / statistics.median(base):.2f}"
    prof = show(f"profile_{name}/summary.txt")
    if prof:
        line += "\n    " + "\n    ".join(prof.strip().splitlines()[:12])
    print(line)

big = runs.get("qlora_big")
if big:
    tps = [v for st, v in big["metrics"].get("tokens_per_s", []) if st > 2]
    line = (f"QLoRA, Qwen2.5-14B shape, micro batch 1 x 2048, AC: {big['status']} {big['error'][:200]}; "
            f"tokens/s {statistics.median(tps) if tps else None}; peak {big['peak'] and big['peak'] / 2**30:.2f} GiB")
    est = show("estimate_qlora_big.json")
    try:
        e = json.loads(est[est.index("{"):])
        alloc = e.get("per_rank", {}).get("allocator_peak")
        line += f"; estimate allocator {alloc / 2**30:.2f} GiB"
        if big["peak"]:
            line += f" (estimate / measured {alloc / big['peak']:.3f})"
    except Exception as ex:
        line += f"; estimate unreadable ({ex})"
    print(line)
for f in ("mkbig.log", "probe.txt", "oom.log", "estimate_oom.txt"):
    t = show(f)
    if t:
        print(f"--- {f}:"); print("\n".join(t.strip().splitlines()[-14:]))
