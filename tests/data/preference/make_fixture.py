# Writes the preference-training fixture and TRL 1.16's own results on it (integration_test_train_preference reads
# them): a tiny random Llama with a byte-level BPE tokenizer (ChatML template, BOS <s>, EOS <|endoftext|>), one
# text pair and one conversational pair (each repeated, so the order of the pairs does not matter), and per case the
# per-step log history of TRL's trainer (CPU, fp32, dropout off, AdamW, linear decay, max_grad_norm 1) plus the
# token ids TRL trained on. Rerun (network not needed, about a minute):
#   <venv>/bin/python tests/data/preference/make_fixture.py tests/data/preference
# with the tests' wheels (packaging/requirements-tests.txt: trl 1.16.0, transformers 5.23.0, peft 0.21.2, datasets
# 4.8.5; torch 2.11). KTO's cases take the whole dataset as one micro-batch, in file order (its KL pairs).
import json
import os
import sys

os.environ.update(HF_HUB_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1", CUDA_VISIBLE_DEVICES="", TRL_EXPERIMENTAL_SILENCE="1")
import torch  # noqa: E402
from datasets import Dataset  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, TrainerCallback  # noqa: E402

OUT = sys.argv[1]
STEPS, PAIRS, MICRO, LR = 10, 8, 2, 2e-3
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
          "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")

TEXT = {"prompt": "The sky over the sea is", "chosen": " blue and calm today.", "rejected": " green, loud and wet."}
KTO_TEXT = [{"prompt": "The sky over the sea is", "completion": " blue and calm today.", "label": True},
            {"prompt": "The sky over the sea is", "completion": " green, loud and wet.", "label": False},
            {"prompt": "It is", "completion": " blue and calm today.", "label": True},
            {"prompt": "It is", "completion": " green, I think.", "label": False}]
KTO_CONV = [{"prompt": [{"role": "user", "content": "What color is the sky?"}],
             "completion": [{"role": "assistant", "content": c}], "label": l}
            for c, l in [("It is blue.", True), ("It is green, I think.", False), ("Blue, I think.", True),
                         ("It is green.", False)]]
CONV = {"prompt": [{"role": "user", "content": "What color is the sky?"}],
        "chosen": [{"role": "assistant", "content": "It is blue."}],
        "rejected": [{"role": "assistant", "content": "It is green, I think."}]}


def build_model_folder():
    corpus = [TEXT["prompt"] + TEXT["chosen"], TEXT["prompt"] + TEXT["rejected"], "What color is the sky?",
              "It is blue.", "It is green, I think.", "user assistant system", "the a an is it of and to"] * 20
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    special = ["<|endoftext|>", "<s>", "<|im_start|>", "<|im_end|>"]
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=320, special_tokens=special,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<s>",
                                   pad_token="<|endoftext|>")
    fast.chat_template = CHATML
    fast.save_pretrained(OUT + "/model")
    torch.manual_seed(1234)
    cfg = LlamaConfig(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
                      tie_word_embeddings=False, initializer_range=0.2)
    LlamaForCausalLM(cfg).save_pretrained(OUT + "/model")
    return fast


class Capture(TrainerCallback):
    def __init__(self):
        self.rows = []

    def on_log(self, args, state, control, logs=None, **kw):
        if logs and "loss" in logs:
            self.rows.append({"step": state.global_step, **{k: v for k, v in logs.items() if k != "epoch"}})


def lora_adapter(name):  # a fresh PEFT adapter saved once: both sides start from it (B = 0: it is the base)
    from peft import LoraConfig, get_peft_model
    torch.manual_seed(77)
    base = LlamaForCausalLM.from_pretrained(OUT + "/model", dtype=torch.float32)
    peft = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["q_proj", "v_proj",
                                                                                              "down_proj"]))
    # B is zero after init: give it values so the adapter matters (the reference is this adapter, not the base)
    with torch.no_grad():
        for n, p in peft.named_parameters():
            if "lora_B" in n:
                p.copy_(torch.randn_like(p) * 0.05)
    peft.save_pretrained(OUT + "/" + name)
    return OUT + "/" + name


