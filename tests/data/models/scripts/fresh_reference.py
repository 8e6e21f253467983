#!/usr/bin/env python3
"""Fresh reference numerics from Hugging Face transformers, generated at test time (tests/core/model).

  fresh_reference.py make OUT_ROOT      builds one tiny random model per case (configs the frozen goldens do not
                                        cover), save_pretrained()s it to OUT_ROOT/<case>/ and writes there
                                        inputs.safetensors (input_ids, attention_mask, labels) and
                                        reference.safetensors (logits, float32, and for some cases grad.<name>
                                        of the loss) + reference.json (loss, num_parameters, and the config
                                        values transformers resolved: kv heads, head_dim, per-layer sliding
                                        window). Some cases then edit config.json (drop keys, set them null or to
                                        other values, "a.b" inside the dict at "a") or drop tensors before the
                                        reference loads it, so that the class defaults and transformers 5's
                                        loading rules are what is checked. Also writes OUT_ROOT/null_keys.json
                                        (null_keys.py's verdicts: which null keys transformers refuses).
  fresh_reference.py check SPEC.json    loads each listed folder with transformers' AutoModelFor... (eager
                                        attention, float32), runs the listed inputs and compares the logits to the
                                        listed file; prints one JSON object {folder: {"max_abs": .., "rel_l2": ..,
                                        "loss": ..}} (export round trips).

Only transformers' public API is used; no modeling code lives here.
"""
import json
import os
import sys

import torch
from safetensors.torch import load_file, save_file

import transformers
from transformers import (AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM,
                          AutoModelForSequenceClassification, BertConfig, LlamaConfig, MistralConfig, Qwen2Config)
from safetensors import safe_open

import null_keys  # same folder

VOCAB = 512


def llama(**kw):
    base = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=64, initializer_range=0.1, tie_word_embeddings=False)
    base.update(kw)
    return base


