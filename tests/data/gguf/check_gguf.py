"""Checks of fts's GGUF export against the references (run by integration_test_export_gguf; prints one JSON line,
exits 1 with the reasons when a check fails):
  metadata MODEL_DIR GGUF          the gguf package reads the file: architecture keys from config.json, tokenizer
                                   keys from tokenizer.json, every tensor with its shape; f32/f16/bf16 tensors equal
                                   the safetensors rearranged here by llama.cpp's converter's formulas (numpy)
  llama-quant F32_GGUF PRESET=GGUF...  llama.cpp's own quantizer (llama_model_quantize) applied to our f32 file gives
                                   the same type and the same bytes for every tensor as our PRESET file; gguf.quants
                                   gives the same bytes where it implements the type (q8_0, q4_0, q5_0, ...)
  decode GGUF                      tensors NAME (quantized) and NAME.decoded (f32, our decoder) decode equal with
                                   gguf.quants.dequantize
  logits MODEL_DIR GGUF TOL [--gelu16] [--greedy N]
                                   llama.cpp (llama-cpp-python, f32 KV cache) tokenizes a prompt as HF tokenizers
                                   does, its logits equal transformers' within TOL, greedy decoding gives the same
                                   tokens; --gelu16: the reference computes GELU through llama.cpp's float16 table
  tokens MODEL_DIR GGUF CORPUS     llama.cpp (vocabulary only) tokenizes every line of the tokenizer corpus as the HF
                                   tokenizer does (special tokens parsed, as HF's encode does); the differences
                                   llama.cpp has by design are counted apart: it does not normalize (a tokenizer
                                   with NFC: a line not in NFC), and it treats the text of end-of-generation tokens
                                   (</s>, <|im_end|>, ...) as those tokens even where the tokenizer does not
  perplexity TEXTS_JSONL GGUF...   perplexity of each file over the texts (llama.cpp), as JSON
"""
import json, re, sys, tempfile
from pathlib import Path

import numpy as np

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def finish(result):
    result["failures"] = failures
    print(json.dumps(result))
    sys.exit(1 if failures else 0)


def reader(path):
    import gguf
    return gguf.GGUFReader(path)


def tensor_table(path):
    """Name -> (GGML type, dims, bytes) of every tensor of a GGUF file, read without the metadata's values:
    gguf.GGUFReader builds a numpy view per element of every array (151,936 tokens and as many merges for Qwen's
    vocabulary: seconds per file), which the tensor comparisons do not need. The layout is the GGUF spec's
    (llama.cpp docs/gguf.md): header, key/values, tensor infos, data aligned to general.alignment."""
    import struct, gguf
    buf = memoryview(Path(path).read_bytes())
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, buf, pos)
        pos += struct.calcsize("<" + fmt)
        return v[0]

    def string():
        nonlocal pos
        n = take("Q")
        pos += n
        return bytes(buf[pos - n:pos]).decode("utf-8")

    scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def value(vtype):
        nonlocal pos
        if vtype == 8:
            return string()
        if vtype == 9:
            etype, count = take("I"), take("Q")
            if etype in scalar:
                pos += count * struct.calcsize("<" + scalar[etype])
            else:
                for _ in range(count):
                    value(etype)
            return None
        return take(scalar[vtype])

    check(bytes(buf[:4]) == b"GGUF", f"{path}: not a GGUF file")
    pos = 4
    take("I")  # version
    n_tensors, n_kv = take("Q"), take("Q")
    alignment = 32
    for _ in range(n_kv):
        key = string()
        v = value(take("I"))
        if key == "general.alignment":
            alignment = v
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = [take("Q") for _ in range(take("I"))]
        infos.append((name, take("I"), dims, take("Q")))
    start = (pos + alignment - 1) // alignment * alignment
    table = {}
    for name, ttype, dims, offset in infos:
        block, size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType(ttype)]
        nbytes = int(np.prod(dims)) // block * size
        table[name] = (ttype, dims, buf[start + offset:start + offset + nbytes])
    return table


def field(r, key):
    f = r.fields.get(key)
    if f is None:
        return None
    import gguf
    if f.types and f.types[0] == gguf.GGUFValueType.ARRAY:
        if f.types[-1] == gguf.GGUFValueType.STRING:
            return [bytes(f.parts[i]).decode("utf-8") for i in f.data]
        return [f.parts[i].tolist()[0] for i in f.data]
    if f.types[0] == gguf.GGUFValueType.STRING:
        return bytes(f.parts[f.data[0]]).decode("utf-8")
    return f.parts[f.data[0]].tolist()[0]


