"""QLoRA on the CPU with transformers + bitsandbytes + PEFT: the reference of tests/core/model/test_qlora_golden.cpp.

usage:
  bnb_qlora_reference.py prep OUT TOKENIZER_DIR QUANT_TYPE DOUBLE_QUANT [FAMILY]
      OUT/base          a tiny float32 model of FAMILY (llama by default; qwen3, gemma2, gemma3_text, phi3, olmo2,
                        granite, smollm3: every
                        input width a multiple of 64, which bitsandbytes' CPU path needs), the quick-start's vocab
                        (QUANT_TYPE none: no 4-bit model; LoRA over the float32 base; qwen3_moe: its experts
                        adapted too, PEFT's target_parameters)
      OUT/q4            the same loaded with BitsAndBytesConfig(load_in_4bit, QUANT_TYPE, DOUBLE_QUANT, float32
                        compute) and saved as transformers saves a 4-bit model
      OUT/fixed.jsonl   one document of exactly L-1 tokens, repeated (every "lm" block of L tokens is the same)
      OUT/adapter0      PEFT's freshly initialised adapter (r=4, alpha=8, all linear layers, no dropout), seed 7
      OUT/ref.safetensors  logits of the 4-bit model on the batch (before training), and of the adapted model after
                        20 steps; ref.json: the per-step losses
  bnb_qlora_reference.py check OUT ADAPTER MERGED RESULT
      RESULT.safetensors: logits of the 4-bit base with ADAPTER loaded by PEFT, and of MERGED loaded by transformers
"""
import json
import os
import shutil
import sys

import torch
from safetensors.torch import save_file
from transformers import AutoConfig, AutoModelForCausalLM, BitsAndBytesConfig

torch.set_num_threads(1)
L, B, STEPS = 32, 2, 20


def bnb_config(quant_type, double_quant):
    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=quant_type,
                              bnb_4bit_use_double_quant=double_quant, bnb_4bit_compute_dtype=torch.float32)


def load_q4(out):
    meta = json.load(open(os.path.join(out, "ref.json")))
    model = AutoModelForCausalLM.from_pretrained(os.path.join(out, "base"), device_map="cpu", dtype=torch.float32,
                                             quantization_config=bnb_config(meta["quant_type"], meta["double_quant"]))
    # Training mode (no dropout in this model): in eval mode on a CPU with AVX512-BF16, bitsandbytes 0.50 repacks
    # the weights into a bfloat16 inference format (absmax rounded to bf16), an approximation of its own 4-bit
    # arithmetic that training never uses; the reference is the exact path.
    model.train()
    return model


def batch(out):
    ids = json.load(open(os.path.join(out, "ref.json")))["ids"]
    return torch.tensor([ids] * B)


# The families beyond Llama (issue 48), each with q/k/v/o, MLP and norm inputs 64 or 128 wide.
FAMILY_KEYS = {
    "llama": {},
    "qwen3": {"head_dim": 32},
    "gemma2": {"head_dim": 16, "query_pre_attn_scalar": 16, "sliding_window": 8, "attn_logit_softcapping": 5.0,
               "final_logit_softcapping": 10.0, "pad_token_id": 0},
    "gemma3_text": {"head_dim": 16, "query_pre_attn_scalar": 16, "sliding_window": 8, "sliding_window_pattern": 2,
                    "pad_token_id": 0},
    "phi3": {"pad_token_id": 0},
    "olmo2": {"pad_token_id": 0},
    "granite": {"embedding_multiplier": 6.0, "attention_multiplier": 0.1, "residual_multiplier": 0.4,
                "logits_scaling": 3.0},
    "smollm3": {"no_rope_layer_interval": 2, "use_sliding_window": True, "sliding_window": 8, "pad_token_id": 0},
    # a mixture of experts (QUANT_TYPE none: its experts are not Linear layers), layer 1 dense, the load-balancing loss
    # in the loss; LoRA also on the experts through target_parameters
    "qwen3_moe": {"head_dim": 16, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 64,
                  "mlp_only_layers": [1], "norm_topk_prob": True, "output_router_logits": True,
                  "router_aux_loss_coef": 0.05},
}
MOE = {"qwen3_moe"}


