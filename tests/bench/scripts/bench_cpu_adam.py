# The Python side of tests/bench/bench_offload_cpu_adam.cpp: DeepSpeed 0.19.8's DeepSpeedCPUAdam (its JIT-built
# CPU-Adam) and torch.optim.AdamW on the same sizes and threads, best of ROUNDS.
#   run N[,N...] THREADS ROUNDS -> one JSON line {"<n>": {"ds_fp32": s, "ds_offload_bf16": s, "torch_adamw": s}}
# "ds_offload_bf16" is DeepSpeed's offload update as ZeRO-Offload runs it for bf16: the bf16 gradient partition
# copied into the fp32 gradient buffer, adam_update on the fp32 master, the master copied into the bf16 parameters.
import json
import os
import sys
import time

os.environ.setdefault("DS_ACCELERATOR", "cpu")


def best(fn, rounds):
    fn()  # warm-up (page faults, JIT)
    t = []
    for _ in range(rounds):
        s = time.perf_counter()
        fn()
        t.append(time.perf_counter() - s)
    return min(t)


def main(sizes, threads, rounds):
    import torch
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    torch.set_num_threads(threads)
    out = {}
    for n in sizes:
        p = torch.nn.Parameter(torch.randn(n))
        p.grad = torch.randn(n)
        ds = DeepSpeedCPUAdam([p], lr=1e-3, weight_decay=0.01, adamw_mode=True)
        r = {"ds_fp32": best(ds.step, rounds)}
        g16 = torch.randn(n).to(torch.bfloat16)
        p16 = torch.empty(n, dtype=torch.bfloat16)

        def offload_update():
            p.grad.copy_(g16)
            ds.step()
            p16.copy_(p.data)

        r["ds_offload_bf16"] = best(offload_update, rounds)
        del ds
        q = torch.nn.Parameter(torch.randn(n))
        q.grad = torch.randn(n)
        adamw = torch.optim.AdamW([q], lr=1e-3, weight_decay=0.01, foreach=False)
        r["torch_adamw"] = best(adamw.step, rounds)
        try:
            fused = torch.optim.AdamW([q], lr=1e-3, weight_decay=0.01, fused=True)
            r["torch_adamw_fused"] = best(fused.step, rounds)
        except Exception:  # fused AdamW on CPU needs a recent torch
            pass
        out[str(n)] = r
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "run":
        sys.exit("usage: bench_cpu_adam.py run N[,N...] THREADS ROUNDS")
    main([int(x) for x in sys.argv[2].split(",")], int(sys.argv[3]), int(sys.argv[4]))
