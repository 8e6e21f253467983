"""A tiny Llama saved by transformers three ways, for tests/core/model/test_quant4bit_golden.cpp.

usage: bnb_save_tiny.py OUT
OUT/base: the bfloat16 model. OUT/nf4dq and OUT/fp4: loaded from base with BitsAndBytesConfig (NF4 with double
quantization; FP4 without) on the CPU and saved (save_pretrained), each with dequant.safetensors: every quantized
weight decoded by bitsandbytes (dequantize_4bit with its quant_state, in the saved dtype).
"""
import os
import sys

import torch
from safetensors.torch import save_file
from transformers import BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM

import bitsandbytes as bnb
import bitsandbytes.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)
out = sys.argv[1]
cfg = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=False)
model = LlamaForCausalLM(cfg).to(torch.bfloat16)
model.save_pretrained(os.path.join(out, "base"))
for name, qcfg in (("nf4dq", dict(bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True)),
                   ("fp4", dict(bnb_4bit_quant_type="fp4", bnb_4bit_use_double_quant=False))):
    q = LlamaForCausalLM.from_pretrained(
        os.path.join(out, "base"), device_map="cpu", dtype=torch.bfloat16,
        quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16, **qcfg))
    q.save_pretrained(os.path.join(out, name))
    deq = {}
    for mod_name, mod in q.named_modules():
        if isinstance(mod, bnb.nn.Linear4bit):
            deq[mod_name + ".weight"] = F.dequantize_4bit(mod.weight.data, mod.weight.quant_state).contiguous()
    save_file(deq, os.path.join(out, name, "dequant.safetensors"))
