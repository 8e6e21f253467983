#!/usr/bin/env python3
"""Which config.json values transformers refuses, decided by transformers itself at test time (tests/core/model,
tests/core/config).

  null_keys.py            prints a JSON list, one entry per case: {"name", "config" (the whole config.json),
                          "key" (the key the case sets; "a.b" for a key inside the dict at "a"), "refused" (bool:
                          AutoConfig.from_pretrained, building the model or a train-mode forward raised), "error",
                          and for accepted cases "num_parameters"}.

Most cases set one key to null: transformers 5's strict dataclass validation refuses None for fields not typed
Optional; Optional fields take their None rule. A few set a non-null value (GPT-2 aliases, where the common
name overrides n_embd & co.). Only transformers' public API is used.
"""
import json
import os
import sys
import tempfile

import torch

import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoModelForSequenceClassification

transformers.logging.set_verbosity_error()
torch.set_num_threads(1)  # tiny models: threads only contend

LLAMA = dict(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=32)
BERT = dict(model_type="bert", vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
            num_attention_heads=4, max_position_embeddings=32)
BASES = {
    "gpt2": dict(model_type="gpt2", vocab_size=64, n_positions=32, n_embd=32, n_layer=1, n_head=4),
    "llama": dict(model_type="llama", **LLAMA),
    "llama_linear": dict(model_type="llama", rope_parameters=dict(rope_type="linear", factor=2.0, rope_theta=10000.0),
                         **LLAMA),
    "llama_llama3": dict(model_type="llama", rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0,
                                                               high_freq_factor=4.0, original_max_position_embeddings=16),
                         **LLAMA),
    "mistral": dict(model_type="mistral", **LLAMA),
    "qwen2": dict(model_type="qwen2", use_sliding_window=True, sliding_window=4, max_window_layers=1, **LLAMA),
    "bert": BERT,
    "bert_cls": dict(BERT, architectures=["BertForSequenceClassification"]),
}
LLAMA_KEYS = ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
              "num_key_value_heads", "max_position_embeddings", "head_dim", "pad_token_id", "rms_norm_eps",
              "initializer_range", "attention_dropout", "attention_bias", "mlp_bias", "tie_word_embeddings", "hidden_act",
              "rope_theta", "rope_parameters", "rope_scaling", "partial_rotary_factor", "layer_types", "sliding_window"]
# (base, key, value): value None unless given.
CASES = (
    [("gpt2", k) for k in ["vocab_size", "n_positions", "n_embd", "n_layer", "n_head", "n_inner", "layer_norm_epsilon",
                           "initializer_range", "attn_pdrop", "resid_pdrop", "embd_pdrop", "activation_function",
                           "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn",
                           "tie_word_embeddings", "add_cross_attention", "pad_token_id",
                           "max_position_embeddings", "hidden_size", "num_hidden_layers", "num_attention_heads"]]
    + [("gpt2", "hidden_size", 48), ("gpt2", "num_hidden_layers", 2), ("gpt2", "max_position_embeddings", 16),
       ("gpt2", "num_attention_heads", 8)]
    + [(base, k) for base in ["llama", "mistral", "qwen2"] for k in LLAMA_KEYS]
    + [("qwen2", "use_sliding_window"), ("qwen2", "max_window_layers")]
    + [("llama_linear", k) for k in ["rope_parameters.factor", "rope_parameters.rope_theta", "rope_parameters.rope_type",
                                     "rope_parameters.partial_rotary_factor"]]
    + [("llama_llama3", k) for k in ["rope_scaling.original_max_position_embeddings", "rope_scaling.low_freq_factor"]]
    + [("bert", k) for k in ["vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                             "max_position_embeddings", "type_vocab_size", "pad_token_id", "layer_norm_eps",
                             "initializer_range", "hidden_dropout_prob", "attention_probs_dropout_prob",
                             "classifier_dropout", "hidden_act", "tie_word_embeddings", "position_embedding_type",
                             "is_decoder", "add_cross_attention"]]
    + [("bert_cls", k) for k in ["num_labels", "problem_type", "id2label", "classifier_dropout"]]
)


def verdict(config):
    """(refused, error, num_parameters) for this config.json, as transformers loads and runs it."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config, f)
        try:
            c = AutoConfig.from_pretrained(d)
            arch = (config.get("architectures") or [""])[0]
            auto = (AutoModelForSequenceClassification if arch.endswith("ForSequenceClassification")
                    else AutoModelForMaskedLM if config["model_type"] == "bert" else AutoModelForCausalLM)
            model = auto.from_config(c, attn_implementation="eager")
            ids = torch.tensor([[1, 2, 3, 4, 5, 6]])
            mask = torch.ones_like(ids)
            with torch.no_grad():  # train mode: dropout values are used, as in a fine-tune
                model.train()(input_ids=ids, attention_mask=mask)
            return False, "", model.num_parameters()
        except Exception as e:  # noqa: BLE001 -- any failure is a refusal
            return True, (type(e).__name__ + ": " + str(e).strip().splitlines()[-1])[:300], None


def cases():
    out = []
    for case in CASES:
        base, key = case[0], case[1]
        value = case[2] if len(case) > 2 else None
        config = json.loads(json.dumps(BASES[base]))
        if "." in key:
            outer, inner = key.split(".", 1)
            config[outer][inner] = value
        else:
            config[key] = value
        refused, error, n = verdict(config)
        name = f"{base} {key}={json.dumps(value)}"
        out.append({"name": name, "config": config, "key": key, "refused": refused, "error": error,
                    "num_parameters": n})
    return out


if __name__ == "__main__":
    if len(sys.argv) != 1:
        sys.exit(__doc__)
    print(json.dumps(cases()))
