#!/usr/bin/env python3
"""Reference logits and loss of a packed batch from Hugging Face transformers (tests/core/train/test_packed_forward).

  packed_reference.py MODEL_DIR INPUTS.safetensors OUT.safetensors

INPUTS holds input_ids, position_ids and labels (B, T) int64: several samples back to back per row, position ids
restarting at 0 for each. The model is loaded with AutoModelForCausalLM (float32) once with eager and once with
sdpa attention and called with position_ids and NO attention mask, which is how transformers 5 is told about
packing (masking_utils.find_packed_sequence_indices builds the block-diagonal causal mask). OUT receives
logits_eager, logits_sdpa (float32) and loss_eager, loss_sdpa (0-d float64: transformers' mean over labels != -100).
Only transformers' public API is used.
"""
import sys

import torch
from safetensors.torch import load_file, save_file
from transformers import AutoModelForCausalLM


def main():
    model_dir, inputs_file, out_file = sys.argv[1:4]
    inputs = load_file(inputs_file)
    out = {}
    for attn in ("eager", "sdpa"):
        model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation=attn, dtype=torch.float32)
        model.eval()
        with torch.no_grad():
            res = model(input_ids=inputs["input_ids"], position_ids=inputs["position_ids"], labels=inputs["labels"],
                        use_cache=False)
        out["logits_" + attn] = res.logits.float().contiguous()
        out["loss_" + attn] = res.loss.double().reshape(())
    save_file(out, out_file)


if __name__ == "__main__":
    main()