# ---- llama.cpp's converter's layout, written independently of fts (conversion/llama.py, gpt2.py) ----

def permute(w, n_head):
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def expected_tensors(model_dir):
    """GGUF name -> numpy array (f32) from the HF folder, as llama.cpp's converter lays them out."""
    from safetensors.numpy import load_file
    import torch
    from safetensors.torch import load_file as load_torch
    cfg = json.load(open(Path(model_dir) / "config.json"))
    raw = {k: v.float().numpy() for k, v in load_torch(str(Path(model_dir) / "model.safetensors")).items()}
    out = {}
    mt = cfg["model_type"]
    if mt == "gpt2":
        for k, v in raw.items():
            k = k.removeprefix("transformer.")
            if k.endswith((".attn.bias", ".attn.masked_bias")):
                continue
            if k.endswith((".c_attn.weight", ".c_proj.weight", ".c_fc.weight")):
                v = v.T
            m = re.match(r"h\.(\d+)\.(.*)", k)
            names = {"wte.weight": "token_embd.weight", "wpe.weight": "position_embd.weight",
                     "ln_f.weight": "output_norm.weight", "ln_f.bias": "output_norm.bias",
                     "lm_head.weight": "output.weight"}
            if m:
                sub = {"ln_1": "attn_norm", "attn.c_attn": "attn_qkv", "attn.c_proj": "attn_output",
                       "ln_2": "ffn_norm", "mlp.c_fc": "ffn_up", "mlp.c_proj": "ffn_down"}
                mod, kind = m.group(2).rsplit(".", 1)
                out[f"blk.{m.group(1)}.{sub[mod]}.{kind}"] = v
            else:
                out[names[k]] = v
        return cfg, out
    n_head, n_kv = cfg["num_attention_heads"], cfg.get("num_key_value_heads", cfg["num_attention_heads"])
    llama = mt in ("llama", "mistral")
    for k, v in raw.items():
        if k.endswith("rotary_emb.inv_freq"):
            continue
        if llama and ("q_proj" in k):
            v = permute(v, n_head)
        if llama and ("k_proj" in k):
            v = permute(v, n_kv)
        names = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
                 "lm_head.weight": "output.weight"}
        m = re.match(r"model\.layers\.(\d+)\.(.*)", k)
        if m:
            sub = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
                   "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
                   "post_attention_layernorm": "ffn_norm", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
                   "mlp.down_proj": "ffn_down"}
            mod, kind = m.group(2).rsplit(".", 1)
            out[f"blk.{m.group(1)}.{sub[mod]}.{kind}"] = v
        else:
            out[names[k]] = v
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters") or {}
    if rope.get("rope_type", rope.get("type")) == "llama3":  # conversion/llama.py's rope_freqs
        base = rope.get("rope_theta", cfg.get("rope_theta", 10000.0))
        dim = cfg.get("head_dim") or cfg["hidden_size"] // n_head
        freqs = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float32) / dim))
        factor, lo, hi = rope.get("factor", 8.0), rope.get("low_freq_factor", 1.0), rope.get("high_freq_factor", 4.0)
        old = rope.get("original_max_position_embeddings", 8192)
        lo_wl, hi_wl = old / lo, old / hi
        factors = []
        for f in freqs:
            wl = 2 * np.pi / f
            if wl < hi_wl:
                factors.append(1.0)
            elif wl > lo_wl:
                factors.append(factor)
            else:
                s = (old / wl - lo) / (hi - lo)
                factors.append(1 / ((1 - s) / factor + s))
        out["rope_freqs.weight"] = np.array(factors, dtype=np.float32)
    return cfg, out


def model_is_spm(r):
    return field(r, "tokenizer.ggml.model") == "llama"


