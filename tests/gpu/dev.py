#!/usr/bin/env python3
"""Device check helper (runs on the GPU machine, also on CPU for a dry run).

prep   MODELS DATA L B        : fixed-batch data (every lm block identical) + shared init weights for llama-small
cfg    OUT.json key=value ... : writes an fts config from a template (dotted keys, JSON values)
hf-fixed MODEL IDS STEPS DTYPE OUT : HF transformers on the same fixed batch, per-step losses (the reference)
hf-speed MODEL MB SEQ STEPS MODE OUT : HF Trainer throughput (bf16 AMP, fused AdamW, SDPA); MODE full|lora|ac
hf-profile MODEL MB SEQ OUT   : torch.profiler over 3 steps of the Trainer's step (autocast bf16, fused AdamW, SDPA,
                                clipping): the kernels by CUDA time, to set beside fts's training.profile
"""
import json, os, sys, time, statistics

DEV = os.environ.get("DEV_DEVICE", "cuda")


def prep(models, data, L, B):
    from tokenizers import Tokenizer
    L, B = int(L), int(B)
    tok = Tokenizer.from_file(f"{models}/llama-small/tokenizer.json")
    words = []
    for line in open(f"{data}/stories.jsonl"):
        words += json.loads(line)["text"].split(" ")
        if len(words) > 4 * L:
            break
    text = ""
    for w in words:
        t = (text + " " + w) if text else w
        if len(tok.encode(t).ids) > L - 1:
            break
        text = t
    # pad to exactly L-1 tokens with single characters
    for _ in range(64):
        n = len(tok.encode(text).ids)
        if n == L - 1:
            break
        text += " a" if n < L - 2 else "a" if len(tok.encode(text + "a").ids) == L - 1 else "."
    ids = tok.encode(text).ids
    assert len(ids) == L - 1, len(ids)
    eos = 0
    with open(f"{data}/fixed.jsonl", "w") as f:
        for _ in range(max(64, 4 * B)):
            f.write(json.dumps({"text": text}) + "\n")
    json.dump([ids + [eos]] * B, open(f"{data}/fixed_ids.json", "w"))
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(1234)
    m = LlamaForCausalLM(LlamaConfig.from_pretrained(f"{models}/llama-small"))
    m.save_pretrained(f"{models}/llama-small", safe_serialization=True)
    print("prep: doc of", len(ids) + 1, "tokens; init weights saved")


def setkey(d, dotted, value):
    keys = dotted.split(".")
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    if value == "__del__":
        d.pop(keys[-1], None)
    else:
        d[keys[-1]] = value


def cfg(out, *kv):
    base = {
        "model": {"path": "", "init": "random"},
        "data": {"train": "", "format": "lm", "text_field": "text", "eval_fraction": 0, "max_length": 256},
        "training": {"max_steps": 20, "log_interval": 1, "save_interval": 0, "output_dir": "", "seed": 42,
                     "device": DEV, "keep_checkpoints": 1},
        "deepspeed": {
            "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 1, "gradient_clipping": 1.0,
            "bf16": {"enabled": False},
            "optimizer": {"type": "AdamW", "params": {"lr": 1e-3, "betas": [0.9, 0.95], "eps": 1e-8,
                                                      "weight_decay": 0.0}},
            "zero_optimization": {"stage": 0},
        },
    }
    for item in kv:
        k, v = item.split("=", 1)
        try:
            v = json.loads(v)
        except json.JSONDecodeError:
            pass
        setkey(base, k, v)
    json.dump(base, open(out, "w"), indent=1)


