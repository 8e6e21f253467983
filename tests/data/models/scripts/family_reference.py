#!/usr/bin/env python3
"""Per-family reference numerics from Hugging Face transformers, generated at test time (tests/core/model).

  family_reference.py make OUT_ROOT   one tiny random model per decoder family (qwen3, gemma2, gemma3_text, phi3,
                                      olmo2, granite, smollm3, the mixtures of experts mixtral, qwen3_moe and
                                      gpt_oss, and
                                      the first three as a control), save_pretrained()s it to OUT_ROOT/<case>/
                                      and writes there inputs.safetensors (a padded batch: input_ids, attention_mask,
                                      labels; a packed row: packed_ids, position_ids) and reference.safetensors (fp32
                                      logits of the padded batch, grad.<name> of its loss for every parameter, the
                                      packed row's logits) + reference.json (loss, num_parameters, greedy tokens of
                                      a prompt, and the case's family). Eager attention, float32.

Only transformers' public API is used; no modeling code lives here.
"""
import json
import os
import sys

import torch
from safetensors.torch import save_file

import transformers
from transformers import AutoConfig, AutoModelForCausalLM

VOCAB = 512


def base(**kw):
    d = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=64, initializer_range=0.1, tie_word_embeddings=False,
             bos_token_id=1, eos_token_id=2)
    d.update(kw)
    return d


# case -> (model_type, config kwargs, padded sequence length)
CASES = {
    "llama": ("llama", base(attention_bias=True), 20),
    "mistral": ("mistral", base(sliding_window=7), 20),
    "qwen2": ("qwen2", base(tie_word_embeddings=True), 20),
    # head_dim set apart from hidden / heads (Qwen3's default is 128, not the division)
    "qwen3": ("qwen3", base(head_dim=32, num_hidden_layers=3), 20),
    # soft-capping small enough to bend the scores and logits; every other layer windowed (window < seq)
    "gemma2": ("gemma2", base(head_dim=16, num_hidden_layers=3, query_pre_attn_scalar=24, sliding_window=6,
                              attn_logit_softcapping=2.0, final_logit_softcapping=3.0, pad_token_id=0,
                              tie_word_embeddings=True), 20),
    # two rotary bases (full: linear scaling), windowed layers from sliding_window_pattern, capped logits
    "gemma3_text": ("gemma3_text", base(head_dim=16, num_hidden_layers=4, query_pre_attn_scalar=16, sliding_window=5,
                                        sliding_window_pattern=2, final_logit_softcapping=4.0, pad_token_id=0,
                                        rope_parameters={"full_attention": {"rope_type": "linear", "factor": 2.0,
                                                                            "rope_theta": 1000000.0},
                                                         "sliding_attention": {"rope_type": "default",
                                                                               "rope_theta": 10000.0}},
                                        tie_word_embeddings=True), 20),
    # partial rotary (8 of 16 features) and LongRoPE: a 20-token batch is past original_max_position_embeddings (16)
    "phi3": ("phi3", base(max_position_embeddings=64, original_max_position_embeddings=16, pad_token_id=0,
                          rope_parameters={"rope_type": "longrope", "rope_theta": 10000.0, "partial_rotary_factor": 0.5,
                                           "short_factor": [1.0, 1.25, 1.5, 2.0],
                                           "long_factor": [1.5, 2.5, 4.0, 6.0]}), 20),
    "olmo2": ("olmo2", base(pad_token_id=0), 20),
    # the four scalars set apart from 1
    "granite": ("granite", base(embedding_multiplier=6.0, attention_multiplier=0.1, residual_multiplier=0.4,
                                logits_scaling=3.0, mlp_bias=True), 20),
    # mixture of experts: 4 experts, 2 per token, the load-balancing loss in the loss (weighted so that it shows)
    "mixtral": ("mixtral", base(num_local_experts=4, num_experts_per_tok=2, output_router_logits=True,
                                router_aux_loss_coef=0.05), 20),
    # 4 experts of their own width, the top 2 renormalised, layer 1 dense (mlp_only_layers), the auxiliary loss on
    "qwen3_moe": ("qwen3_moe", base(head_dim=16, num_hidden_layers=3, num_experts=4, num_experts_per_tok=2,
                                    moe_intermediate_size=24, mlp_only_layers=[1], norm_topk_prob=True,
                                    output_router_logits=True, router_aux_loss_coef=0.05), 20),
    # sinks, biases, every other layer windowed (window < seq), YaRN short enough to act on 20 tokens, 4 biased experts
    # with the SwiGLU clamp low enough to bite, the load-balancing loss on
    "gpt_oss": ("gpt_oss", base(head_dim=16, num_hidden_layers=3, sliding_window=6, num_local_experts=4,
                                num_experts_per_tok=2, swiglu_limit=0.6, output_router_logits=True,
                                router_aux_loss_coef=0.05,
                                rope_parameters={"rope_type": "yarn", "rope_theta": 150000.0, "factor": 4.0,
                                                 "beta_fast": 16.0, "beta_slow": 2.0, "truncate": False,
                                                 "original_max_position_embeddings": 8}), 20),
    # every second layer without RoPE, and windowed (window < seq)
    "smollm3": ("smollm3", base(num_hidden_layers=4, no_rope_layer_interval=2, use_sliding_window=True,
                                sliding_window=6, pad_token_id=0, tie_word_embeddings=True), 20),
}