# case -> (config class, config kwargs, seq_len, weights dtype on disk[, edits and options])
CASES = {
    "llama_rope_llama3": (LlamaConfig, llama(rope_parameters=dict(rope_type="llama3", rope_theta=500000.0, factor=8.0,
                                                                  low_freq_factor=1.0, high_freq_factor=4.0,
                                                                  original_max_position_embeddings=16)), 40, torch.float32),
    "llama_rope_linear": (LlamaConfig, llama(rope_parameters=dict(rope_type="linear", rope_theta=10000.0, factor=4.0)),
                          24, torch.float32),
    # dynamic NTK only acts beyond max_position_embeddings (64): the sequence is longer
    "llama_rope_dynamic": (LlamaConfig, llama(rope_parameters=dict(rope_type="dynamic", rope_theta=10000.0, factor=2.0)),
                           96, torch.float32),
    # Both rope keys: transformers 5.23 takes `rope_scaling or rope_parameters` (the 4.x key wins, rope_theta included).
    "llama_rope_both_keys": (LlamaConfig, llama(rope_parameters=dict(rope_type="linear", rope_theta=10000.0, factor=4.0)),
                             24, torch.float32,
                             dict(set={"rope_parameters": dict(rope_type="linear", rope_theta=5000.0, factor=2.0),
                                       "rope_scaling": dict(type="linear", factor=4.0)})),
    # llama3 without original_max_position_embeddings: transformers fills in max_position_embeddings (64).
    "llama_rope_llama3_no_original": (LlamaConfig, llama(rope_parameters=dict(rope_type="llama3", rope_theta=500000.0,
                                                                              factor=8.0, low_freq_factor=1.0,
                                                                              high_freq_factor=4.0,
                                                                              original_max_position_embeddings=16)),
                                      40, torch.float32, dict(drop=["rope_parameters.original_max_position_embeddings"])),
    "llama_tied_bias_long": (LlamaConfig, llama(tie_word_embeddings=True, attention_bias=True, mlp_bias=True,
                                                max_position_embeddings=512, num_key_value_heads=1, pad_token_id=0), 200,
                             torch.float32),
    "llama_bf16_weights": (LlamaConfig, llama(), 20, torch.bfloat16),
    "mistral_sliding_window": (MistralConfig, llama(sliding_window=8), 32, torch.float32),
    "qwen2_sliding_window": (Qwen2Config, llama(use_sliding_window=True, sliding_window=6, max_window_layers=1,
                                                tie_word_embeddings=True, num_hidden_layers=3), 24, torch.float32),
    "qwen2_bf16_untied": (Qwen2Config, llama(tie_word_embeddings=False), 20, torch.bfloat16),
    # Class defaults: MistralConfig's num_key_value_heads 8 and sliding_window 4096, head_dim null -> hidden / heads.
    "mistral_default_kv_heads": (MistralConfig, llama(num_attention_heads=16, num_key_value_heads=8), 24, torch.float32,
                                 dict(drop=["num_key_value_heads", "sliding_window"], null=["head_dim"])),
    # null sliding_window -> no window (MistralConfig refuses a null num_key_value_heads: an int field).
    "mistral_null_window": (MistralConfig, llama(sliding_window=4), 24, torch.float32, dict(null=["sliding_window"])),
    # Qwen2Config: null num_key_value_heads -> num_attention_heads; null sliding_window -> no window.
    "qwen2_null_kv_window": (Qwen2Config, llama(num_key_value_heads=4, use_sliding_window=True, sliding_window=4,
                                                 max_window_layers=0), 24, torch.float32,
                             dict(null=["num_key_value_heads", "sliding_window"], drop=["layer_types"])),
    # Qwen2Config's num_key_value_heads 32; no layer_types (older configs): sliding layers from max_window_layers.
    "qwen2_default_kv_heads": (Qwen2Config, llama(num_attention_heads=32, num_key_value_heads=32, num_hidden_layers=3,
                                                  use_sliding_window=True, sliding_window=5, max_window_layers=1),
                               24, torch.float32, dict(drop=["num_key_value_heads", "layer_types"])),
    # transformers 5: an untied BertForMaskedLM decoder has its own bias next to cls.predictions.bias.
    "bert_mlm_untied": (BertConfig, dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                         num_attention_heads=4, max_position_embeddings=64, tie_word_embeddings=False,
                                         hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                         architectures=["BertForMaskedLM"]), 24, torch.float32),
    # ... saved by transformers 4 (no decoder.bias): transformers 5 initialises it to zeros.
    "bert_mlm_untied_v4": (BertConfig, dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                            num_attention_heads=4, max_position_embeddings=64, tie_word_embeddings=False,
                                            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                            architectures=["BertForMaskedLM"]), 24, torch.float32,
                           dict(drop_tensors=["cls.predictions.decoder.bias"])),
    # pad_token_id null: no padding_idx, so the embedding row of token 0 is trained (token 0 occurs in real positions).
    "bert_mlm_null_pad": (BertConfig, dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                           num_attention_heads=4, max_position_embeddings=64,
                                           hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                           architectures=["BertForMaskedLM"]), 24, torch.float32,
                          dict(null=["pad_token_id"], zeros_inside=True,
                               grads=["bert.embeddings.word_embeddings.weight"])),
}


def root_dir(root):
    os.makedirs(root, exist_ok=True)
    return root


def edit_folder(out, edits):
    """Drops keys / sets keys null in config.json and drops tensors from model.safetensors."""
    path = os.path.join(out, "config.json")
    with open(path) as f:
        config = json.load(f)
    def parent(key):
        *outer, last = key.split(".")
        d = config
        for k in outer:
            d = d[k]
        return d, last

    for key in edits.get("drop", []):
        d, last = parent(key)
        d.pop(last, None)
    for key in edits.get("null", []):
        d, last = parent(key)
        d[last] = None
    for key, value in edits.get("set", {}).items():
        d, last = parent(key)
        d[last] = value
    with open(path, "w") as f:
        json.dump(config, f, indent=2)
    if edits.get("drop_tensors"):
        weights = os.path.join(out, "model.safetensors")
        with safe_open(weights, "pt") as f:
            tensors = {k: f.get_tensor(k) for k in f.keys() if k not in edits["drop_tensors"]}
        save_file(tensors, weights, metadata={"format": "pt"})


