"""Bytes autograd keeps for backward in one GPT-2 block, measured by PyTorch itself.

A replica of core/model/gpt2.cpp's block with the same ATen ops (layer_norm, addmm, split/view/transpose,
scaled_dot_product_attention, gelu tanh, residual adds), run under torch.autograd.graph.saved_tensors_hooks;
the distinct storages saved, without the fp32 parameters, are summed (autocast's bit16 weight copies are
reported apart). usage: saved_bytes.py B T C H I -> JSON {"fp32": {...}, "bf16": {...}}
"""
import json
import math
import sys

import torch
import torch.nn.functional as F


def block(h, w, B, T, C, H, I):
    D = C // H
    x = F.layer_norm(h, (C,), w["ln1w"], w["ln1b"], 1e-5)
    qkv = torch.addmm(w["ab"], x.reshape(-1, C), w["aw"]).view(B, T, 3 * C)
    q, k, v = [t.view(B, T, H, D).transpose(1, 2) for t in qkv.split(C, 2)]
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1 / math.sqrt(D))
    a = a.transpose(1, 2).reshape(B, T, C)
    h = torch.addmm(w["pb"], a.reshape(-1, C), w["pw"]).view(B, T, C) + h
    x = F.layer_norm(h, (C,), w["ln2w"], w["ln2b"], 1e-5)
    m = F.gelu(torch.addmm(w["fb"], x.reshape(-1, C), w["fw"]).view(B, T, I), approximate="tanh")
    return torch.addmm(w["mb"], m.reshape(-1, I), w["mw"]).view(B, T, C) + h


def measure(B, T, C, H, I, bf16):
    g = lambda *s: torch.randn(*s, requires_grad=True)  # noqa: E731
    w = dict(ln1w=g(C), ln1b=g(C), aw=g(C, 3 * C), ab=g(3 * C), pw=g(C, C), pb=g(C), ln2w=g(C), ln2b=g(C),
             fw=g(C, I), fb=g(I), mw=g(I, C), mb=g(C))
    h0 = torch.randn(B, T, C, requires_grad=True)
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        seen[st.data_ptr()] = (st.nbytes(), t.dtype, tuple(t.shape))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            block(h0, w, B, T, C, H, I)
    params = {p.untyped_storage().data_ptr() for p in w.values()}
    weight_shapes = {tuple(p.shape) for p in w.values()} | {tuple(p.t().shape) for p in w.values()}
    saved = weight_copies = 0
    for ptr, (n, dtype, shape) in seen.items():
        if ptr in params:
            continue
        if dtype == torch.bfloat16 and shape in weight_shapes and len(shape) <= 2 and shape[0] != B * T:
            weight_copies += n
        else:
            saved += n
    return {"saved": saved, "weight_copies": weight_copies, "block_parameters": sum(p.numel() for p in w.values())}


B, T, C, H, I = (int(x) for x in sys.argv[1:6])
json.dump({"fp32": measure(B, T, C, H, I, False), "bf16": measure(B, T, C, H, I, True)}, sys.stdout)
