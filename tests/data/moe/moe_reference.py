"""Reference numerics of a sparse MoE feed-forward from transformers (run by model_test_moe_golden at test time,
fresh random weights): `moe_reference.py OUT_DIR` writes OUT_DIR/<case>.safetensors for each case with the
block's weights, an input, the output, an upstream gradient and the gradients of the input and every weight; and
OUT_DIR/balance.safetensors with three layers' router logits, an attention mask and load_balancing_loss_func's
value with and without the mask. Cases: Mixtral (top-2 of 8, renormalised), Qwen3-MoE with norm_topk_prob on and
off (top-3 of 6), gpt-oss (biased router, top-2 of 6, clamped SwiGLU at its default limit and at 0.8). And
OUT_DIR/mxfp4.safetensors: random MXFP4 blocks and scales with convert_moe_packed_tensors' float32 and bfloat16."""
import sys
from pathlib import Path

import torch
import transformers as tf
from safetensors.torch import save_file
from transformers.integrations.mxfp4 import convert_moe_packed_tensors
from transformers.models.gpt_oss import modeling_gpt_oss
from transformers.models.mixtral import modeling_mixtral
from transformers.models.qwen3_moe import modeling_qwen3_moe

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.manual_seed(0)


def run(name, block, hidden):
    with torch.no_grad():
        for p in block.parameters():
            p.normal_(0.0, 0.2)
    block.train()
    x = torch.randn(3, 11, hidden, requires_grad=True)
    y = block(x)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    t = {"input": x.detach(), "output": y.detach(), "grad_output": g, "grad_input": x.grad}
    for n, p in block.named_parameters():
        t[n] = p.detach().contiguous()
        t["grad." + n] = p.grad.contiguous()
    save_file({k: v.contiguous() for k, v in t.items()}, str(out / f"{name}.safetensors"))


cfg = tf.MixtralConfig(hidden_size=64, intermediate_size=96, num_local_experts=8, num_experts_per_tok=2,
                       router_jitter_noise=0.0, hidden_act="silu")
run("mixtral", modeling_mixtral.MixtralSparseMoeBlock(cfg), 64)
for norm in (True, False):
    cfg = tf.Qwen3MoeConfig(hidden_size=48, moe_intermediate_size=40, num_experts=6, num_experts_per_tok=3,
                            norm_topk_prob=norm, hidden_act="silu")
    run("qwen3_moe_norm" if norm else "qwen3_moe", modeling_qwen3_moe.Qwen3MoeSparseMoeBlock(cfg), 48)

for name, limit in (("gpt_oss", 7.0), ("gpt_oss_clamped", 0.8)):  # the second clamps many gate and up values
    cfg = tf.GptOssConfig(hidden_size=64, intermediate_size=48, num_local_experts=6, num_experts_per_tok=2,
                          swiglu_limit=limit)
    block = modeling_gpt_oss.GptOssMLP(cfg)
    block.forward_output = block.forward
    block.forward = lambda h, b=block: b.forward_output(h)[0]  # (hidden, router scores): the hidden states
    run(name, block, 64)

# MXFP4 experts as gpt-oss ships them: random blocks and exponents around 2^0, dequantized as transformers loads them
blocks = torch.randint(0, 256, (3, 10, 2, 16), dtype=torch.uint8)
scales = torch.randint(117, 138, (3, 10, 2), dtype=torch.uint8)
save_file({"blocks": blocks, "scales": scales,
           "float32": convert_moe_packed_tensors(blocks, scales, dtype=torch.float32).contiguous(),
           "bfloat16": convert_moe_packed_tensors(blocks, scales, dtype=torch.bfloat16).contiguous()},
          str(out / "mxfp4.safetensors"))

logits = tuple(torch.randn(33, 8) for _ in range(3))
mask = torch.ones(3, 11)
mask[0, 8:] = 0
mask[2, 5:] = 0
save_file({"logits0": logits[0], "logits1": logits[1], "logits2": logits[2], "mask": mask,
           "loss": torch.tensor(float(modeling_mixtral.load_balancing_loss_func(logits, 8, 2))),
           "loss_masked": torch.tensor(float(modeling_mixtral.load_balancing_loss_func(logits, 8, 2, mask)))},
          str(out / "balance.safetensors"))
print("ok")