def cmd_metadata(model_dir, path):
    import gguf
    r = reader(path)
    cfg, want = expected_tensors(model_dir)
    mt = cfg["model_type"]
    arch = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "gpt2": "gpt2"}[mt]
    check(field(r, "general.architecture") == arch, f"general.architecture {field(r, 'general.architecture')}")
    if mt == "gpt2":
        keys = {"block_count": cfg["n_layer"], "embedding_length": cfg["n_embd"], "attention.head_count": cfg["n_head"],
                "context_length": cfg["n_positions"], "feed_forward_length": cfg.get("n_inner") or 4 * cfg["n_embd"]}
        floats = {"attention.layer_norm_epsilon": cfg["layer_norm_epsilon"]}
    else:
        keys = {"block_count": cfg["num_hidden_layers"], "embedding_length": cfg["hidden_size"],
                "feed_forward_length": cfg["intermediate_size"], "attention.head_count": cfg["num_attention_heads"],
                "attention.head_count_kv": cfg.get("num_key_value_heads", cfg["num_attention_heads"]),
                "context_length": cfg["max_position_embeddings"]}
        rope = cfg.get("rope_parameters") or {}
        theta = cfg.get("rope_theta", rope.get("rope_theta", 10000.0))
        floats = {"attention.layer_norm_rms_epsilon": cfg["rms_norm_eps"], "rope.freq_base": theta}
        if arch == "llama":
            keys["vocab_size"] = cfg["vocab_size"]
            keys["rope.dimension_count"] = cfg["hidden_size"] // cfg["num_attention_heads"]
    for k, v in keys.items():
        check(field(r, f"{arch}.{k}") == v, f"{arch}.{k}: {field(r, f'{arch}.{k}')} != {v}")
    for k, v in floats.items():
        got = field(r, f"{arch}.{k}")
        check(got is not None and abs(got - v) <= 1e-6 * max(1, abs(v)), f"{arch}.{k}: {got} != {v}")
    check(field(r, "general.quantization_version") == 2, "general.quantization_version")
    # tokenizer
    tj = json.load(open(Path(model_dir) / "tokenizer.json"))
    tokens = field(r, "tokenizer.ggml.tokens")
    check(tokens is not None and len(tokens) == cfg["vocab_size"], f"tokens: {None if tokens is None else len(tokens)}")
    vocab = dict(tj["model"]["vocab"])
    for a in tj.get("added_tokens", []):
        vocab[a["content"]] = a["id"]
    bad = [t for t, i in vocab.items() if tokens[i] != t]
    check(not bad, f"token texts differ: {bad[:5]}")
    types = field(r, "tokenizer.ggml.token_type")
    unk = field(r, "tokenizer.ggml.unknown_token_id")
    for a in tj.get("added_tokens", []):
        if a.get("special"):  # control; SentencePiece's <unk> is llama.cpp's "unknown"
            want_type = gguf.TokenType.UNKNOWN if (model_is_spm(r) and a["id"] == unk) else gguf.TokenType.CONTROL
            check(types[a["id"]] == want_type, f"special token {a['content']} has type {types[a['id']]}")
    model = field(r, "tokenizer.ggml.model")
    if model == "gpt2":
        merges = field(r, "tokenizer.ggml.merges")
        src = [m if isinstance(m, str) else " ".join(m) for m in tj["model"]["merges"]]
        check(merges == src, "merges differ from tokenizer.json")
    else:
        check(model == "llama" and len(field(r, "tokenizer.ggml.scores")) == len(tokens), f"tokenizer.ggml.model {model}")
    eos = cfg.get("eos_token_id")
    check(field(r, "tokenizer.ggml.eos_token_id") is not None, "no eos id")
    # tensors
    got = {t.name: t for t in r.tensors}
    check(sorted(got) == sorted(want), f"tensor names: extra {sorted(set(got) - set(want))} missing {sorted(set(want) - set(got))}")
    for name, w in want.items():
        t = got.get(name)
        if t is None:
            continue
        shape = [int(x) for x in t.shape]
        check(shape == list(reversed(w.shape)) or shape == list(reversed(w.shape)) + [1],
              f"{name}: shape {shape}, expected {list(reversed(w.shape))}")
        ttype = gguf.GGMLQuantizationType(t.tensor_type)
        if ttype in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16, gguf.GGMLQuantizationType.BF16):
            values = gguf.quants.dequantize(t.data, ttype).reshape(w.shape).astype(np.float32)
            expect = w
            if ttype == gguf.GGMLQuantizationType.F16:
                expect = w.astype(np.float16).astype(np.float32)
            elif ttype == gguf.GGMLQuantizationType.BF16:
                expect = gguf.quants.dequantize(gguf.quants.quantize(w, ttype), ttype).reshape(w.shape)
            if name == "rope_freqs.weight":  # computed (float32 powers), not copied: equal within float32 rounding
                check(np.allclose(values, expect, rtol=1e-6, atol=0), f"{name}: {values} != {expect}")
            else:
                check(np.array_equal(values, expect), f"{name}: {ttype.name} values differ from the safetensors")
    finish({"tensors": len(got), "arch": arch, "tokens": len(tokens)})


