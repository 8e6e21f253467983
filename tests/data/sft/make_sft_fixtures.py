#!/usr/bin/env python3
"""Writes the SFT fixtures of tests/data/sft (deterministic; run from anywhere, no arguments):

  tokenizer/   the quick-start's 590-token byte-level BPE plus the ChatML specials <|im_start|> (590) and
               <|im_end|> (591), eos_token <|im_end|>, and a ChatML chat_template (so "template": "auto" finds it)
  gpt2/, llama/  config.json of tiny random models (vocab 592) with those tokenizer files beside them
  alpaca.jsonl    160 Alpaca records (instruction / input / output), text original to this project (CC0)
  messages.jsonl  160 OpenAI-style conversations (system / user / assistant, some with two turns)
  bad_rows.jsonl  alpaca.jsonl's first 40 records with bad rows at lines 3 (invalid JSON), 7 (no "output")
                  and 12 (a number as instruction)
"""
import json
import os
import random
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
QUICK = os.path.join(HERE, "..", "..", "..", "resources", "quickstart", "model")

NAMES = ["Ben", "Lena", "Mia", "Tom", "Sara", "Max"]
ANIMALS = ["owl", "cat", "dog", "fox", "frog"]
PLACES = ["library", "park", "river", "garden", "school"]
NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def tokenizer_files(dst):
    os.makedirs(dst, exist_ok=True)
    tok = json.load(open(os.path.join(QUICK, "tokenizer.json")))
    for i, content in ((590, "<|im_start|>"), (591, "<|im_end|>")):
        tok["added_tokens"].append({"id": i, "content": content, "single_word": False, "lstrip": False,
                                    "rstrip": False, "normalized": False, "special": True})
    json.dump(tok, open(os.path.join(dst, "tokenizer.json"), "w"), ensure_ascii=False)
    cfg = {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "model_max_length": 256,
           "tokenizer_class": "GPT2Tokenizer", "chat_template": CHATML}
    json.dump(cfg, open(os.path.join(dst, "tokenizer_config.json"), "w"), indent=1)


def record(rng):
    name, other = rng.sample(NAMES, 2)
    animal, place = rng.choice(ANIMALS), rng.choice(PLACES)
    a, b = rng.randint(1, 4), rng.randint(1, 4)
    kind = rng.randint(0, 2)
    if kind == 0:
        return {"instruction": "How many apples do they have together?",
                "input": f"{name} had {NUMBERS[a - 1]} apples and {other} brought {NUMBERS[b - 1]}.",
                "output": f"They have {NUMBERS[a + b - 1]} apples."}
    if kind == 1:
        return {"instruction": f"Where did {name} go with the {animal}?", "input": "",
                "output": f"{name} went to the {place} with the {animal}."}
    return {"instruction": f"Write one sentence about {name} and the {animal}.",
            "output": f"{name} saw the {animal} at the {place} and laughed."}


def main():
    rng = random.Random(1234)
    tokenizer_files(os.path.join(HERE, "tokenizer"))
    gpt2 = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.0,
            "embd_pdrop": 0.0, "resid_pdrop": 0.0, "bos_token_id": 591, "eos_token_id": 591,
            "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_embd": 64, "n_head": 4,
            "n_inner": None, "n_layer": 2, "n_positions": 256, "scale_attn_weights": True,
            "tie_word_embeddings": True, "torch_dtype": "float32", "vocab_size": 592}
    llama = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
             "bos_token_id": 591, "eos_token_id": 591, "hidden_act": "silu", "hidden_size": 64,
             "initializer_range": 0.02, "intermediate_size": 128, "max_position_embeddings": 256,
             "model_type": "llama", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
             "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "tie_word_embeddings": True, "torch_dtype": "float32",
             "vocab_size": 592}
    for name, cfg in (("gpt2", gpt2), ("llama", llama)):
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        json.dump(cfg, open(os.path.join(d, "config.json"), "w"), indent=1)
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(HERE, "tokenizer", f), os.path.join(d, f))

    alpaca = [record(rng) for _ in range(160)]
    with open(os.path.join(HERE, "alpaca.jsonl"), "w") as f:
        for r in alpaca:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(HERE, "messages.jsonl"), "w") as f:
        for i in range(160):
            r1, r2 = record(rng), record(rng)
            msgs = [{"role": "system", "content": "You answer in one short sentence."}] if i % 3 == 0 else []
            msgs += [{"role": "user", "content": (r1["instruction"] + " " + r1.get("input", "")).strip()},
                     {"role": "assistant", "content": r1["output"]}]
            if i % 2 == 0:
                msgs += [{"role": "user", "content": r2["instruction"]}, {"role": "assistant", "content": r2["output"]}]
            f.write(json.dumps({"messages": msgs}) + "\n")
    with open(os.path.join(HERE, "bad_rows.jsonl"), "w") as f:
        for line, r in enumerate(alpaca[:40], start=1):
            if line == 3:
                f.write('{"instruction": "broken", "output": \n')
            elif line == 7:
                f.write(json.dumps({"instruction": r["instruction"]}) + "\n")
            elif line == 12:
                f.write(json.dumps({"instruction": 12, "output": "x"}) + "\n")
            else:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
