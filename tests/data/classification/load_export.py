#!/usr/bin/env python3
"""Loads a classification export with transformers and prints its eval logits and labels, for
tests/integration/test_train_classification.cpp.

Input (stdin, one JSON object): export_dir, tokenizer_dir, max_length, eval_rows [{"text", "text_pair"?}].
Output (stdout, one line): {"logits": [[...] per row], "id2label": {...}, "label2id": {...}, "problem_type",
"num_labels", "architectures"}.
"""
import json
import os
import sys

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
RESULT_OUT = sys.stdout
sys.stdout = sys.stderr

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def main():
    req = json.load(sys.stdin)
    torch.set_num_threads(1)
    model = AutoModelForSequenceClassification.from_pretrained(req["export_dir"], attn_implementation="eager")
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(req["tokenizer_dir"])
    logits = []
    with torch.no_grad():
        for r in req["eval_rows"]:
            args = ([r["text"]],) if r.get("text_pair") is None else ([r["text"]], [r["text_pair"]])
            enc = tokenizer(*args, max_length=int(req["max_length"]), truncation=True, return_tensors="pt")
            logits.append(model(**enc).logits[0].tolist())
    c = model.config
    out = {"logits": logits, "id2label": {str(k): v for k, v in c.id2label.items()}, "label2id": dict(c.label2id),
           "problem_type": c.problem_type, "num_labels": c.num_labels, "architectures": c.architectures}
    RESULT_OUT.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
