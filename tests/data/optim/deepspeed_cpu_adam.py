# DeepSpeedCPUAdam (DeepSpeed 0.19.8's own CPU-Adam, JIT-built into the venv's torch extensions cache on first use)
# as the reference for kernels/cpu/cpu_adam (tests/core/kernels/test_cpu_adam.cpp).
#   run DIR: reads DIR/spec.json {"n", "steps", "lr", "betas", "eps", "weight_decay", "adamw_mode", "bias_correction"}
#   and float32 files DIR/param.bin, exp_avg.bin, exp_avg_sq.bin (n each) and grad.bin (steps * n), runs `steps`
#   updates, and writes DIR/out_param.bin, out_exp_avg.bin, out_exp_avg_sq.bin.
import json
import os
import sys

os.environ.setdefault("DS_ACCELERATOR", "cpu")


def run(d):
    import numpy as np
    import torch
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    spec = json.load(open(os.path.join(d, "spec.json")))
    n, steps = spec["n"], spec["steps"]
    read = lambda name, count: torch.from_numpy(np.fromfile(os.path.join(d, name), dtype=np.float32, count=count).copy())
    p = torch.nn.Parameter(read("param.bin", n))
    grads = read("grad.bin", n * steps).view(steps, n)
    opt = DeepSpeedCPUAdam([p], lr=spec["lr"], betas=tuple(spec["betas"]), eps=spec["eps"],
                           weight_decay=spec["weight_decay"], adamw_mode=spec["adamw_mode"],
                           bias_correction=spec["bias_correction"])
    st = opt.state[p]
    st["step"] = 0
    st["exp_avg"] = read("exp_avg.bin", n)
    st["exp_avg_sq"] = read("exp_avg_sq.bin", n)
    for k in range(steps):
        p.grad = grads[k].clone()
        opt.step()
    for name, t in (("out_param.bin", p.data), ("out_exp_avg.bin", st["exp_avg"]), ("out_exp_avg_sq.bin", st["exp_avg_sq"])):
        t.contiguous().numpy().astype(np.float32).tofile(os.path.join(d, name))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "run":
        sys.exit("usage: deepspeed_cpu_adam.py run DIR")
    run(sys.argv[2])
