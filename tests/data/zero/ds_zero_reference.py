# DeepSpeed's own ZeRO as the reference for fts's (tests/integration/test_zero_deepspeed.cpp): DeepSpeed 0.19.8 on
# CPU (DS_ACCELERATOR=cpu, gloo), N local ranks, the same tiny GPT-2, data and `deepspeed` config section as fts.
#   prepare OUT QUICKSTART_MODEL STORIES BLOCKS BLOCK_LEN [tiny|quickstart]
#       writes OUT/model (a seeded random GPT-2 as safetensors + the quick-start tokenizer: "tiny" (default) is 2
#       layers of width 32, "quickstart" the quick-start model's own shape) and
#       OUT/stories.jsonl holding exactly BLOCKS blocks of BLOCK_LEN tokens (fts's "lm" rule: each document's
#       tokens then EOS unless it already ends with it; the tail shorter than a block is dropped), and
#       OUT/blocks.json (those blocks).
#   run CONFIG BLOCKS_JSON OUT_JSON NPROC STEPS STAGE [STAGE...]
#       trains STEPS optimizer steps per stage from the same weights and writes {"<stage>": {"loss": [per step],
#       "step_seconds": [wall time per step on rank 0]} or {"error": "..."}} to OUT_JSON. The global batch is
#       all the blocks: every step sees the whole data set, so neither side's sampling order matters and the
#       per-step losses are comparable.
# Ranks are plain subprocesses of this script (mode "worker") with torch.distributed's env:// variables.
import copy
import json
import os
import socket
import subprocess
import sys
import time


def prepare(out, qs_model, stories, n_blocks, block_len, size):
    import torch
    from tokenizers import Tokenizer
    from transformers import GPT2Config, GPT2LMHeadModel

    os.makedirs(os.path.join(out, "model"), exist_ok=True)
    cfg = json.load(open(os.path.join(qs_model, "config.json")))
    if size == "tiny":
        cfg.update({"n_embd": 32, "n_layer": 2, "n_head": 2, "n_positions": 64})
    cfg.update({"attn_pdrop": 0.0, "embd_pdrop": 0.0, "resid_pdrop": 0.0})
    torch.manual_seed(1234)
    model = GPT2LMHeadModel(GPT2Config(**cfg))
    model.save_pretrained(os.path.join(out, "model"))
    for f in ("tokenizer.json", "tokenizer_config.json"):
        with open(os.path.join(qs_model, f), "rb") as src, open(os.path.join(out, "model", f), "wb") as dst:
            dst.write(src.read())

    tok = Tokenizer.from_file(os.path.join(qs_model, "tokenizer.json"))
    eos = tok.token_to_id("<|endoftext|>")
    want_lo, want_hi = n_blocks * block_len, (n_blocks + 1) * block_len  # total tokens in [lo, hi)
    chosen, tokens = [], []
    for line in open(stories, encoding="utf-8"):
        text = json.loads(line)["text"]
        ids = tok.encode(text).ids
        if not ids or ids[-1] != eos:
            ids = ids + [eos]
        if len(tokens) + len(ids) >= want_hi:
            continue  # would overshoot: try a shorter story
        chosen.append(line)
        tokens += ids
        if len(tokens) >= want_lo:
            break
    if len(tokens) < want_lo:
        sys.exit(f"prepare: could not assemble {want_lo}..{want_hi - 1} tokens from {stories}")
    with open(os.path.join(out, "stories.jsonl"), "w", encoding="utf-8") as f:
        f.writelines(chosen)
    blocks = [tokens[i * block_len:(i + 1) * block_len] for i in range(n_blocks)]
    json.dump(blocks, open(os.path.join(out, "blocks.json"), "w"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(config, blocks_json, out_json, nproc, steps, stages):
    env = dict(os.environ, DS_ACCELERATOR="cpu", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
               WORLD_SIZE=str(nproc), OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    procs = []
    for r in range(nproc):
        e = dict(env, RANK=str(r), LOCAL_RANK=str(r))
        args = [sys.executable, __file__, "worker", config, blocks_json, out_json, str(steps)] + [str(s) for s in stages]
        procs.append(subprocess.Popen(args, env=e))
    codes = [p.wait(timeout=600) for p in procs]
    if any(codes):
        sys.exit(f"run: rank exit codes {codes}")


def worker(config, blocks_json, out_json, steps, stages):
    import torch
    import torch.distributed as dist
    import deepspeed
    from transformers import GPT2LMHeadModel

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    deepspeed.init_distributed(dist_backend="gloo")
    cfg = json.load(open(config))
    model_dir = cfg["model"]["path"]
    blocks = torch.tensor(json.load(open(blocks_json)), dtype=torch.long)  # (B, T)
    base = cfg["deepspeed"]
    micro, gas = base["train_micro_batch_size_per_gpu"], base["gradient_accumulation_steps"]
    if micro * gas * world != blocks.shape[0]:
        sys.exit(f"worker: micro {micro} x accumulation {gas} x ranks {world} != {blocks.shape[0]} blocks")
    results = {}
    for stage in stages:
        try:
            ds = copy.deepcopy(base)
            ds["zero_optimization"] = dict(ds.get("zero_optimization", {}), stage=stage)
            ds.pop("train_batch_size", None)
            off = ds["zero_optimization"].get("offload_optimizer") or {}
            if off.get("device", "none") == "none":
                ds["optimizer"]["params"]["torch_adam"] = True  # torch.optim.AdamW: no C++/CUDA op build on CPU
            else:  # ZeRO-Offload: DeepSpeedCPUAdam (JIT-built on CPU); nvme is host memory at stages 1-2 in DeepSpeed
                ds["zero_optimization"]["offload_optimizer"] = {"device": "cpu"}
            ds["zero_allow_untested_optimizer"] = True
            ds["steps_per_print"] = 1 << 30
            model = GPT2LMHeadModel.from_pretrained(model_dir)
            engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=list(model.parameters()), config=ds)
            losses, seconds = [], []
            for _ in range(steps):
                start = time.perf_counter()
                total = 0.0
                for m in range(gas):
                    # This rank's micro-batch m: a fixed slice; the step covers all blocks on all ranks.
                    first = (rank * gas + m) * micro
                    ids = blocks[first:first + micro]
                    loss = engine(input_ids=ids, labels=ids).loss
                    engine.backward(loss)
                    engine.step()
                    total += loss.item() / gas
                t = torch.tensor([total], dtype=torch.float64)
                dist.all_reduce(t)
                losses.append(t.item() / world)
                seconds.append(time.perf_counter() - start)
            results[str(stage)] = {"loss": losses, "step_seconds": seconds}
            engine.destroy()
            del engine, model
        except Exception as e:  # recorded: the test says which stage DeepSpeed could not run and why
            results[str(stage)] = {"error": f"{type(e).__name__}: {e}"}
            dist.barrier()
    if rank == 0:
        json.dump(results, open(out_json, "w"), indent=1)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mode, a = sys.argv[1], sys.argv[2:]
    if mode == "prepare":
        prepare(a[0], a[1], a[2], int(a[3]), int(a[4]), a[5] if len(a) > 5 else "tiny")
    elif mode == "run":
        run(a[0], a[1], a[2], int(a[3]), int(a[4]), [int(s) for s in a[5:]])
    elif mode == "worker":
        worker(a[0], a[1], a[2], int(a[3]), [int(s) for s in a[4:]])
    else:
        sys.exit(f"unknown mode {mode}")
