# Reference trajectories from DeepSpeed's own DynamicLossScaler (deepspeed/runtime/fp16/loss_scaler.py).
# stdin: JSON list of cases {initial_scale_power, loss_scale_window, min_loss_scale, hysteresis,
# consecutive_hysteresis, overflows: [0/1, ...]}. stdout, last line: JSON list of {scales: [scale after each update],
# stopped_at: index of the update that raised (or -1), message}.
import json
import sys

import deepspeed.runtime.fp16.loss_scaler as ls

ls.dist.get_rank = lambda *a, **k: 0  # update_scale logs on rank 0; no process group here

out = []
for case in json.load(sys.stdin):
    s = ls.DynamicLossScaler(init_scale=2 ** case["initial_scale_power"],
                             scale_window=case["loss_scale_window"],
                             min_scale=case["min_loss_scale"],
                             delayed_shift=case["hysteresis"],
                             consecutive_hysteresis=case["consecutive_hysteresis"])
    scales, stopped, message = [], -1, ""
    for i, o in enumerate(case["overflows"]):
        try:
            s.update_scale(bool(o))
        except Exception as e:  # DeepSpeed raises a bare Exception at the minimum scale
            stopped, message = i, str(e)
            break
        scales.append(float(s.cur_scale))
    out.append({"scales": scales, "stopped_at": stopped, "message": message})
sys.stdout.write("\n" + json.dumps(out) + "\n")  # the last line (DeepSpeed logs to stdout too)
