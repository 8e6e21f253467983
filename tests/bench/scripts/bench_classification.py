#!/usr/bin/env python3
"""Reference side of bench_train_classification.cpp.
  make DIR                          writes DIR/model (a BERT classifier: hidden 256, 4 layers, vocab of the test
                                    tokenizer, random init), DIR/tokenizer (tests/data/classification/tokenizer)
                                    and DIR/pairs.tsv (1024 MRPC-shaped sentence pairs, string labels)
  trainer DIR MB STEPS WARMUP THREADS MAXLEN
                                    trains it with the transformers Trainer (fp32, CPU, AdamW, same batch) and prints
                                    {"tokens_per_s": non-padding tokens per second over the steps after WARMUP}
"""
import csv
import json
import os
import random
import shutil
import sys
import time

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
OUT = sys.stdout
sys.stdout = sys.stderr

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "data", "classification")


def make(d):
    import torch
    from transformers import BertConfig, BertForSequenceClassification
    os.makedirs(d, exist_ok=True)
    shutil.copytree(os.path.join(FIXTURES, "tokenizer"), os.path.join(d, "tokenizer"), dirs_exist_ok=True)
    cfg = BertConfig(vocab_size=1000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                     intermediate_size=1024, max_position_embeddings=512, num_labels=2,
                     id2label={0: "equivalent", 1: "not_equivalent"}, label2id={"equivalent": 0, "not_equivalent": 1})
    torch.manual_seed(0)
    BertForSequenceClassification(cfg).save_pretrained(os.path.join(d, "model"))
    with open(os.path.join(FIXTURES, "mrpc_strings_train.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    sents = [r["#1 String"] for r in rows] + [r["#2 String"] for r in rows]
    rng = random.Random(0)
    with open(os.path.join(d, "pairs.tsv"), "w") as f:
        f.write("Quality\t#1 String\t#2 String\n")
        for _ in range(1024):
            a = " ".join(rng.choice(sents) for _ in range(rng.randint(1, 4)))
            b = " ".join(rng.choice(sents) for _ in range(rng.randint(1, 4)))
            f.write(f"{rng.choice(['equivalent', 'not_equivalent'])}\t{a}\t{b}\n")


def trainer(d, mb, steps, warmup, threads, max_length):
    import torch
    from transformers import (AutoTokenizer, BertForSequenceClassification, DataCollatorWithPadding, Trainer,
                              TrainerCallback, TrainingArguments)
    torch.set_num_threads(threads)
    tok = AutoTokenizer.from_pretrained(os.path.join(d, "tokenizer"))
    with open(os.path.join(d, "pairs.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    label = {"equivalent": 0, "not_equivalent": 1}
    ds = []
    for r in rows:
        enc = {k: v[0] for k, v in tok([r["#1 String"]], [r["#2 String"]], truncation=True, max_length=max_length).items()}
        enc["label"] = label[r["Quality"]]
        ds.append(enc)
    model = BertForSequenceClassification.from_pretrained(os.path.join(d, "model"))

    class Timer(TrainerCallback):
        def __init__(self):
            self.t, self.tokens, self.start, self.n = [], 0, None, 0

        def on_step_begin(self, args, state, control, **kw):
            if state.global_step == warmup:
                self.start = time.perf_counter()

    timer = Timer()

    class Counting(Trainer):
        def training_step(self, model, inputs, num_items_in_batch=None):
            if self.state.global_step >= warmup:
                timer.tokens += int(inputs["attention_mask"].sum())
            return super().training_step(model, inputs, num_items_in_batch)

    import tempfile
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, max_steps=warmup + steps, per_device_train_batch_size=mb,
                                 learning_rate=2e-5, lr_scheduler_type="constant", save_strategy="no",
                                 eval_strategy="no", report_to="none", use_cpu=True, dataloader_num_workers=0,
                                 disable_tqdm=True, logging_strategy="no", seed=0)
        t = Counting(model=model, args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok),
                     processing_class=tok, callbacks=[timer])
        t.train()
        seconds = time.perf_counter() - timer.start
    OUT.write(json.dumps({"tokens_per_s": timer.tokens / seconds, "steps": steps}) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        trainer(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]))
