"""Reference figures for tests/core/config/test_memory_estimate.cpp, computed by the real libraries.

usage: reference_shapes.py --models DIR... --zero PSI,LARGEST,N...
Prints one JSON object: {"models": {DIR: {...}}, "zero": [{...}]}
  models: transformers' num_parameters() of the architecture config.json names (built on CPU with random
          weights), DeepSpeed's model_to_params (total, largest_layer_params) and the config object's sizes.
  zero:   DeepSpeed's estimate_zero2_model_states_mem_needs / estimate_zero3_model_states_mem_needs without
          offload (the GPU figure) and with cpu_offload for (total params, largest layer params, GPUs on one node).
"""
import argparse
import json
import logging
import os
import sys

os.environ.setdefault("DS_ACCELERATOR", "cpu")
logging.disable(logging.WARNING)

import torch  # noqa: E402
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()


def model_figures(path):
    config = transformers.AutoConfig.from_pretrained(path)
    arch = config.architectures[0]
    with torch.device("cpu"):
        model = getattr(transformers, arch)(config)
    from deepspeed.runtime.zero.stage3 import model_to_params
    total, largest = model_to_params(model)
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    def attr(*names):
        for n in names:
            v = getattr(text, n, None)
            if v is not None:
                return v
        return None
    return {
        "architecture": arch,
        "num_parameters": model.num_parameters(),
        "ds_total_params": total,
        "ds_largest_layer_params": largest,
        "vocab_size": attr("vocab_size"),
        "hidden_size": attr("hidden_size", "n_embd"),
        "num_layers": attr("num_hidden_layers", "n_layer"),
        "num_heads": attr("num_attention_heads", "n_head"),
        "num_kv_heads": attr("num_key_value_heads", "num_attention_heads", "n_head"),
        "intermediate_size": attr("intermediate_size", "n_inner") or 4 * attr("hidden_size", "n_embd"),
        "max_positions": attr("max_position_embeddings", "n_positions"),
    }


def zero_figures(psi, largest, n):
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
    _, z2 = estimate_zero2_model_states_mem_needs(psi, num_gpus_per_node=n, cpu_offload=False)
    _, z2_offload = estimate_zero2_model_states_mem_needs(psi, num_gpus_per_node=n, cpu_offload=True)
    _, z3, largest_mem = estimate_zero3_model_states_mem_needs(psi, largest, num_gpus_per_node=n, cpu_offload=False)
    _, z3_offload, _ = estimate_zero3_model_states_mem_needs(psi, largest, num_gpus_per_node=n, cpu_offload=True,
                                                             cpu_offload_params=False)
    return {"psi": psi, "largest": largest, "n": n, "zero2_gpu": z2, "zero2_offload_gpu": z2_offload, "zero3_gpu": z3,
            "zero3_offload_gpu": z3_offload, "zero3_largest_layer_memory": largest_mem}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", nargs="*", default=[])
    p.add_argument("--zero", nargs="*", default=[])
    a = p.parse_args()
    out = {"models": {m: model_figures(m) for m in a.models}, "zero": []}
    for spec in a.zero:
        psi, largest, n = (int(x) for x in spec.split(","))
        out["zero"].append(zero_figures(psi, largest, n))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