def resolved(model):
    """The config values transformers resolved, read from the built model."""
    config = model.config
    if config.model_type == "bert":
        return {}
    layers = model.model.layers
    attn = layers[0].self_attn
    windows = []
    for layer in layers:
        w = getattr(layer.self_attn, "sliding_window", getattr(config, "sliding_window", None))
        windows.append(0 if w is None else int(w))
    return {"num_key_value_heads": attn.k_proj.out_features // attn.head_dim, "head_dim": attn.head_dim,
            "sliding_window": windows}


def make(root):
    with open(os.path.join(root_dir(root), "null_keys.json"), "w") as f:
        json.dump(null_keys.cases(), f)
    for i, (name, case) in enumerate(CASES.items()):
        cls, kw, seq, dtype = case[:4]
        edits = case[4] if len(case) > 4 else {}
        auto = AutoModelForMaskedLM if cls is BertConfig else AutoModelForCausalLM
        out = os.path.join(root, name)
        os.makedirs(out, exist_ok=True)
        torch.manual_seed(100 + i)
        config = cls(**kw)
        config._attn_implementation = "eager"
        model = auto.from_config(config, attn_implementation="eager").float()
        with torch.no_grad():
            for _, p in model.named_parameters():
                if p.dim() == 1:  # HF inits biases to 0 and norms to 1; perturb so that ignoring them shows
                    p.add_(torch.randn_like(p) * 0.1)
        model = model.to(dtype)
        model.save_pretrained(out)
        edit_folder(out, edits)
        # The reference runs on the weights exactly as stored, in float32.
        ref = auto.from_pretrained(out, dtype=torch.float32, attn_implementation="eager").train()
        g = torch.Generator().manual_seed(7 + i)
        ids = torch.randint(1, VOCAB, (2, seq), generator=g)
        mask = torch.ones(2, seq, dtype=torch.int64)
        mask[1, seq - seq // 4:] = 0
        ids[mask == 0] = 0
        if edits.get("zeros_inside"):
            ids[:, 2] = 0  # token 0 in real positions too
        labels = ids.clone()
        labels[mask == 0] = -100
        grads = edits.get("grads", [])
        with torch.set_grad_enabled(bool(grads)):
            res = ref(input_ids=ids, attention_mask=mask, labels=labels)
            if grads:
                res.loss.backward()
        params = dict(ref.named_parameters())
        save_file({"input_ids": ids, "attention_mask": mask, "labels": labels}, os.path.join(out, "inputs.safetensors"))
        save_file({"logits": res.logits.detach().float().contiguous(),
                   **{"grad." + g: params[g].grad.float().contiguous() for g in grads}},
                  os.path.join(out, "reference.safetensors"))
        with open(os.path.join(out, "reference.json"), "w") as f:
            json.dump({"loss": float(res.loss), "transformers": transformers.__version__, "seq_len": seq,
                       "num_parameters": ref.num_parameters(), "resolved": resolved(ref)}, f)


AUTO = {"CausalLM": AutoModelForCausalLM, "MaskedLM": AutoModelForMaskedLM,
        "SequenceClassification": AutoModelForSequenceClassification}


def check(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    result = {}
    for item in spec:
        model = AUTO[item["task"]].from_pretrained(item["dir"], dtype=torch.float32, attn_implementation="eager").eval()
        batch = load_file(item["inputs"])
        ours = load_file(item["logits"])["logits"].double()
        with torch.no_grad():
            out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"])
        theirs = out.logits.double()
        entry = {"shape_ok": list(theirs.shape) == list(ours.shape), "loss": float(out.loss)}
        if entry["shape_ok"]:
            entry["max_abs"] = float((theirs - ours).abs().max())
            entry["rel_l2"] = float((theirs - ours).norm() / theirs.norm())
        result[item["dir"]] = entry
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