def prep(out, tokenizer_dir, quant_type, double_quant, family="llama"):
    from tokenizers import Tokenizer
    from peft import LoraConfig, get_peft_model
    double_quant = double_quant == "1"
    tok = Tokenizer.from_file(os.path.join(tokenizer_dir, "tokenizer.json"))
    vocab = tok.get_vocab_size()
    torch.manual_seed(0)
    cfg = AutoConfig.for_model(family, vocab_size=vocab, hidden_size=64, intermediate_size=192, num_hidden_layers=2,
                               num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                               tie_word_embeddings=False, bos_token_id=0, eos_token_id=0, **FAMILY_KEYS[family])
    base = os.path.join(out, "base")
    model = AutoModelForCausalLM.from_config(cfg)
    if family != "llama":  # norms start at 1 (Gemma: 0): perturbed so that a norm read wrongly shows
        with torch.no_grad():
            for _, p in model.named_parameters():
                if p.dim() == 1:
                    p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(base)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(tokenizer_dir, f), base)
    # one document of L-1 tokens: words of a fixed text until the budget, padded with single letters
    words = ("once upon a time there was a little dog who liked to run in the park with his friends every "
             "morning before the sun came up and the birds began to sing").split()
    text = ""
    for w in words:
        t = (text + " " + w) if text else w
        if len(tok.encode(t).ids) > L - 1:
            break
        text = t
    for _ in range(64):
        n = len(tok.encode(text).ids)
        if n == L - 1:
            break
        text += " a" if n < L - 2 else "a" if len(tok.encode(text + "a").ids) == L - 1 else "."
    ids = tok.encode(text).ids
    assert len(ids) == L - 1, len(ids)
    ids = ids + [0]  # the document's end (eos) closes the block
    with open(os.path.join(out, "fixed.jsonl"), "w") as f:
        for _ in range(64):
            f.write(json.dumps({"text": text}) + "\n")
    json.dump({"ids": ids, "quant_type": quant_type, "double_quant": double_quant},
              open(os.path.join(out, "ref.json"), "w"))

    if quant_type == "none":  # LoRA over the float32 base (a mixture of experts' reference)
        q = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32).train()
    else:
        q = load_q4(out)
        q.save_pretrained(os.path.join(out, "q4"))
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(tokenizer_dir, f), os.path.join(out, "q4"))
    x = batch(out)
    ref = {}
    with torch.no_grad():
        ref["logits_base"] = q(input_ids=x).logits.contiguous()
    torch.manual_seed(7)
    # a mixture of experts: the attention by name, the experts as target_parameters (naming gate_proj, up_proj or
    # down_proj, or "all-linear", makes PEFT 0.21 retarget them as transformers 4's per-expert layers: the router, and
    # gate_up_proj at rank 2r through rank_pattern)
    moe = family in MOE
    targets = ["q_proj", "k_proj", "v_proj", "o_proj"] if moe else "all-linear"
    experts = ["mlp.experts.gate_up_proj", "mlp.experts.down_proj"] if moe else None
    model = get_peft_model(q, LoraConfig(r=4, lora_alpha=8, target_modules=targets, lora_dropout=0.0,
                                         target_parameters=experts, task_type="CAUSAL_LM"))
    assert not model.peft_config["default"].rank_pattern, model.peft_config["default"].rank_pattern
    model.save_pretrained(os.path.join(out, "adapter0"))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)
    losses = []
    for _ in range(STEPS):
        loss = model(input_ids=x, labels=x).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    with torch.no_grad():
        ref["logits_trained"] = model(input_ids=x).logits.contiguous()
    save_file(ref, os.path.join(out, "ref.safetensors"))
    meta = json.load(open(os.path.join(out, "ref.json")))
    meta["losses"] = losses
    json.dump(meta, open(os.path.join(out, "ref.json"), "w"))


def check(out, adapter, merged, result):
    from peft import PeftModel
    x = batch(out)
    res = {}
    with torch.no_grad():
        adapted = PeftModel.from_pretrained(load_q4(out), adapter)
        adapted.train()  # from_pretrained leaves eval mode: bitsandbytes' bf16 repacking (see load_q4)
        res["logits_adapter"] = adapted(input_ids=x).logits.contiguous()
        m = AutoModelForCausalLM.from_pretrained(merged, dtype=torch.float32)
        m.train()
        res["logits_merged"] = m(input_ids=x).logits.contiguous()
    save_file(res, result)


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    {"prep": prep, "check": check}[cmd](*args)
