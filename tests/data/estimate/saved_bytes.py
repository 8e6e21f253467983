"""Bytes autograd keeps for backward in one transformer block, measured by PyTorch itself.

Replicas of core/model/gpt2.cpp's, bert.cpp's and llama.cpp's blocks with the same ATen ops (layer_norm / our RMSNorm,
addmm / linear, views, RoPE with constant cos/sin, repeat_interleave for grouped-query attention,
scaled_dot_product_attention, gelu tanh / silu gate, residual adds), run under
torch.autograd.graph.saved_tensors_hooks; the distinct storages saved, without the fp32 parameters, are summed
(autocast's bit16 weight copies are reported apart).
usage: saved_bytes.py SPEC...  with SPEC = gpt2,B,T,C,H,I or bert,B,T,C,H,I or llama,B,T,C,H,K,D,I
prints a JSON list, one {"fp32": {...}, "bf16": {...}} per SPEC
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


def rms_norm(x, weight, eps=1e-6):
    dtype = x.dtype
    h = x.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return weight * h.to(dtype)


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    c, s = cos.to(x.dtype), sin.to(x.dtype)
    rotated = torch.cat([-x.narrow(-1, half, half), x.narrow(-1, 0, half)], -1)
    return x * c + rotated * s


def rope_tables(T, D):
    pos = torch.arange(T, dtype=torch.float32)
    inv = 1.0 / (10000.0 ** (torch.arange(0, D, 2, dtype=torch.float32) / D))
    emb = torch.cat([pos[:, None] * inv[None, :]] * 2, -1)
    return emb.cos(), emb.sin()


def llama_block(h, w, cos, sin, B, T, C, H, K, D, I):
    x = rms_norm(h, w["ln1"])
    q = F.linear(x, w["q"]).view(B, T, H, D).transpose(1, 2)
    k = F.linear(x, w["k"]).view(B, T, K, D).transpose(1, 2)
    v = F.linear(x, w["v"]).view(B, T, K, D).transpose(1, 2)
    q, k = rope(q, cos, sin), rope(k, cos, sin)
    if K != H:
        k, v = k.repeat_interleave(H // K, 1), v.repeat_interleave(H // K, 1)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1 / math.sqrt(D))
    h = h + F.linear(a.transpose(1, 2).reshape(B, T, H * D), w["o"])
    x = rms_norm(h, w["ln2"])
    m = F.silu(F.linear(x, w["gate"])) * F.linear(x, w["up"])
    return h + F.linear(m, w["down"])


def bert_layer(h_in, w, B, T, C, H, I):
    D = C // H
    heads = lambda t: t.view(B, T, H, D).transpose(1, 2)  # noqa: E731
    a = F.scaled_dot_product_attention(heads(F.linear(h_in, w["q"], w["qb"])), heads(F.linear(h_in, w["k"], w["kb"])),
                                       heads(F.linear(h_in, w["v"], w["vb"])), None, 0.0, False, scale=1 / math.sqrt(D))
    a = F.linear(a.transpose(1, 2).reshape(B, T, C), w["ao"], w["aob"])
    h = F.layer_norm(a + h_in, (C,), w["ln1w"], w["ln1b"], 1e-12)
    m = F.linear(F.gelu(F.linear(h, w["i"], w["ib"])), w["o"], w["ob"])
    return F.layer_norm(m + h, (C,), w["ln2w"], w["ln2b"], 1e-12)


def measure(arch, dims, bf16):
    g = lambda *s: torch.randn(*s, requires_grad=True)  # noqa: E731
    shared = []
    if arch == "gpt2":
        B, T, C, H, I = dims
        w = dict(ln1w=g(C), ln1b=g(C), aw=g(C, 3 * C), ab=g(3 * C), pw=g(C, C), pb=g(C), ln2w=g(C), ln2b=g(C),
                 fw=g(C, I), fb=g(I), mw=g(I, C), mb=g(C))
        run = lambda h: block(h, w, B, T, C, H, I)  # noqa: E731
    elif arch == "bert":
        B, T, C, H, I = dims
        w = dict(q=g(C, C), qb=g(C), k=g(C, C), kb=g(C), v=g(C, C), vb=g(C), ao=g(C, C), aob=g(C), ln1w=g(C), ln1b=g(C),
                 i=g(I, C), ib=g(I), o=g(C, I), ob=g(C), ln2w=g(C), ln2b=g(C))
        run = lambda h: bert_layer(h, w, B, T, C, H, I)  # noqa: E731
    else:
        B, T, C, H, K, D, I = dims
        w = dict(ln1=g(C), q=g(H * D, C), k=g(K * D, C), v=g(K * D, C), o=g(C, H * D), ln2=g(C), gate=g(I, C),
                 up=g(I, C), down=g(C, I))
        # cos/sin are computed once per forward and shared by every block (core/model/rope.cpp): not the block's
        cos, sin = rope_tables(T, D)
        shared = [cos, sin]
        run = lambda h: llama_block(h, w, cos, sin, B, T, C, H, K, D, I)  # noqa: E731
    # The block input is another block's output in the model, not a leaf (autocast caches casts of leaves only).
    h0 = torch.randn(B, T, C, requires_grad=True) * 1.0
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        seen[st.data_ptr()] = (st.nbytes(), t.dtype, tuple(t.shape))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            run(h0)
    params = {p.untyped_storage().data_ptr() for p in list(w.values()) + shared}
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


out = []
for spec in sys.argv[1:]:
    arch, *dims = spec.split(",")
    dims = [int(x) for x in dims]
    out.append({"fp32": measure(arch, dims, False), "bf16": measure(arch, dims, True)})
json.dump(out, sys.stdout)