FTYPES = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 7, "q4_k_m": 15, "q5_k_m": 17, "q6_k": 18, "bf16": 32}


def cmd_llama_quant(f32_path, pairs):
    results, f32 = {}, tensor_table(f32_path)  # the file every preset is compared from, read once
    for pair in pairs:
        preset, ours_path = pair.split("=", 1)
        results[preset] = llama_quant_one(f32_path, f32, ours_path, preset)
    finish({"presets": results})


def llama_quant_one(f32_path, f32, ours_path, preset):
    import ctypes, gguf, llama_cpp
    out = tempfile.NamedTemporaryFile(suffix=".gguf", delete=False).name
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = FTYPES[preset]
    params.nthread = 2
    rc = llama_cpp.llama_model_quantize(f32_path.encode(), out.encode(), ctypes.byref(params))
    check(rc == 0, f"llama_model_quantize returned {rc}")
    theirs, ours = tensor_table(out), tensor_table(ours_path)
    check(sorted(theirs) == sorted(ours), "tensor names differ")
    types, same, gguf_checked = {}, 0, 0
    for name, (their_type, _, their_bytes) in theirs.items():
        if name not in ours:
            continue
        our_type, _, our_bytes = ours[name]
        tt, ot = gguf.GGMLQuantizationType(their_type), gguf.GGMLQuantizationType(our_type)
        check(tt == ot, f"{name}: llama.cpp chose {tt.name}, we wrote {ot.name}")
        types[ot.name] = types.get(ot.name, 0) + 1
        if tt == ot:
            equal = their_bytes == our_bytes
            check(equal, f"{preset} {name} ({ot.name}): bytes differ from llama.cpp's")
            same += equal
        # gguf-py's own quantizer, where it has one, from the same f32 values
        f32_type, f32_dims, f32_bytes = f32[name]
        check(f32_type == 0, f"{f32_path}: {name} is not F32")
        values = np.frombuffer(f32_bytes, dtype=np.float32).reshape(-1, int(f32_dims[0]))
        try:
            ref = gguf.quants.quantize(values, ot)
        except (NotImplementedError, gguf.quants.QuantError):
            ref = None
        if ref is not None and ot not in (gguf.GGMLQuantizationType.F32,):
            gguf_checked += 1
            check(ref.tobytes() == our_bytes, f"{preset} {name} ({ot.name}): bytes differ from gguf.quants")
    Path(out).unlink()
    return {"types": types, "equal_to_llama_cpp": same, "tensors": len(theirs), "checked_with_gguf_quants": gguf_checked}


def cmd_decode(path):
    import gguf
    ts = {t.name: t for t in reader(path).tensors}
    checked = 0
    for name, t in ts.items():
        if name.endswith(".decoded"):
            continue
        dec = ts[name + ".decoded"]
        ttype = gguf.GGMLQuantizationType(t.tensor_type)
        theirs = gguf.quants.dequantize(t.data, ttype).reshape(-1)
        ours = np.array(dec.data, dtype=np.float32).reshape(-1)
        check(np.array_equal(theirs.astype(np.float32), ours), f"{name} ({ttype.name}): gguf decodes differently, "
              f"max diff {np.abs(theirs - ours).max()}")
        checked += 1
    finish({"checked": checked})


def llama(path, n_ctx=256):
    import llama_cpp
    return llama_cpp.Llama(model_path=path, n_ctx=n_ctx, logits_all=True, verbose=False, n_threads=2,
                           type_k=0, type_v=0, flash_attn=False)


