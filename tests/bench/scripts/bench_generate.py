#!/usr/bin/env python3
"""Reference side of bench_generate_throughput (transformers' generate() on the same CPU, same model and prompts).

  bench_generate.py make DIR              a random ~56M-parameter Llama (GQA, vocab 32000) saved to DIR, and
                                          DIR/prompts.json: 8 prompts of 24-40 token ids
  bench_generate.py run DIR BATCH NEW     greedy generate() of NEW tokens for the first BATCH prompts (left padded),
                                          after one warm-up call; prints {"seconds", "new_tokens", "ids"}
Only transformers' public API is used.
"""
import json
import os
import sys
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def make(d):
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=32000, hidden_size=512, intermediate_size=1408, num_hidden_layers=8,
                      num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=1024,
                      bos_token_id=None, eos_token_id=None, pad_token_id=None, tie_word_embeddings=False)
    LlamaForCausalLM(cfg).save_pretrained(d)
    g = torch.Generator().manual_seed(1)
    prompts = [torch.randint(3, 32000, (24 + 2 * i,), generator=g).tolist() for i in range(8)]
    with open(os.path.join(d, "prompts.json"), "w") as f:
        json.dump(prompts, f)


def run(d, batch, new):
    torch.set_num_threads(os.cpu_count())
    model = LlamaForCausalLM.from_pretrained(d).eval()
    model.generation_config.eos_token_id = None
    prompts = json.load(open(os.path.join(d, "prompts.json")))[:batch]
    S = max(len(p) for p in prompts)
    ids = torch.zeros(batch, S, dtype=torch.long)
    mask = torch.zeros(batch, S, dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, S - len(p):] = torch.tensor(p)
        mask[i, S - len(p):] = 1
    kw = dict(input_ids=ids, attention_mask=mask, do_sample=False, pad_token_id=0)
    with torch.inference_mode():
        model.generate(**kw, max_new_tokens=4)  # warm-up
        t0 = time.perf_counter()
        out = model.generate(**kw, max_new_tokens=new, min_new_tokens=new)
        seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "new_tokens": batch * new, "ids": [r[S:].tolist() for r in out]}))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