def defaults(root):
    """Each family's config class with nothing set (config.json {"model_type": ...} alone), built on the meta
    device: the values its defaults resolve to, for the description table to match."""
    out = {}
    for model_type in sorted({c[0] for c in CASES.values()}):
        config = AutoConfig.for_model(model_type)
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
        attn = model.model.layers[0].self_attn
        head_dim = getattr(attn, "head_dim")
        kv_out = attn.qkv_proj.out_features - config.num_attention_heads * head_dim if hasattr(attn, "qkv_proj") \
            else 2 * attn.k_proj.out_features
        windows = []
        for i, layer in enumerate(model.model.layers):
            w = getattr(layer.self_attn, "sliding_window", None)
            if w is None and getattr(config, "layer_types", None) is None:
                w = getattr(config, "sliding_window", None)
            windows.append(0 if w is None else int(w))
        out[model_type] = {"num_parameters": model.num_parameters(), "head_dim": head_dim,
                           "num_key_value_heads": kv_out // 2 // head_dim, "windows": windows,
                           "max_position_embeddings": config.max_position_embeddings,
                           "tie_word_embeddings": bool(config.tie_word_embeddings),
                           "rope_parameters": config.rope_parameters,
                           "vocab_size": config.vocab_size}
    with open(os.path.join(root, "defaults.json"), "w") as f:
        json.dump(out, f)


def gemma3_vlm(root):
    """A Gemma3ForConditionalGeneration folder (text + a tiny SigLIP tower): its language model's logits on text."""
    from transformers import Gemma3Config, Gemma3ForConditionalGeneration
    out = os.path.join(root, "gemma3_vlm")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(300)
    text = CASES["gemma3_text"][1].copy()
    text.pop("tie_word_embeddings")
    vision = dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                  num_attention_heads=2, image_size=32, patch_size=8)
    config = Gemma3Config(text_config=text, vision_config=vision, mm_tokens_per_image=4, image_token_index=VOCAB - 1,
                          boi_token_index=VOCAB - 3, eoi_token_index=VOCAB - 2)
    model = Gemma3ForConditionalGeneration(config).float()
    with torch.no_grad():
        for _, p in model.named_parameters():
            if p.dim() == 1:
                p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(out)
    ref = Gemma3ForConditionalGeneration.from_pretrained(out, dtype=torch.float32, attn_implementation="eager").eval()
    g = torch.Generator().manual_seed(31)
    ids = torch.randint(1, VOCAB - 4, (2, 20), generator=g)
    mask = torch.ones(2, 20, dtype=torch.int64)
    mask[1, 15:] = 0
    ids[mask == 0] = 0
    labels = ids.clone()
    labels[mask == 0] = -100
    with torch.no_grad():
        res = ref(input_ids=ids, attention_mask=mask, labels=labels)
    save_file({"input_ids": ids, "attention_mask": mask, "labels": labels}, os.path.join(out, "inputs.safetensors"))
    save_file({"logits": res.logits.float().contiguous()}, os.path.join(out, "reference.safetensors"))
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"loss": float(res.loss),
                   "language_model_parameters": ref.model.language_model.num_parameters()}, f)