def run(case, tok):
    from peft import PeftModel
    from trl import DPOConfig, DPOTrainer, KTOConfig, KTOTrainer
    from trl.experimental.cpo import CPOConfig, CPOTrainer
    from trl.experimental.orpo import ORPOConfig, ORPOTrainer
    if case["objective"] == "kto":
        data = Dataset.from_list(KTO_CONV if case["data"] == "conv" else KTO_TEXT)
    else:
        data = Dataset.from_list([CONV if case["data"] == "conv" else TEXT] * PAIRS)
    common = dict(output_dir="/tmp/pref_fixture_out", max_steps=STEPS,
                  per_device_train_batch_size=case.get("micro", MICRO),
                  gradient_accumulation_steps=1, learning_rate=LR, logging_steps=1, save_strategy="no",
                  report_to="none", bf16=False, fp16=False, use_cpu=True, gradient_checkpointing=False,
                  optim="adamw_torch", seed=42, dataloader_num_workers=0, disable_tqdm=True, max_grad_norm=1.0,
                  train_sampling_strategy="sequential", max_length=case.get("max_length", 1024))
    model = LlamaForCausalLM.from_pretrained(OUT + "/model", dtype=torch.float32)
    if "adapter" in case:
        model = PeftModel.from_pretrained(model, OUT + "/" + case["adapter"], is_trainable=True)
    cap = Capture()
    kind = case["objective"]
    p = case.get("preference", {})
    if kind == "dpo":
        kw = dict(beta=p.get("beta", 0.1), loss_type=p.get("loss_type", "sigmoid"))
        if "rpo_alpha" in p:
            kw.update(loss_type=["sigmoid", "sft"], loss_weights=[1.0, p["rpo_alpha"]])
        ref = None if "adapter" in case else LlamaForCausalLM.from_pretrained(OUT + "/model", dtype=torch.float32)
        tr = DPOTrainer(model=model, ref_model=ref, args=DPOConfig(**common, **kw), train_dataset=data,
                        processing_class=tok, callbacks=[cap])
    elif kind == "kto":
        ref = None if "adapter" in case else LlamaForCausalLM.from_pretrained(OUT + "/model", dtype=torch.float32)
        tr = KTOTrainer(model=model, ref_model=ref,
                        args=KTOConfig(**common, beta=p.get("beta", 0.1),
                                       desirable_weight=p.get("desirable_weight", 1.0),
                                       undesirable_weight=p.get("undesirable_weight", 1.0)),
                        train_dataset=data, processing_class=tok, callbacks=[cap])
    elif kind == "orpo":
        tr = ORPOTrainer(model=model, args=ORPOConfig(**common, beta=p.get("beta", 0.1)), train_dataset=data,
                         processing_class=tok, callbacks=[cap])
    else:
        tr = CPOTrainer(model=model, args=CPOConfig(**common, loss_type="simpo", beta=p.get("beta", 2.0),
                                                    simpo_gamma=p.get("simpo_gamma", 0.5),
                                                    cpo_alpha=p.get("cpo_alpha", 1.0)),
                        train_dataset=data, processing_class=tok, callbacks=[cap])
    tr.train()
    first = tr.train_dataset[0]
    ids = {k: first[k] for k in first if k.endswith("input_ids") or k.endswith("_ids") or k.endswith("labels")}
    return {"rows": cap.rows, "tokens": ids}


CASES = [
    {"name": "dpo_sigmoid_text", "objective": "dpo", "data": "text"},
    {"name": "dpo_ipo_conv", "objective": "dpo", "data": "conv", "preference": {"loss_type": "ipo", "beta": 0.5}},
    {"name": "dpo_rpo_text", "objective": "dpo", "data": "text", "preference": {"rpo_alpha": 0.5}},
    {"name": "dpo_hinge_conv_lora", "objective": "dpo", "data": "conv", "adapter": "adapter",
     "preference": {"loss_type": "hinge"}},
    {"name": "orpo_text", "objective": "orpo", "data": "text", "preference": {"beta": 0.2}},
    {"name": "orpo_conv_lora", "objective": "orpo", "data": "conv", "adapter": "adapter"},
    {"name": "simpo_text", "objective": "simpo", "data": "text",
     "preference": {"beta": 2.0, "simpo_gamma": 0.5, "cpo_alpha": 0.5}},
    {"name": "kto_text", "objective": "kto", "data": "text", "micro": 4,
     "preference": {"beta": 0.2, "undesirable_weight": 1.5}},
    {"name": "kto_conv_lora", "objective": "kto", "data": "conv", "micro": 4, "adapter": "adapter"},
    {"name": "simpo_conv", "objective": "simpo", "data": "conv", "preference": {"beta": 2.5, "simpo_gamma": 1.0, "cpo_alpha": 0.0}},
]

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    tok = build_model_folder()
    lora_adapter("adapter")
    with open(OUT + "/text.jsonl", "w") as f:
        for _ in range(PAIRS):
            f.write(json.dumps(TEXT) + "\n")
    with open(OUT + "/conv.jsonl", "w") as f:
        for _ in range(PAIRS):
            f.write(json.dumps(CONV) + "\n")
    for name, rows in (("kto_text", KTO_TEXT), ("kto_conv", KTO_CONV)):
        with open(OUT + "/" + name + ".jsonl", "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    expected = {"steps": STEPS, "micro_batch": MICRO, "learning_rate": LR, "cases": []}
    for case in CASES:
        result = run(case, tok)
        expected["cases"].append({**case, **result})
        print(case["name"], [round(r["loss"], 6) for r in result["rows"]], flush=True)
    with open(OUT + "/expected.json", "w") as f:
        json.dump(expected, f, indent=1)
