#!/usr/bin/env python3
"""Reference generations from Hugging Face transformers, made at test time (tests/core/generate).

  generate_reference.py make OUT_ROOT GOLDEN_MODELS_DIR
                                        builds tiny random models (save_pretrained to OUT_ROOT/<case>/), runs
                                        model.generate() on a left-padded batch of prompts of different lengths and
                                        writes OUT_ROOT/reference.json:
                                          {case: {"prompts": [[ids]], "greedy": [[new ids]], "eos": id,
                                                  "greedy_eos": [[new ids, cut after eos]],
                                                  "penalty": [[new ids]] (repetition_penalty 1.3)}}
                                        and OUT_ROOT/processors.safetensors: random logits and sequences, and the
                                        outputs of transformers' RepetitionPenaltyLogitsProcessor, TemperatureLogits-
                                        Warper, TopKLogitsWarper, TopPLogitsWarper (alone and chained).
                                        The golden models of tests/data/models (gpt2, llama, qwen2) get the same
                                        entries under "golden_<name>" (their folders are loaded where they are), and
                                        "cli_gpt2" holds the golden GPT-2's generation from a text prompt encoded by
                                        its tokenizer.json (HF tokenizers): {"text", "prompt_ids", "greedy"}.

Only transformers' public API is used; no generation code lives here.
"""
import json
import sys

import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer
from transformers import (AutoModelForCausalLM, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, MistralConfig,
                          MistralForCausalLM, Qwen2Config, Qwen2ForCausalLM)
from transformers.generation.logits_process import (RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper,
                                                    TopKLogitsWarper, TopPLogitsWarper)

VOCAB = 384
NEW = 24


def llama_kw(**kw):
    base = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=128, initializer_range=0.2, tie_word_embeddings=False,
                bos_token_id=None, eos_token_id=None, pad_token_id=None)
    base.update(kw)
    return base


CASES = {
    "gpt2": (GPT2Config, GPT2LMHeadModel, dict(vocab_size=VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                                initializer_range=0.2, bos_token_id=None, eos_token_id=None,
                                                resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)),
    "llama_gqa_rope_linear": (LlamaConfig, LlamaForCausalLM,
                              llama_kw(rope_parameters=dict(rope_type="linear", rope_theta=10000.0, factor=2.0))),
    "llama_rope_llama3": (LlamaConfig, LlamaForCausalLM,
                          llama_kw(rope_parameters=dict(rope_type="llama3", rope_theta=500000.0, factor=8.0,
                                                        low_freq_factor=1.0, high_freq_factor=4.0,
                                                        original_max_position_embeddings=16))),
    "qwen2": (Qwen2Config, Qwen2ForCausalLM, llama_kw(tie_word_embeddings=True)),
    # a window smaller than prompt + new tokens: the cache must stop seeing keys older than 6 tokens
    "mistral_sliding_window": (MistralConfig, MistralForCausalLM, llama_kw(sliding_window=6)),
}

PROMPT_LENGTHS = [5, 11, 8]


def run(model, prompts, **kw):
    S = max(len(p) for p in prompts)
    ids = torch.zeros(len(prompts), S, dtype=torch.long)
    mask = torch.zeros(len(prompts), S, dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, S - len(p):] = torch.tensor(p)
        mask[i, S - len(p):] = 1
    out = model.generate(input_ids=ids, attention_mask=mask, do_sample=False, max_new_tokens=NEW, pad_token_id=0,
                         **kw)
    return [row[S:].tolist() for row in out]


def cut_after(rows, eos):
    cut = []
    for r in rows:
        cut.append(r[:r.index(eos) + 1] if eos in r else r)
    return cut


def entry(model, prompts):
    greedy = run(model, prompts)
    eos = greedy[0][3]  # row 0 ends after its 4th token; the others wherever they produce it, if at all
    return {
        "prompts": prompts,
        "greedy": greedy,
        "eos": eos,
        "greedy_eos": cut_after(run(model, prompts, eos_token_id=eos), eos),
        "penalty": run(model, prompts, repetition_penalty=1.3),
    }


def make(root, golden):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    reference = {}
    for name, (cfg_cls, model_cls, kw) in CASES.items():
        cfg = cfg_cls(**kw)
        cfg._attn_implementation = "eager"
        model = model_cls(cfg).eval()
        model.save_pretrained(f"{root}/{name}")
        prompts = [torch.randint(1, VOCAB, (n,), generator=g).tolist() for n in PROMPT_LENGTHS]
        reference[name] = entry(model, prompts)
    for name in ("gpt2", "llama", "qwen2"):
        model = AutoModelForCausalLM.from_pretrained(f"{golden}/{name}", attn_implementation="eager").eval()
        prompts = [torch.randint(1, model.config.vocab_size, (n,), generator=g).tolist() for n in PROMPT_LENGTHS]
        reference["golden_" + name] = entry(model, prompts)
        if name == "gpt2":
            text = "Hello world, this is"
            ids = Tokenizer.from_file(f"{golden}/gpt2/tokenizer.json").encode(text).ids
            reference["cli_gpt2"] = {"text": text, "prompt_ids": ids, "greedy": run(model, [ids])[0]}
    with open(f"{root}/reference.json", "w") as f:
        json.dump(reference, f)

    logits = torch.randn(4, 200, generator=g) * 3
    sequences = torch.randint(0, 200, (4, 30), generator=g)
    t = {"logits": logits, "sequences": sequences}
    t["penalty"] = RepetitionPenaltyLogitsProcessor(1.3)(sequences, logits.clone())
    t["temperature"] = TemperatureLogitsWarper(0.7)(sequences, logits.clone())
    t["top_k"] = TopKLogitsWarper(20)(sequences, logits.clone())
    t["top_p"] = TopPLogitsWarper(0.9)(sequences, logits.clone())
    x = RepetitionPenaltyLogitsProcessor(1.3)(sequences, logits.clone())
    for p in (TemperatureLogitsWarper(0.7), TopKLogitsWarper(20), TopPLogitsWarper(0.9)):
        x = p(sequences, x)
    t["chain"] = x
    save_file({k: v.contiguous() for k, v in t.items()}, f"{root}/processors.safetensors")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "make":
        sys.exit(__doc__)
    make(sys.argv[2], sys.argv[3])