def hf_fixed(model_dir, ids_file, steps, dtype, out):
    import torch
    from transformers import LlamaForCausalLM
    torch.manual_seed(0)
    m = LlamaForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32, attn_implementation="sdpa").to(DEV)
    ids = torch.tensor(json.load(open(ids_file)), device=DEV)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)
    losses = []
    for _ in range(int(steps)):
        with torch.autocast(DEV, dtype=torch.bfloat16 if dtype == "bf16" else torch.float16,
                            enabled=dtype in ("bf16", "fp16")):
            loss = m(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    json.dump({"dtype": dtype, "losses": losses}, open(out, "w"))
    print("hf-fixed", dtype, ["%.5f" % x for x in losses[:3]], "...", "%.5f" % losses[-1])


def mkweights(model_dir, out):
    import torch, shutil
    from transformers import AutoConfig, LlamaForCausalLM
    torch.manual_seed(0)
    with torch.device(DEV):
        m = LlamaForCausalLM._from_config(AutoConfig.from_pretrained(model_dir), torch_dtype=torch.bfloat16)
    m.save_pretrained(out, safe_serialization=True)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(model_dir, f), out)


def mkbig(out, shape, tokenizer_dir):
    """A model folder with random bfloat16 weights in the shape of Qwen2.5-7B or -14B (sharded safetensors, the
    quick-start tokenizer: its ids are a subset of the vocabulary), written tensor by tensor from the GPU."""
    import torch, shutil
    from safetensors.torch import save_file
    dims = {"7b": (3584, 18944, 28, 28, 4), "14b": (5120, 13824, 48, 40, 8), "tiny": (256, 512, 2, 4, 2)}[shape]
    d, inter, layers, heads, kv = dims
    V, hd = 152064, d // dims[3]
    os.makedirs(out, exist_ok=True)
    json.dump(dict(architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=d, intermediate_size=inter,
                   num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv, vocab_size=V,
                   max_position_embeddings=32768, rope_theta=1000000.0, rms_norm_eps=1e-6, hidden_act="silu",
                   tie_word_embeddings=False, torch_dtype="bfloat16", bos_token_id=0, eos_token_id=0,
                   use_sliding_window=False), open(f"{out}/config.json", "w"), indent=1)
    g = torch.Generator(device=DEV).manual_seed(0)

    def rnd(*shape):
        return (torch.randn(*shape, generator=g, device=DEV, dtype=torch.bfloat16) * 0.02).cpu()

    index, shard, size, n = {}, {}, 0, 0

    def flush():
        nonlocal shard, size, n
        if shard:
            name = f"model-{n:05d}.safetensors"
            save_file(shard, f"{out}/{name}", metadata={"format": "pt"})
            index.update({k: name for k in shard}); shard, size, n = {}, 0, n + 1

    def add(k, t):
        nonlocal size
        shard[k] = t; size += t.numel() * 2
        if size > 4 << 30:
            flush()

    add("model.embed_tokens.weight", rnd(V, d))
    for i in range(layers):
        p = f"model.layers.{i}."
        add(p + "input_layernorm.weight", torch.ones(d, dtype=torch.bfloat16))
        add(p + "post_attention_layernorm.weight", torch.ones(d, dtype=torch.bfloat16))
        for nm, o, iw in (("q", heads * hd, d), ("k", kv * hd, d), ("v", kv * hd, d)):
            add(p + f"self_attn.{nm}_proj.weight", rnd(o, iw)); add(p + f"self_attn.{nm}_proj.bias", rnd(o))
        add(p + "self_attn.o_proj.weight", rnd(d, heads * hd))
        add(p + "mlp.gate_proj.weight", rnd(inter, d)); add(p + "mlp.up_proj.weight", rnd(inter, d))
        add(p + "mlp.down_proj.weight", rnd(d, inter))
    add("model.norm.weight", torch.ones(d, dtype=torch.bfloat16))
    add("lm_head.weight", rnd(V, d))
    flush()
    json.dump({"metadata": {}, "weight_map": index}, open(f"{out}/model.safetensors.index.json", "w"))
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(tokenizer_dir, f), out)
    print("mkbig", out, shape, n, "shards")


