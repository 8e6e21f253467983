"""Tiny models for the GGUF export tests, written with transformers (random weights from a fixed seed):
  gpt2     the quick-start's GPT-2 config and byte-level tokenizer (pre-tokenizer "gpt-2")
  llama    Llama, 4 heads over 2 KV heads, with Mistral-7B's SentencePiece-style tokenizer (GGUF "llama" vocab)
  llama3   Llama with Llama 3.1 rope scaling and the Llama-3-style toy tokenizer ("llama-bpe")
  qwen2    Qwen2 with q/k/v biases, tied embeddings, and Qwen3's tokenizer ("qwen2") and chat template
  mistral  MistralForCausalLM (exported as llama) with a sliding window, Mistral's tokenizer
  kquant   Llama 256 wide with 8 layers (rows of whole 256-element super-blocks: the k-quants and q4_k_m's mixture)
  qwen3    Qwen3 (q/k norms, head_dim apart from hidden / heads) with Qwen3's tokenizer
  gemma2   Gemma 2 (soft-capping, every other layer windowed, (1 + w) norms) with Mistral's SentencePiece tokenizer
  gemma3   Gemma 3's text model (q/k norms, two rotary bases, linear scaling on the full layers) ditto
  phi3     Phi-3 (fused qkv / gate_up, partial rotary 0.75, LongRoPE) with Mistral's tokenizer
  olmo2    OLMo 2 (post-norms, whole-projection q/k norms, tied embeddings) with Qwen3's tokenizer
Usage: make_models.py DATA_DIR OUT_DIR [names...]"""
import json, shutil, sys
from pathlib import Path

import torch
import transformers as tf

data, out = Path(sys.argv[1]), Path(sys.argv[2])
names = sys.argv[3:] or ["gpt2", "llama", "llama3", "qwen2", "mistral", "kquant", "qwen3", "gemma2", "gemma3", "phi3",
                         "olmo2"]
tok = data / "tokenizers"


def save(name, model, tokenizer_files):
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(d, safe_serialization=True)
    for src, dst in tokenizer_files:
        shutil.copy(src, d / dst)


def scaled(model, std=0.2):
    # larger weights than the default init, so the logits differ enough between tokens to test greedy decoding
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() > 1:
                p.normal_(0.0, std)
    return model


torch.manual_seed(0)
if "gpt2" in names:
    cfg = tf.GPT2Config(**{k: v for k, v in json.load(open(data.parent.parent / "resources/quickstart/model/config.json")).items()
                           if k not in ("architectures", "model_type", "torch_dtype")})
    save("gpt2", scaled(tf.GPT2LMHeadModel(cfg)),
         [(data.parent.parent / "resources/quickstart/model/tokenizer.json", "tokenizer.json"),
          (data.parent.parent / "resources/quickstart/model/tokenizer_config.json", "tokenizer_config.json")])
if "llama" in names:
    cfg = tf.LlamaConfig(vocab_size=32000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, rms_norm_eps=1e-5,
                         tie_word_embeddings=False, bos_token_id=1, eos_token_id=2)
    save("llama", scaled(tf.LlamaForCausalLM(cfg)),
         [(tok / "mistral-7b/tokenizer.json", "tokenizer.json"),
          (tok / "mistral-7b/tokenizer_config.json", "tokenizer_config.json")])
if "llama3" in names:
    cfg = tf.LlamaConfig(vocab_size=704, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=1024,
                         rope_theta=500000.0, tie_word_embeddings=False, bos_token_id=0, eos_token_id=1,
                         rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                       "high_freq_factor": 4.0, "original_max_position_embeddings": 64})
    save("llama3", scaled(tf.LlamaForCausalLM(cfg)), [(tok / "toy/llama3_style.json", "tokenizer.json")])
    tc = {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>", "tokenizer_class": "PreTrainedTokenizerFast"}
    json.dump(tc, open(out / "llama3/tokenizer_config.json", "w"))
if "qwen2" in names:
    cfg = tf.Qwen2Config(vocab_size=151936, hidden_size=64, intermediate_size=128, num_hidden_layers=3,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         tie_word_embeddings=True, rope_theta=1000000.0, rms_norm_eps=1e-6,
                         bos_token_id=151643, eos_token_id=151645)
    save("qwen2", scaled(tf.Qwen2ForCausalLM(cfg)),
         [(tok / "qwen3/tokenizer.json", "tokenizer.json"), (tok / "qwen3/tokenizer_config.json", "tokenizer_config.json")])
if "mistral" in names:
    cfg = tf.MistralConfig(vocab_size=32000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=1, max_position_embeddings=512,
                           sliding_window=4096, tie_word_embeddings=False)
    save("mistral", scaled(tf.MistralForCausalLM(cfg)),
         [(tok / "mistral-7b/tokenizer.json", "tokenizer.json"),
          (tok / "mistral-7b/tokenizer_config.json", "tokenizer_config.json")])
if "kquant" in names:
    cfg = tf.LlamaConfig(vocab_size=704, hidden_size=256, intermediate_size=512, num_hidden_layers=8,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         tie_word_embeddings=False, bos_token_id=0, eos_token_id=1)
    save("kquant", scaled(tf.LlamaForCausalLM(cfg), 0.05), [(tok / "toy/llama3_style.json", "tokenizer.json")])
    json.dump({"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>"},
              open(out / "kquant/tokenizer_config.json", "w"))

def perturbed_norms(model):
    # norms start at 1 (Gemma: 0); perturb them so a norm read wrongly (Gemma's + 1) shows in the logits
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() == 1:
                p.add_(torch.randn_like(p) * 0.1)
    return model


small = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
             max_position_embeddings=512)
