# Reference for the Trainer's learning-rate schedules: transformers' get_scheduler, stepped as DeepSpeed steps a
# client scheduler (once after every applied optimizer step). Input (stdin, JSON): [{"name", "type", "lr",
# "warmup", "total", "kwargs", "steps"}]. Output (stdout, last line, JSON): [[lr of update 0, 1, ..., steps-1], ...].
import json
import sys

import torch
from transformers import get_scheduler

cases = json.load(sys.stdin)
out = []
for c in cases:
    param = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.AdamW([param], lr=c["lr"])
    sched = get_scheduler(c["type"], opt, num_warmup_steps=c["warmup"], num_training_steps=c["total"],
                          scheduler_specific_kwargs=c.get("kwargs") or None)
    lrs = []
    for _ in range(c["steps"]):
        lrs.append(opt.param_groups[0]["lr"])  # what update k runs with
        opt.step()
        sched.step()
    out.append(lrs)
print(json.dumps(out))
