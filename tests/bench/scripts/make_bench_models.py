#!/usr/bin/env python3
"""Models for the benchmarks in tests/bench (generated at bench time, never committed).

  make_bench_models.py load OUT            a ~300 MB (float32) Llama saved by transformers' save_pretrained in
                                           100 MB shards (model.safetensors.index.json), float32 on disk
  make_bench_models.py train OUT           one small model per architecture (gpt2, llama, qwen2, bert, qwen3, gemma2,
                                           gemma3_text, phi3, olmo2, granite, smollm3, mixtral, qwen3_moe,
                                           gpt_oss) in
                                           OUT/<arch>/, the fixed configs of the training-throughput benchmark
  make_bench_models.py hf-train DIR ARCH BATCH SEQ STEPS WARMUP THREADS
                                           trains DIR with a plain PyTorch loop (torch.optim.AdamW fused, lr 1e-4,
                                           weight decay 0.01) on random tokens; prints {"tokens_per_s": ...}
"""
import json
import sys
import time

import torch
from transformers import GraniteConfig, GraniteForCausalLM, SmolLM3Config, SmolLM3ForCausalLM
from transformers import (GptOssConfig, GptOssForCausalLM, MixtralConfig, MixtralForCausalLM, Qwen3MoeConfig,
                          Qwen3MoeForCausalLM)
from transformers import (AutoModelForCausalLM, AutoModelForMaskedLM, BertConfig, BertForMaskedLM, Gemma2Config,
                          Gemma2ForCausalLM, Gemma3ForCausalLM, Gemma3TextConfig, GPT2Config, GPT2LMHeadModel,
                          LlamaConfig, LlamaForCausalLM, Olmo2Config, Olmo2ForCausalLM, Phi3Config, Phi3ForCausalLM,
                          Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM)

VOCAB = 8192


def make_load(out):
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=32000, hidden_size=768, intermediate_size=2048, num_hidden_layers=8,
                      num_attention_heads=12, num_key_value_heads=4, max_position_embeddings=512,
                      tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).float()
    model.save_pretrained(out, max_shard_size="100MB")
    print(json.dumps({"parameters": sum(p.numel() for p in model.parameters())}))


def train_models():
    common = dict(hidden=256, layers=4, heads=4, inner=1024)
    return {
        "gpt2": (GPT2LMHeadModel, GPT2Config(vocab_size=VOCAB, n_positions=512, n_embd=common["hidden"],
                                              n_layer=common["layers"], n_head=common["heads"], n_inner=common["inner"],
                                              attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0)),
        "llama": (LlamaForCausalLM, LlamaConfig(vocab_size=VOCAB, hidden_size=common["hidden"],
                                                intermediate_size=common["inner"], num_hidden_layers=common["layers"],
                                                num_attention_heads=common["heads"], num_key_value_heads=2,
                                                max_position_embeddings=512)),
        "qwen2": (Qwen2ForCausalLM, Qwen2Config(vocab_size=VOCAB, hidden_size=common["hidden"],
                                                intermediate_size=common["inner"], num_hidden_layers=common["layers"],
                                                num_attention_heads=common["heads"], num_key_value_heads=2,
                                                max_position_embeddings=512, tie_word_embeddings=True)),
        "bert": (BertForMaskedLM, BertConfig(vocab_size=VOCAB, hidden_size=common["hidden"],
                                             num_hidden_layers=common["layers"], num_attention_heads=common["heads"],
                                             intermediate_size=common["inner"], max_position_embeddings=512,
                                             hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)),
        **decoder_families(common),
    }


