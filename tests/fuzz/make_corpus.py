#!/usr/bin/env python3
"""Writes the fuzz harnesses' seed corpora (tests/fuzz/corpus/<harness>/) from the test data and a few hand-made
cases. Run from anywhere; the corpus is checked in, so this is only needed to change it."""
import json, os, shutil, struct, glob

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
data = os.path.join(root, "tests", "data")
out = os.path.join(here, "corpus")


def put(harness, name, content):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(content if isinstance(content, bytes) else content.encode())


def copy(harness, path, name=None, prefix=b""):
    with open(path, "rb") as f:
        put(harness, name or os.path.basename(path), prefix + f.read())


def safetensors(tensors, metadata=None):
    header, blob = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + blob


shutil.rmtree(out, ignore_errors=True)

# train_config: the configs the tests use, LLaMA-Factory's and the transformers docs' DeepSpeed configs.
for p in sorted(glob.glob(os.path.join(data, "config", "*.json")) + glob.glob(os.path.join(data, "config", "trainer_style", "*.json"))):
    if os.path.getsize(p) < 20000:
        copy("train_config", p)
copy("train_config", os.path.join(root, "resources", "quickstart", "quickstart.json"))
put("train_config", "offload_nvme.json", json.dumps({
    "model": {"path": "m", "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}},
    "data": {"train": "t.jsonl", "format": "sharegpt", "packing": True, "max_length": 64},
    "training": {"max_steps": 3, "learning_rate": "auto", "bf16": "auto", "warmup_ratio": 0.1, "lr_scheduler_type": "cosine"},
    "deepspeed": {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": 2, "zero_optimization": {
        "stage": 3, "sub_group_size": 1e6, "offload_optimizer": {"device": "nvme", "nvme_path": "/tmp", "buffer_count": 4},
        "offload_param": {"device": "nvme", "nvme_path": "/tmp", "max_in_cpu": 1e6}},
        "aio": {"block_size": 1048576, "queue_depth": 8}, "fp16": {"enabled": True, "loss_scale": 0}}}))

# hf_config: every architecture's config.json.
for p in sorted(glob.glob(os.path.join(data, "models", "*", "config.json"))):
    copy("hf_config", p, os.path.basename(os.path.dirname(p)) + ".json")

# safetensors: the golden inputs and hand-made files (every dtype, metadata, empty, scalar).
for p in sorted(glob.glob(os.path.join(data, "models", "*", "inputs.safetensors"))):
    if os.path.getsize(p) < 65536:
        copy("safetensors", p, os.path.basename(os.path.dirname(p)) + ".safetensors")
put("safetensors", "dtypes.safetensors", safetensors({
    "f32": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)), "bf16": ("BF16", [3], b"\x80\x3f" * 3),
    "i64": ("I64", [1], struct.pack("<q", -7)), "b": ("BOOL", [2], b"\x01\x00"), "scalar": ("F64", [], struct.pack("<d", 2.5)),
    "empty": ("F16", [0, 4], b"")}, {"format": "pt"}))
put("safetensors", "empty.safetensors", safetensors({}))

# model_weights: index files naming the fuzz harness's shard (a.weight [2, 3], b.bias [2]).
shard = "model-00001-of-00001.safetensors"
put("model_weights", "valid.json", json.dumps({"metadata": {"total_size": 32}, "weight_map": {"a.weight": shard, "b.bias": shard}}))
put("model_weights", "partial.json", json.dumps({"weight_map": {"a.weight": shard}}))
put("model_weights", "missing.json", json.dumps({"weight_map": {"a.weight": "model-00002-of-00002.safetensors"}}))
put("model_weights", "escape.json", json.dumps({"weight_map": {"a.weight": "../" + shard}}))

# tokenizer_json: the small tokenizers (the large ones make each mutation slow; tokenizer_encode uses them).
copy("tokenizer_json", os.path.join(root, "resources", "quickstart", "model", "tokenizer.json"), "quickstart_bpe.json")
copy("tokenizer_json", os.path.join(data, "sft", "tokenizer", "tokenizer.json"), "sft_bpe.json")
for p in sorted(glob.glob(os.path.join(data, "tokenizers", "toy", "*.json"))):
    copy("tokenizer_json", p, "toy_" + os.path.basename(p))

