#!/usr/bin/env python3
"""A random GPT-2 with the ChatML tokenizer of tests/data/sft/gpt2, for the Chat page's tests.

  make_chat_model.py OUT [N_POSITIONS] [SEED]   config.json of tests/data/sft/gpt2 with n_positions replaced, random
                                                weights (save_pretrained), and the fixture's tokenizer files.
"""
import json
import os
import shutil
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "sft", "gpt2")


def main(out, positions, seed):
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    cfg["n_positions"] = positions
    torch.manual_seed(seed)
    GPT2LMHeadModel(GPT2Config(**cfg)).save_pretrained(out)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(src, f), os.path.join(out, f))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 256, int(sys.argv[3]) if len(sys.argv) > 3 else 0)
