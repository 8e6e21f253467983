#!/usr/bin/env python3
"""LoRA references from PEFT and transformers at test time (tests/core/model/test_lora.cpp).

  lora_reference.py SPEC.json    SPEC is a list of jobs, one per base model:
    {"base": DIR, "task": "CausalLM"|"SequenceClassification"|"MaskedLM", "inputs": FILE (input_ids, attention_mask),
     "ours_adapter": DIR, "merged": DIR,                     # written by Finetune Studio
     "peft_adapter_out": DIR, "lora": {r, lora_alpha, target_modules, use_rslora}, "seed": N,
     "out": FILE}
  For each job it writes to "out" (safetensors, float32):
    ours_logits    PeftModel.from_pretrained(base, ours_adapter), eval mode
    merged_logits  AutoModelFor<task>.from_pretrained(merged), eval mode
    peft_logits    a fresh PEFT adapter (get_peft_model, then lora_B drawn from N(0, 0.1) so it is not a no-op,
                   saved with save_pretrained to peft_adapter_out), eval mode

Only PEFT's and transformers' public API is used.
"""
import json
import sys

import torch
from safetensors.torch import load_file, save_file
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoModelForSequenceClassification
from peft import LoraConfig, PeftModel, get_peft_model

AUTO = {"CausalLM": AutoModelForCausalLM, "MaskedLM": AutoModelForMaskedLM,
        "SequenceClassification": AutoModelForSequenceClassification}
TASK_TYPE = {"CausalLM": "CAUSAL_LM", "SequenceClassification": "SEQ_CLS", "MaskedLM": None}


def load(task, path):
    return AUTO[task].from_pretrained(path, dtype=torch.float32, attn_implementation="eager").eval()


def logits(model, batch):
    with torch.no_grad():
        return model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.float().contiguous()


def main(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    for job in spec:
        task = job["task"]
        batch = load_file(job["inputs"])
        out = {}
        peft_ours = PeftModel.from_pretrained(load(task, job["base"]), job["ours_adapter"]).eval()
        out["ours_logits"] = logits(peft_ours, batch)
        out["merged_logits"] = logits(load(task, job["merged"]), batch)
        torch.manual_seed(job["seed"])
        cfg = dict(job["lora"])
        cfg["task_type"] = TASK_TYPE[task]
        peft = get_peft_model(load(task, job["base"]), LoraConfig(**cfg))
        with torch.no_grad():
            for name, p in peft.named_parameters():
                if "lora_B" in name:
                    p.normal_(0.0, 0.1)
                elif "modules_to_save" in name:
                    p.add_(torch.randn_like(p) * 0.1)
        peft.save_pretrained(job["peft_adapter_out"])
        peft.eval()
        out["peft_logits"] = logits(peft, batch)
        save_file(out, job["out"])
    print(json.dumps({"jobs": len(spec)}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