# tokenizer_encode: first byte picks the tokenizer (0 gpt2, 1 bert, 2 mistral, 3 qwen3; +0x10 special tokens).
with open(os.path.join(data, "tokenizers", "corpus.jsonl"), encoding="utf-8") as f:
    texts = [json.loads(line)["text"] for line in f if line.strip()][:12]
for i, t in enumerate(texts):
    put("tokenizer_encode", "text%02d" % i, bytes([i % 4 | (0x10 if i % 2 else 0)]) + t.encode()[:2000])

# records: first byte picks the reader (0 jsonl, 1 json, 2 csv, 3 tsv, 4 txt).
def head_bytes(path, n=3000):
    with open(path, "rb") as f:
        return f.read(n)
put("records", "alpaca.jsonl", b"\x00" + head_bytes(os.path.join(data, "sft", "alpaca.jsonl")))
put("records", "bad_rows.jsonl", b"\x00" + head_bytes(os.path.join(data, "sft", "bad_rows.jsonl")))
put("records", "array.json", b"\x01" + json.dumps([{"instruction": "a ] b", "output": "x\"y"}, {"text": "two"}]).encode())
put("records", "imdb.csv", b"\x02" + head_bytes(os.path.join(data, "classification", "imdb_train.csv")))
put("records", "pairs.tsv", b"\x03" + b"sentence1\tsentence2\tlabel\nA cat.\tA dog.\t0\n\"quoted\ttab\"\tx\t1\n")
put("records", "lines.txt", b"\x04" + b"first line\r\nsecond\n\n\xef\xbb\xbfthird\n")

# chat_records: one record per file in each format, tool calls included.
with open(os.path.join(data, "sft", "messages.jsonl"), "rb") as f:
    put("chat_records", "messages.json", f.readline())
with open(os.path.join(data, "sft", "alpaca.jsonl"), "rb") as f:
    put("chat_records", "alpaca.json", f.readline())
put("chat_records", "sharegpt_tools.json", json.dumps({
    "conversations": [{"from": "human", "value": "Weather in Paris?"},
                      {"from": "function_call", "value": json.dumps({"name": "get_weather", "arguments": {"city": "Paris"}})},
                      {"from": "observation", "value": "{\"temp\": 21}"}, {"from": "gpt", "value": "21 degrees."}],
    "system": "Be brief.", "tools": json.dumps([{"name": "get_weather", "parameters": {"type": "object"}}])}))
put("chat_records", "openai_tools.json", json.dumps({"messages": [
    {"role": "user", "content": "2+2?"},
    {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 2}"}}]},
    {"role": "tool", "content": "4"}, {"role": "assistant", "content": "4"}]}))
put("chat_records", "text.json", json.dumps({"text": "plain pre-training text"}))

# hostfile: hostfile NUL include NUL exclude.
put("hostfile", "two_hosts", b"worker-1 slots=4\nworker-2 slots=4\n\x00worker-1:0,1@worker-2\x00")
put("hostfile", "comments", b"# GPUs\nlocalhost slots=2   # this one\n\n10.0.0.2 slots=8\n\x00\x00localhost:1")
put("hostfile", "bad", b"h1 slots=x\nh1 slots=2\n-oProxyCommand=x slots=1\n")

# checkpoint_state: trainer_state.json + checksums.json, cut in the middle by the harness.
state = json.dumps({"step": 4, "optimizer_step": 4, "train_blocks": 10, "sampler": {"epoch": 0, "position": 8}, "run_id": 3})
sums = json.dumps({"algorithm": "xxh3-64", "files": {"trainer_state.json": "0123456789abcdef", "../x": "00"}})
pad = " " * max(0, len(sums) - len(state))
put("checkpoint_state", "state_and_sums", (state + pad + sums).encode())