def cmd_logits(model_dir, path, tol, gelu16, greedy):
    import torch, transformers as tf
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    text = "Once upon a time, a little dog named Max ran to the park. He saw 3 birds and said: \"Hello!\""
    ids = tok.encode(text).ids
    llm = llama(path)
    ll_ids = llm.tokenize(text.encode(), add_bos=True, special=False)
    check(ll_ids == ids, f"llama.cpp tokenizes differently: {ll_ids[:16]} vs {ids[:16]}")
    llm.reset()
    llm.eval(ids)
    got = np.array(llm.scores[:len(ids)], dtype=np.float32)
    m = tf.AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    m.eval()
    if gelu16:  # llama.cpp's GELU: a float16 table indexed by the float16 input (ggml-cpu/vec.h)
        class Gelu16(torch.nn.Module):
            def forward(self, x):
                h = x.half().float().numpy()
                a, c = np.float32(0.044715), np.float32(0.7978845608028654)
                g = (np.float32(0.5) * h * (np.float32(1.0) + np.tanh(c * h * (np.float32(1.0) + a * h * h))))
                y = torch.from_numpy(g.astype(np.float32)).half().float()
                return torch.where(x <= -10, torch.zeros_like(x), torch.where(x >= 10, x, y))
        if hasattr(m, "transformer"):  # GPT-2
            for blk in m.transformer.h:
                blk.mlp.act = Gelu16()
        else:  # Gemma's tanh-GELU gate
            for layer in m.model.layers:
                layer.mlp.act_fn = Gelu16()
    with torch.no_grad():
        ref = m(torch.tensor([ids])).logits[0].numpy()
    diff = float(np.abs(got - ref).max())
    check(diff <= tol, f"logits differ by {diff} (tolerance {tol})")
    result = {"tokens": len(ids), "max_abs_diff": diff, "max_abs_logit": float(np.abs(ref).max())}
    if greedy:
        prompt = ids
        with torch.no_grad():
            x = torch.tensor([prompt])
            want = m.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=greedy, do_sample=False,
                              min_new_tokens=greedy, pad_token_id=-1)[0, len(prompt):].tolist()
        llm.reset()
        seq = []
        for t in llm.generate(prompt, temp=0.0, top_k=1, reset=True):
            seq.append(t)
            if len(seq) == greedy:
                break
        check(seq == want, f"greedy tokens differ: llama.cpp {seq} vs transformers {want}")
        result["greedy"] = seq
    llm.close()
    finish(result)


EOG_TEXTS = ("</s>", "<|eot_id|>", "<|im_end|>", "<|endoftext|>", "<|end|>", "<end_of_turn>", "<|end_of_text|>")


def cmd_tokens(model_dir, path, corpus):
    import unicodedata, llama_cpp
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tj = json.load(open(Path(model_dir) / "tokenizer.json"))
    nfc = "NFC" in json.dumps(tj.get("normalizer"))
    added = {a["content"] for a in tj.get("added_tokens", [])}
    llm = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
    equal, by_design, lines = 0, 0, 0
    for line in open(corpus, encoding="utf-8").read().split("\n"):  # split on \n only (the corpus has U+2028)
        if not line.strip():
            continue
        text = json.loads(line)["text"]
        lines += 1
        want = tok.encode(text, add_special_tokens=False).ids
        got = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        if got == want:
            equal += 1
        elif (nfc and unicodedata.normalize("NFC", text) != text) or any(e in text and e not in added for e in EOG_TEXTS):
            by_design += 1
        else:
            check(False, f"llama.cpp tokenizes {text[:60]!r} as {got[:16]}, the HF tokenizer as {want[:16]}")
    llm.close()
    finish({"lines": lines, "equal": equal, "differ_by_design": by_design})


def cmd_perplexity(texts_path, paths):
    texts = [json.loads(l)["text"] for l in open(texts_path) if l.strip()]
    out = {}
    for p in paths:
        llm = llama(p, n_ctx=512)
        nll, n = 0.0, 0
        for text in texts:
            ids = llm.tokenize(text.encode(), add_bos=True, special=False)[:256]
            llm.reset()
            llm.eval(ids)
            logits = np.array(llm.scores[:len(ids)], dtype=np.float64)
            logp = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1, keepdims=True)) - logits.max(1, keepdims=True)
            for i in range(len(ids) - 1):
                nll -= logp[i, ids[i + 1]]
                n += 1
        llm.close()
        out[Path(p).name] = float(np.exp(nll / n))
    finish({"perplexity": out})


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "metadata":
        cmd_metadata(*args)
    elif cmd == "llama-quant":
        cmd_llama_quant(args[0], args[1:])
    elif cmd == "decode":
        cmd_decode(*args)
    elif cmd == "logits":
        greedy = int(args[args.index("--greedy") + 1]) if "--greedy" in args else 0
        cmd_logits(args[0], args[1], float(args[2]), "--gelu16" in args, greedy)
    elif cmd == "tokens":
        cmd_tokens(*args)
    elif cmd == "perplexity":
        cmd_perplexity(args[0], args[1:])
    else:
        sys.exit("unknown command " + cmd)
