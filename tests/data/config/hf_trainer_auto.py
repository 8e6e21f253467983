# Reference oracle: resolves DeepSpeed "auto" values exactly as the Hugging Face Trainer does
# (HfTrainerDeepSpeedConfig.trainer_config_process + trainer_config_finalize), for comparison in tests.
# Input (stdin, one JSON document): [{"name", "deepspeed": {...}, "args": {TrainingArguments kwargs},
#   "world_size", "hidden_size", "num_training_steps"[, "auto_find_batch_size"]}, ...]
# Output (stdout, exactly one JSON line, last): [{"name", "config": {...}, "dtype"} | {"name", "error": "<ValueError text>"}
#   | {"name", "args_error": "<Type>: <text>"} (TrainingArguments(...) itself refused the args; caller should skip)]
#
# Run with the Finetune Studio venv: ~/.cache/finetune-studio/venv/bin/python hf_trainer_auto.py < cases.json
# Checked against transformers 5.23.0 / deepspeed 0.19.8 / accelerate 1.15.0 / torch 2.11 (CPU).
#
# Notes on how the Trainer path is reproduced:
# * TrainingArguments is built WITHOUT deepspeed= (that would create an accelerate DeepSpeedPlugin, which
#   mutates the config further, e.g. steps_per_print=inf); HfTrainerDeepSpeedConfig is built directly from a
#   deep copy of the case's dict and the two trainer_config_* methods are called, as TrainingArguments.__post_init__
#   (process) and transformers.integrations.deepspeed.deepspeed_init (finalize) do.
# * bf16/fp16 on CPU: TrainingArguments._validate_args raises "Your setup doesn't support bf16/gpu. You need to
#   assign use_cpu if you want to train the model on CPU." for bf16=True without a bf16-capable GPU. We therefore
#   pass use_cpu=True unless the case sets it. use_cpu only affects device selection / pin_memory, none of the
#   fields read by trainer_config_process/finalize (world_size, per_device_train_batch_size,
#   gradient_accumulation_steps, max_grad_norm, learning_rate, adam_*, weight_decay, save_on_each_node,
#   fp16/fp16_full_eval, bf16/bf16_full_eval, get_warmup_steps()). fp16=True is accepted on CPU either way.
# * world_size: TrainingArguments.world_size is a read-only property (1 here), so the args are wrapped in a proxy
#   that returns the case's world_size and forwards everything else (get_warmup_steps stays bound to the real args).
# * transformers 5.x removed `warmup_ratio`; passing it gives an args_error (TypeError). In 5.x a float
#   warmup_steps in [0, 1) is the ratio: get_warmup_steps = int(w) if w >= 1 else ceil(num_training_steps * w).
# * Distributed/accelerator env vars are cleared so nothing tries to initialise torch.distributed or a GPU.
import os
import sys

for _k in list(os.environ):
    if _k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK", "MASTER_ADDR",
              "MASTER_PORT", "CROSS_RANK", "CROSS_SIZE", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
              "PMI_SIZE", "PMI_RANK", "SLURM_PROCID", "SLURM_NTASKS") or _k.startswith("ACCELERATE_"):
        del os.environ[_k]
os.environ["DS_ACCELERATOR"] = "cpu"
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import copy  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import types  # noqa: E402


class _ArgsProxy:
    """Forwards every attribute to the real TrainingArguments except world_size."""

    def __init__(self, real_args, world_size):
        object.__setattr__(self, "_real", real_args)
        object.__setattr__(self, "_world_size", int(world_size))

    @property
    def world_size(self):
        return self._world_size

    def get_warmup_steps(self, num_training_steps):
        # the real method, bound to the real args
        return self._real.get_warmup_steps(num_training_steps)

    def __getattr__(self, name):
        return getattr(self._real, name)


def _run_case(case, TrainingArguments, HfTrainerDeepSpeedConfig, unset_hf_deepspeed_config, out_dir):
    name = case.get("name")
    kwargs = dict(case.get("args") or {})
    kwargs.setdefault("use_cpu", True)
    kwargs.setdefault("report_to", [])
    kwargs["output_dir"] = out_dir
    try:
        real_args = TrainingArguments(**kwargs)
    except Exception as e:  # noqa: BLE001 - reported to the caller, which skips the case
        return {"name": name, "args_error": f"{type(e).__name__}: {e}"}

    args = _ArgsProxy(real_args, case.get("world_size", 1))
    model_config = types.SimpleNamespace()
    if case.get("hidden_size") is not None:
        model_config.hidden_size = case["hidden_size"]
    model = types.SimpleNamespace(config=model_config)

    try:
        hf_ds_config = HfTrainerDeepSpeedConfig(copy.deepcopy(case["deepspeed"]))
        hf_ds_config.trainer_config_process(args, bool(case.get("auto_find_batch_size", False)))
        hf_ds_config.trainer_config_finalize(args, model, case["num_training_steps"])
        dtype = str(hf_ds_config.dtype()).replace("torch.", "")
        return {"name": name, "config": hf_ds_config.config, "dtype": dtype}
    except ValueError as e:
        return {"name": name, "error": str(e)}
    except Exception as e:  # noqa: BLE001
        return {"name": name, "error": str(e), "error_type": type(e).__name__}
    finally:
        unset_hf_deepspeed_config()


def main():
    raw = sys.stdin.read()
    # Everything written to fd 1 while libraries are imported/used goes to stderr instead, so that the
    # final JSON line is the only thing this script writes to stdout.
    sys.stdout.flush()
    saved_stdout_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        cases = json.loads(raw)
        if isinstance(cases, dict):
            cases = cases.get("cases", [cases])
        from transformers import TrainingArguments
        from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig, unset_hf_deepspeed_config

        results = []
        with tempfile.TemporaryDirectory(prefix="hf_trainer_auto_") as out_dir:
            for case in cases:
                results.append(
                    _run_case(case, TrainingArguments, HfTrainerDeepSpeedConfig, unset_hf_deepspeed_config, out_dir)
                )
        line = json.dumps(results)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved_stdout_fd, 1)
        os.close(saved_stdout_fd)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