def gpt_oss_mxfp4(root):
    """A gpt-oss folder as released: its experts in MXFP4 (<name>_blocks, <name>_scales, random codes and exponents
    near 2^0) and config.json's quantization_config {quant_method: mxfp4}; the reference is transformers loading it on
    the CPU with Mxfp4Config(dequantize=True)."""
    from safetensors.torch import load_file
    from transformers import Mxfp4Config
    out = os.path.join(root, "gpt_oss_mxfp4")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(400)
    kw = dict(CASES["gpt_oss"][1])
    kw["intermediate_size"] = 64  # blocks of 32 values along both expert widths
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model("gpt_oss", **kw)).float()
    model.save_pretrained(out)
    path = os.path.join(out, "model.safetensors")
    tensors = load_file(path)
    g = torch.Generator().manual_seed(41)
    for name in [k for k in tensors if k.endswith(("experts.gate_up_proj", "experts.down_proj"))]:
        experts, inputs, outputs = tensors.pop(name).shape  # transformers' (E, in, out); MXFP4 rows are the outputs
        tensors[name + "_blocks"] = torch.randint(0, 256, (experts, outputs, inputs // 32, 16), dtype=torch.uint8,
                                                  generator=g)
        tensors[name + "_scales"] = torch.randint(121, 128, (experts, outputs, inputs // 32), dtype=torch.uint8,
                                                  generator=g)
    save_file(tensors, path, metadata={"format": "pt"})
    with open(os.path.join(out, "config.json")) as f:
        config = json.load(f)
    config["quantization_config"] = {"quant_method": "mxfp4", "modules_to_not_convert": [
        "model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    ref = AutoModelForCausalLM.from_pretrained(out, quantization_config=Mxfp4Config(dequantize=True),
                                               dtype=torch.float32, attn_implementation="eager").eval()
    ids = torch.randint(1, VOCAB, (2, 12), generator=g)
    with torch.no_grad():
        logits = ref(input_ids=ids).logits
    save_file({"input_ids": ids}, os.path.join(out, "inputs.safetensors"))
    save_file({"logits": logits.float().contiguous()}, os.path.join(out, "reference.safetensors"))


def make(root):
    os.makedirs(root, exist_ok=True)
    defaults(root)
    gemma3_vlm(root)
    gpt_oss_mxfp4(root)
    for i, (name, (model_type, kw, seq)) in enumerate(CASES.items()):
        out = os.path.join(root, name)
        os.makedirs(out, exist_ok=True)
        torch.manual_seed(200 + i)
        config = AutoConfig.for_model(model_type, **kw)
        model = AutoModelForCausalLM.from_config(config, attn_implementation="eager").float()
        with torch.no_grad():
            for _, p in model.named_parameters():
                if p.dim() == 1:  # norms start at 1 (Gemma: 0) and biases at 0: perturb so ignoring them shows
                    p.add_(torch.randn_like(p) * 0.1)
        model.save_pretrained(out)
        ref = AutoModelForCausalLM.from_pretrained(out, dtype=torch.float32, attn_implementation="eager").train()
        for m in ref.modules():  # dropout off (the configs have none; this keeps it so)
            if isinstance(m, torch.nn.Dropout):
                m.p = 0.0
        g = torch.Generator().manual_seed(11 + i)
        ids = torch.randint(1, VOCAB, (2, seq), generator=g)
        mask = torch.ones(2, seq, dtype=torch.int64)
        mask[1, seq - seq // 4:] = 0
        ids[mask == 0] = 0
        labels = ids.clone()
        labels[mask == 0] = -100
        res = ref(input_ids=ids, attention_mask=mask, labels=labels)
        res.loss.backward()
        grads = {"grad." + n: p.grad.float().contiguous() for n, p in ref.named_parameters()}
        # A packed row: two samples back to back, positions restarting.
        a, b = 9, 7
        packed = torch.randint(1, VOCAB, (1, a + b), generator=g)
        positions = torch.cat([torch.arange(a), torch.arange(b)]).unsqueeze(0)
        ref.eval()
        with torch.no_grad():
            # the packed row's reference: each sample run alone, back to back (what block-diagonal attention means)
            packed_logits = torch.cat([ref(input_ids=packed[:, :a]).logits, ref(input_ids=packed[:, a:]).logits], 1)
            prompt = torch.randint(1, VOCAB, (1, 6), generator=g)
            greedy = ref.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False, max_new_tokens=14,
                                  min_new_tokens=14, pad_token_id=0, eos_token_id=None)
        # last (it changes the weights): one AdamW step (torch's, as the Trainer's) with the padded batch's
        # gradients, then that batch's loss again
        ref.train()
        torch.optim.AdamW(ref.parameters(), lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01).step()
        with torch.no_grad():
            loss_after_step = float(ref(input_ids=ids, attention_mask=mask, labels=labels).loss)
        save_file({"input_ids": ids, "attention_mask": mask, "labels": labels, "packed_ids": packed,
                   "position_ids": positions, "prompt": prompt},
                  os.path.join(out, "inputs.safetensors"))
        save_file({"logits": res.logits.detach().float().contiguous(),
                   "packed_logits": packed_logits.float().contiguous(), **grads},
                  os.path.join(out, "reference.safetensors"))
        with open(os.path.join(out, "reference.json"), "w") as f:
            json.dump({"loss": float(res.loss), "loss_after_step": loss_after_step,
                       "transformers": transformers.__version__, "model_type": model_type,
                       "num_parameters": ref.num_parameters(),
                       "parameter_names": [n for n, _ in ref.named_parameters()],
                       "greedy": greedy[0, prompt.shape[1]:].tolist()}, f)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(__doc__)