def hf_speed(model_dir, mb, seq, steps, mode, out):
    import torch
    from transformers import (AutoConfig, LlamaForCausalLM, Trainer, TrainingArguments, TrainerCallback)
    mb, seq, steps = int(mb), int(seq), int(steps)
    config = AutoConfig.from_pretrained(model_dir)
    torch.manual_seed(0)
    if mode == "qlora":  # PEFT over bitsandbytes' NF4 base (double quant, bf16 compute), as QLoRA recipes load it
        from transformers import BitsAndBytesConfig
        bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                                 bnb_4bit_compute_dtype=torch.bfloat16)
        model = LlamaForCausalLM.from_pretrained(model_dir, quantization_config=bnb, torch_dtype=torch.bfloat16,
                                                 attn_implementation="sdpa",
                                                 device_map={"": 0 if DEV == "cuda" else DEV})
    else:
        # LoRA: the frozen base in bfloat16, as LLaMA-Factory and PEFT recipes load it (torch_dtype=bfloat16); the
        # full fine-tune and checkpointing in float32 under bf16 autocast (the Trainer's bf16=True)
        dtype = torch.bfloat16 if mode == "lora" else torch.float32
        with torch.device(DEV):
            model = LlamaForCausalLM._from_config(config, attn_implementation="sdpa", torch_dtype=dtype)
    if mode in ("lora", "qlora"):
        from peft import LoraConfig, get_peft_model
        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear",
                                                 task_type="CAUSAL_LM"))

    class DS(torch.utils.data.Dataset):
        def __init__(self):
            g = torch.Generator().manual_seed(0)
            self.x = torch.randint(0, config.vocab_size, (256, seq), generator=g)
        def __len__(self):
            return len(self.x)
        def __getitem__(self, i):
            return {"input_ids": self.x[i], "labels": self.x[i]}

    times = []

    class CB(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            times.append(time.perf_counter())

    args = TrainingArguments(output_dir="/tmp/hf_out", per_device_train_batch_size=mb, max_steps=steps, bf16=True,
                             optim="adamw_torch_fused", learning_rate=1e-4, weight_decay=0.0, max_grad_norm=1.0,
                             lr_scheduler_type="constant", logging_steps=1, save_strategy="no", report_to=[],
                             gradient_checkpointing=(mode == "ac"), dataloader_num_workers=2,
                             disable_tqdm=True)
    torch.cuda.reset_peak_memory_stats()
    Trainer(model=model, args=args, train_dataset=DS(), callbacks=[CB()]).train()
    d = [b - a for a, b in zip(times, times[1:])][4:]
    med = statistics.median(d)
    r = {"mode": mode, "mb": mb, "seq": seq, "step_s_median": med, "tokens_per_s": mb * seq / med,
         "peak_bytes": torch.cuda.max_memory_allocated(), "steps_timed": len(d)}
    json.dump(r, open(out, "w"))
    print("hf-speed", json.dumps(r))


def hf_profile(model_dir, mb, seq, out):
    import torch
    from transformers import AutoConfig, LlamaForCausalLM
    mb, seq = int(mb), int(seq)
    config = AutoConfig.from_pretrained(model_dir)
    torch.manual_seed(0)
    with torch.device(DEV):
        model = LlamaForCausalLM._from_config(config, attn_implementation="sdpa", torch_dtype=torch.float32)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randint(0, config.vocab_size, (mb, seq), device=DEV)

    def step():
        with torch.autocast(DEV, dtype=torch.bfloat16):
            loss = model(input_ids=x, labels=x).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(3):
            step()
        torch.cuda.synchronize()
    with open(out, "w") as f:
        f.write(p.key_averages().table(sort_by="cuda_time_total", row_limit=45, max_name_column_width=90))
    print("hf-profile written", out)


if __name__ == "__main__":
    cmd, *a = sys.argv[1:]
    {"prep": prep, "cfg": cfg, "mkweights": mkweights, "hf-fixed": hf_fixed, "hf-speed": hf_speed,
     "hf-profile": hf_profile, "mkbig": mkbig}[cmd](*a)