qwen_tok = [(tok / "qwen3/tokenizer.json", "tokenizer.json"), (tok / "qwen3/tokenizer_config.json", "tokenizer_config.json")]
spm_tok = [(tok / "mistral-7b/tokenizer.json", "tokenizer.json"),
           (tok / "mistral-7b/tokenizer_config.json", "tokenizer_config.json")]
if "qwen3" in names:
    cfg = tf.Qwen3Config(vocab_size=151936, head_dim=32, tie_word_embeddings=True, rope_theta=1000000.0,
                         bos_token_id=151643, eos_token_id=151645, **small)
    save("qwen3", perturbed_norms(scaled(tf.Qwen3ForCausalLM(cfg))), qwen_tok)
if "gemma2" in names:
    cfg = tf.Gemma2Config(vocab_size=32000, head_dim=16, query_pre_attn_scalar=16, sliding_window=8,
                          attn_logit_softcapping=4.0, final_logit_softcapping=8.0, bos_token_id=1, eos_token_id=2,
                          pad_token_id=0, **small)
    save("gemma2", perturbed_norms(scaled(tf.Gemma2ForCausalLM(cfg))), spm_tok)
if "gemma3" in names:
    cfg = tf.Gemma3TextConfig(vocab_size=32000, head_dim=16, query_pre_attn_scalar=16, sliding_window=8,
                              sliding_window_pattern=3, bos_token_id=1, eos_token_id=2, pad_token_id=0,
                              rope_parameters={"full_attention": {"rope_type": "linear", "factor": 4.0,
                                                                  "rope_theta": 1000000.0},
                                               "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
                              **small)
    save("gemma3", perturbed_norms(scaled(tf.Gemma3ForCausalLM(cfg))), spm_tok)
if "phi3" in names:
    # original_max_position_embeddings (256) = the check's context: llama.cpp and transformers both take the short
    # factors; the attention factor (max 1024 / 256) applies in both
    cfg = tf.Phi3Config(vocab_size=32064, bos_token_id=1, eos_token_id=32000, pad_token_id=32000,
                        original_max_position_embeddings=256,
                        **{**small, "max_position_embeddings": 1024},
                        rope_parameters={"rope_type": "longrope", "rope_theta": 10000.0, "partial_rotary_factor": 0.75,
                                         "short_factor": [1.0 + 0.1 * i for i in range(6)],
                                         "long_factor": [2.0 + 0.5 * i for i in range(6)]})
    save("phi3", perturbed_norms(scaled(tf.Phi3ForCausalLM(cfg))), spm_tok)
    # Phi-3's tokenizer: Llama's SentencePiece vocabulary and its added chat tokens from 32000 (llama.cpp's phi3
    # vocabulary looks some of them up by name)
    t = json.load(open(tok / "mistral-7b/tokenizer.json"))
    chat_tokens = ["<|endoftext|>", "<|assistant|>", "<|placeholder1|>", "<|placeholder2|>", "<|placeholder3|>",
                   "<|placeholder4|>", "<|system|>", "<|end|>", "<|placeholder5|>", "<|placeholder6|>", "<|user|>"]
    for i, n in enumerate(chat_tokens):
        t["added_tokens"].append({"id": 32000 + i, "content": n, "single_word": False, "lstrip": False,
                                  "rstrip": i not in (0, 7), "normalized": False, "special": True})
    json.dump(t, open(out / "phi3/tokenizer.json", "w"), ensure_ascii=False)
if "olmo2" in names:
    cfg = tf.Olmo2Config(vocab_size=151936, tie_word_embeddings=True, rope_theta=500000.0, bos_token_id=151643,
                         eos_token_id=151645, pad_token_id=151643, **small)
    save("olmo2", perturbed_norms(scaled(tf.Olmo2ForCausalLM(cfg))), qwen_tok)
