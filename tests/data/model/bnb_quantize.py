"""bitsandbytes' 4-bit quantization of the tensors in a safetensors file, for tests/core/model/test_quant4bit_golden.cpp.

usage: bnb_quantize.py IN.safetensors OUT.safetensors
For every input tensor X and every (quant_type, double_quant) in nf4/fp4 x False/True it writes, under
"<name>.<quant_type>.<dq>.": packed (uint8), absmax (float32 or uint8), nested_absmax (float32), offset (float32,
shape [1]), dequant (X's dtype); and "dynamic_map" (256 float32) and "nf4_code" / "fp4_code" (16 float32).
"""
import sys

import torch
from safetensors.torch import load_file, save_file

import bitsandbytes.functional as F

torch.set_num_threads(1)
inputs = load_file(sys.argv[1])
out = {
    "dynamic_map": F.create_dynamic_map(signed=True).float().contiguous(),
    "nf4_code": F.get_4bit_type("nf4", device="cpu").float().contiguous(),
    "fp4_code": F.get_4bit_type("fp4", device="cpu").float().contiguous(),
}
for name, x in inputs.items():
    for qt in ("nf4", "fp4"):
        for dq in (False, True):
            key = f"{name}.{qt}.{int(dq)}."
            packed, st = F.quantize_4bit(x, blocksize=64, quant_type=qt, compress_statistics=dq)
            out[key + "packed"] = packed.contiguous()
            out[key + "absmax"] = st.absmax.contiguous()
            if dq:
                out[key + "nested_absmax"] = st.state2.absmax.float().contiguous()
                out[key + "offset"] = st.offset.float().reshape(1).contiguous()
            # The flat-block formula (the AVX512 path misindexes rows whose length is a multiple of 16 but not of
            # the blocksize; real Linear layers never are): the default kernel on the flattened weight.
            absmax = F.dequantize_blockwise(st.absmax, st.state2) + st.offset if dq else st.absmax
            code = F.get_4bit_type(qt, device="cpu")
            q = torch.stack([packed.reshape(-1) >> 4, packed.reshape(-1) & 15], 1).reshape(-1)[: x.numel()].long()
            deq = (code[q] * absmax.float().repeat_interleave(64)[: x.numel()]).to(x.dtype).reshape(x.shape)
            out[key + "dequant"] = deq.contiguous()
            if x.dim() == 2 and x.shape[1] % 64 == 0:  # bitsandbytes' own dequantize agrees there
                assert torch.equal(F.dequantize_4bit(packed, st), deq), key
save_file(out, sys.argv[2])