def decoder_families(common):
    """The families core/arch added to the five (issue 48), at the same sizes as the Llama above."""
    shape = dict(vocab_size=VOCAB, hidden_size=common["hidden"], intermediate_size=common["inner"],
                 num_hidden_layers=common["layers"], num_attention_heads=common["heads"], num_key_value_heads=2,
                 max_position_embeddings=512)
    head = common["hidden"] // common["heads"]
    return {
        "qwen3": (Qwen3ForCausalLM, Qwen3Config(head_dim=head, **shape)),
        "gemma2": (Gemma2ForCausalLM, Gemma2Config(head_dim=head, query_pre_attn_scalar=head, **shape)),
        "gemma3_text": (Gemma3ForCausalLM, Gemma3TextConfig(head_dim=head, query_pre_attn_scalar=head, **shape)),
        "phi3": (Phi3ForCausalLM, Phi3Config(pad_token_id=0, bos_token_id=1, eos_token_id=2, **shape)),
        "olmo2": (Olmo2ForCausalLM, Olmo2Config(pad_token_id=0, eos_token_id=2, **shape)),
        "granite": (GraniteForCausalLM, GraniteConfig(embedding_multiplier=12.0, attention_multiplier=0.125,
                                                      residual_multiplier=0.22, logits_scaling=8.0, **shape)),
        "smollm3": (SmolLM3ForCausalLM, SmolLM3Config(pad_token_id=0, **shape)),
        # mixtures of experts (issue 51): transformers runs one masked pass per expert hit, fts groups the rows
        "mixtral": (MixtralForCausalLM, MixtralConfig(num_local_experts=8, num_experts_per_tok=2,
                                                      **dict(shape, intermediate_size=common["inner"] // 2))),
        # Qwen3-30B-A3B's proportions: many narrow experts, 8 per token (128 x 768 there, 32 x 128 here)
        "qwen3_moe": (Qwen3MoeForCausalLM, Qwen3MoeConfig(head_dim=head, num_experts=32, num_experts_per_tok=8,
                                                          moe_intermediate_size=128, **shape)),
        # ... and Qwen3-30B-A3B's own expert count and top-k (128, 8), each expert 64 wide
        "qwen3_moe_128e": (Qwen3MoeForCausalLM, Qwen3MoeConfig(head_dim=head, num_experts=128, num_experts_per_tok=8,
                                                               moe_intermediate_size=64, **shape)),
        "gpt_oss": (GptOssForCausalLM, GptOssConfig(head_dim=head, num_local_experts=16, num_experts_per_tok=4,
                                                    **dict(shape, intermediate_size=common["inner"] // 4))),
    }


def make_train(out):
    for i, (name, (cls, cfg)) in enumerate(train_models().items()):
        torch.manual_seed(i)
        cls(cfg).float().save_pretrained(f"{out}/{name}")
    print(json.dumps({"archs": list(train_models())}))


def hf_train(path, arch, batch, seq, steps, warmup, threads):
    torch.set_num_threads(threads)
    auto = AutoModelForMaskedLM if arch == "bert" else AutoModelForCausalLM
    # Gemma 2's soft-capped scores and gpt-oss's sinks have no SDPA path in transformers (nor in fts): eager on both
    attn = "eager" if arch in ("gemma2", "gpt_oss") else "sdpa"
    model = auto.from_pretrained(path, dtype=torch.float32, attn_implementation=attn).train()
    # fused=True: what transformers' Trainer uses by default with torch >= 2.8 (optim "adamw_torch_fused").
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, fused=True)
    g = torch.Generator().manual_seed(0)
    batches = [torch.randint(0, VOCAB, (batch, seq), generator=g) for _ in range(4)]
    start = None
    for step in range(warmup + steps):
        if step == warmup:
            start = time.perf_counter()
        ids = batches[step % len(batches)]
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    seconds = time.perf_counter() - start
    print(json.dumps({"tokens_per_s": steps * batch * seq / seconds, "seconds": seconds, "loss": float(loss)}))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "load":
        make_load(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "train":
        make_train(sys.argv[2])
    elif len(sys.argv) == 9 and sys.argv[1] == "hf-train":
        hf_train(sys.argv[2], sys.argv[3], *map(int, sys.argv[4:9]))
    else:
        sys.exit(__doc__)
