#!/usr/bin/env python3
"""Reference side of the sequence-classification tests: trains BertForSequenceClassification with the real
transformers Trainer (5.23) on rows given as JSON on stdin and prints one JSON line on stdout.

Input (stdin, one JSON object):
  model_dir, tokenizer_dir      folders for from_pretrained
  rows, eval_rows              [{"text", "text_pair"?, "label"}]; label: int, str, float or list of str
  label_names                  id order for str / list-of-str labels (optional: else sorted unique train labels,
                               as run_glue.py does; ints then map through that sorted list too)
  problem_type                 "single_label_classification" | "multi_label_classification" | "regression"
                               (optional: float labels -> regression, lists -> multi-label, else single-label)
  max_length, micro_batch, grad_accum, lr, weight_decay, steps, seed
  order                        row indices in the order the micro-batches consume them; the first
                               steps * micro_batch * grad_accum are used (error if fewer)
  optional: max_grad_norm (1.0), eval_batch (micro_batch), pad_to_max_length (false), attn_implementation
  ("eager"), adam_beta1 (0.9), adam_beta2 (0.999), adam_epsilon (1e-8), init_dir (save the model as training
  starts there: a re-initialised classifier when num_labels differs from the checkpoint),
  loss_is_scaled_for_ga (Trainer class attribute; default None = the Trainer's own choice, see NOTES.md)

Tokenization as run_glue.py: tokenizer(texts, text_pairs, padding=False, max_length=max_length, truncation=True)
on a one-row batch (padding "max_length" when pad_to_max_length), batches padded by DataCollatorWithPadding (pads to the longest
row of each micro-batch, attention_mask 0 and token_type_ids 0 on padding).

Output (stdout, one line): {"losses": per optimizer step the value the Trainer logs as "loss" (its _tr_loss
accumulator read in on_step_end, before logging resets it), "micro_losses": [[compute_loss value per micro-batch]],
"grad_norms", "eval_loss", "eval_logits", "eval_predictions", "eval_labels", "metrics", "metrics_backend",
"label_names", "num_labels", "problem_type", "model_accepts_loss_kwargs", "loss_is_scaled_for_ga",
"versions"}. Progress and warnings go to stderr.
"""
import json
import math
import os
import sys
import tempfile

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
# The Trainer prints its log dicts, and DeepSpeed's accelerator probe its warning, on stdout: keep the real
# stdout for the one result line and send everything else to stderr.
RESULT_OUT = sys.stdout
sys.stdout = sys.stderr

import numpy as np
import torch
import transformers
from torch.utils.data import SequentialSampler
from transformers import (AutoConfig, AutoTokenizer, BertForSequenceClassification, DataCollatorWithPadding,
                          Trainer, TrainerCallback, TrainingArguments, set_seed)

PROBLEMS = ("single_label_classification", "multi_label_classification", "regression")


# ---- metrics: scikit-learn when importable, else the same definitions in numpy ----------------------------
def metrics_numpy(problem, preds, labels, num_labels):
    out = {}
    if problem == "regression":
        p, y = np.asarray(preds, np.float64), np.asarray(labels, np.float64)
        out["mse"] = float(np.mean((p - y) ** 2))  # sklearn mean_squared_error
        out["pearson"] = float(np.corrcoef(p, y)[0, 1])  # scipy.stats.pearsonr's r (nan when one side is constant)
        return out
    p, y = np.asarray(preds), np.asarray(labels)
    if problem == "multi_label_classification":
        p, y = p.astype(np.int64), y.astype(np.int64)
        out["accuracy"] = float(np.mean(np.all(p == y, axis=1)))  # accuracy_score on indicators: subset accuracy
        cols = range(y.shape[1])  # multilabel-indicator: every column is a label
        tp = np.array([np.sum((p[:, c] == 1) & (y[:, c] == 1)) for c in cols], np.float64)
        fp = np.array([np.sum((p[:, c] == 1) & (y[:, c] == 0)) for c in cols], np.float64)
        fn = np.array([np.sum((p[:, c] == 0) & (y[:, c] == 1)) for c in cols], np.float64)
        out["f1"] = float(np.mean(f1_of(tp, fp, fn)))  # average="macro"
        out["f1_micro"] = float(f1_of(tp.sum(), fp.sum(), fn.sum()))
        return out
    out["accuracy"] = float(np.mean(p == y))
    if num_labels == 2:
        tp, fp, fn = np.sum((p == 1) & (y == 1)), np.sum((p == 1) & (y != 1)), np.sum((p != 1) & (y == 1))
        out["f1"] = float(f1_of(float(tp), float(fp), float(fn)))  # average="binary", pos_label=1
    else:
        present = np.union1d(p, y)  # sklearn unique_labels: classes seen in y_true or y_pred only
        f = [f1_of(float(np.sum((p == c) & (y == c))), float(np.sum((p == c) & (y != c))),
                   float(np.sum((p != c) & (y == c)))) for c in present]
        out["f1"] = float(np.mean(f))  # average="macro"
    return out


def f1_of(tp, fp, fn):
    tp, fp, fn = np.asarray(tp, np.float64), np.asarray(fp, np.float64), np.asarray(fn, np.float64)
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 0.0)  # zero_division -> 0.0


def metrics_sklearn(problem, preds, labels, num_labels):
    from sklearn.metrics import accuracy_score, f1_score, mean_squared_error
    if problem == "regression":
        p, y = np.asarray(preds, np.float64), np.asarray(labels, np.float64)
        try:
            from scipy.stats import pearsonr
            r = float(pearsonr(p, y)[0])
        except ImportError:
            r = float(np.corrcoef(p, y)[0, 1])
        return {"mse": float(mean_squared_error(y, p)), "pearson": r}
    p, y = np.asarray(preds), np.asarray(labels)
    if problem == "multi_label_classification":
        p, y = p.astype(np.int64), y.astype(np.int64)
        return {"accuracy": float(accuracy_score(y, p)), "f1": float(f1_score(y, p, average="macro", zero_division=0)),
                "f1_micro": float(f1_score(y, p, average="micro", zero_division=0))}
    avg = "binary" if num_labels == 2 else "macro"
    return {"accuracy": float(accuracy_score(y, p)), "f1": float(f1_score(y, p, average=avg, zero_division=0))}


def compute_metrics(problem, preds, labels, num_labels):
    try:
        return metrics_sklearn(problem, preds, labels, num_labels), "sklearn"
    except ImportError:
        return metrics_numpy(problem, preds, labels, num_labels), "numpy (sklearn not installed)"


# ---- labels ----------------------------------------------------------------------------------------------
def infer_problem(labels):
    if any(isinstance(l, list) for l in labels):
        return "multi_label_classification"
    if any(isinstance(l, float) for l in labels):  # run_glue: features["label"].dtype in float32/float64
        return "regression"
    return "single_label_classification"


def label_list_of(problem, labels, given):
    if problem == "regression":
        return None
    if given is not None:
        return list(given)
    flat = [x for l in labels for x in (l if isinstance(l, list) else [l])]
    return sorted(set(flat))  # run_glue: unique("label") then .sort()


def encode_label(problem, label, label_to_id):
    if problem == "regression":
        return float(label)
    if problem == "multi_label_classification":
        ids = [0.0] * len(label_to_id)  # run_classification's multi_labels_to_ids: float multi-hot for BCE
        for l in label:
            ids[label_to_id[l]] = 1.0
        return ids
    return label_to_id[label]


class RecordingTrainer(Trainer):
    def _get_train_sampler(self, train_dataset=None):
        return SequentialSampler(train_dataset if train_dataset is not None else self.train_dataset)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        out = super().compute_loss(model, inputs, return_outputs=return_outputs,
                                   num_items_in_batch=num_items_in_batch)
        if model.training:
            loss = out[0] if return_outputs else out
            self.micro.append(loss.detach().item())
            self.num_items.append(None if num_items_in_batch is None else float(num_items_in_batch))
        return out


class StepRecorder(TrainerCallback):
    def __init__(self):
        self.trainer, self.losses, self.micro, self.logged = None, [], [], []

    def on_step_end(self, args, state, control, **kw):
        t = self.trainer
        self.losses.append(t._tr_loss.item())  # what _maybe_log_save_evaluate divides by 1 (logging_steps=1)
        self.micro.append(list(t.micro))
        t.micro.clear()

    def on_log(self, args, state, control, logs=None, **kw):
        if logs and "loss" in logs:
            self.logged.append((logs["loss"], logs.get("grad_norm")))


def main():
    req = json.load(sys.stdin)
    torch.set_num_threads(int(os.environ.get("HF_REFERENCE_THREADS", "1")))
    rows, eval_rows = req["rows"], req.get("eval_rows") or []
    problem = req.get("problem_type") or infer_problem([r["label"] for r in rows])
    assert problem in PROBLEMS, problem
    label_names = label_list_of(problem, [r["label"] for r in rows], req.get("label_names"))
    num_labels = 1 if problem == "regression" else len(label_names)
    label_to_id = None if label_names is None else {v: i for i, v in enumerate(label_names)}
    mb, ga, steps = int(req["micro_batch"]), int(req["grad_accum"]), int(req["steps"])
    need = steps * mb * ga
    order = list(req["order"])
    if len(order) < need:
        raise SystemExit(f"order has {len(order)} indices; {steps} steps x {mb} x {ga} need {need}")
    order = order[:need]

    set_seed(int(req["seed"]))
    tokenizer = AutoTokenizer.from_pretrained(req["tokenizer_dir"])
    padding = "max_length" if req.get("pad_to_max_length") else False
    max_length = int(req["max_length"])

    def encode(r):
        # Batched like run_glue's datasets.map(batched=True): a one-row batch, so that an empty text_pair ""
        # still makes a pair ([CLS] A [SEP] [SEP]); the unbatched call would drop it (`if text_pair`).
        args = ([r["text"]],) if r.get("text_pair") is None else ([r["text"]], [r["text_pair"]])
        enc = {k: v[0] for k, v in tokenizer(*args, padding=padding, max_length=max_length, truncation=True).items()}
        enc["label"] = encode_label(problem, r["label"], label_to_id)
        return enc

    train_ds = [encode(rows[i]) for i in order]
    eval_ds = [encode(r) for r in eval_rows]

    overrides = dict(num_labels=num_labels, problem_type=problem, hidden_dropout_prob=0.0,
                     attention_probs_dropout_prob=0.0, classifier_dropout=0.0)
    if label_names is not None:
        overrides["id2label"] = {i: str(v) for i, v in enumerate(label_names)}
        overrides["label2id"] = {str(v): i for i, v in enumerate(label_names)}
    config = AutoConfig.from_pretrained(req["model_dir"], **overrides)
    model = BertForSequenceClassification.from_pretrained(
        req["model_dir"], config=config, ignore_mismatched_sizes=True,
        attn_implementation=req.get("attn_implementation", "eager"))
    vocab = model.config.vocab_size
    worst = max(max(e["input_ids"]) for e in train_ds + eval_ds)
    if worst >= vocab:
        raise SystemExit(f"token id {worst} >= the model's vocab_size {vocab}: tokenizer and model do not match")
    if req.get("init_dir"):
        model.save_pretrained(req["init_dir"])

    if "loss_is_scaled_for_ga" in req:
        RecordingTrainer.loss_is_scaled_for_ga = req["loss_is_scaled_for_ga"]
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir, max_steps=steps, per_device_train_batch_size=mb,
            per_device_eval_batch_size=int(req.get("eval_batch", mb)), gradient_accumulation_steps=ga,
            learning_rate=float(req["lr"]), weight_decay=float(req["weight_decay"]), optim="adamw_torch",
            adam_beta1=float(req.get("adam_beta1", 0.9)), adam_beta2=float(req.get("adam_beta2", 0.999)),
            adam_epsilon=float(req.get("adam_epsilon", 1e-8)), lr_scheduler_type="constant", warmup_steps=0,
            max_grad_norm=float(req.get("max_grad_norm", 1.0)), logging_strategy="steps", logging_steps=1,
            save_strategy="no", eval_strategy="no", report_to="none", seed=int(req["seed"]), use_cpu=True,
            dataloader_num_workers=0, disable_tqdm=True, logging_nan_inf_filter=False)
        recorder = StepRecorder()
        trainer = RecordingTrainer(model=model, args=args, train_dataset=train_ds,
                                   data_collator=DataCollatorWithPadding(tokenizer), processing_class=tokenizer,
                                   callbacks=[recorder])
        trainer.micro, trainer.num_items = [], []
        recorder.trainer = trainer
        trainer.train()
        result = {}
        if eval_ds:
            pred = trainer.predict(eval_ds, metric_key_prefix="eval")
            logits = np.asarray(pred.predictions, np.float64)
            labels = np.asarray(pred.label_ids)
            if problem == "regression":
                preds = np.squeeze(logits, axis=-1)
            elif problem == "multi_label_classification":
                preds = (logits > 0).astype(np.int64)  # run_classification: np.where(p > 0, 1, 0)
            else:
                preds = np.argmax(logits, axis=1)
            metrics, backend = compute_metrics(problem, preds, labels, num_labels)
            result = {"eval_loss": pred.metrics["eval_loss"], "eval_logits": logits.tolist(),
                      "eval_predictions": preds.tolist(), "eval_labels": labels.tolist(), "metrics": metrics,
                      "metrics_backend": backend}

    for (logged, _), ours in zip(recorder.logged, recorder.losses):
        assert logged == ours, (logged, ours)  # the logged "loss" is _tr_loss / 1 exactly
    accepts = trainer.model_accepts_loss_kwargs
    scaled = trainer.loss_is_scaled_for_ga
    if scaled is None:
        scaled = bool(accepts and trainer.num_items and trainer.num_items[0] is not None)
    out = {"losses": recorder.losses, "micro_losses": recorder.micro,
           "grad_norms": [g for _, g in recorder.logged], **result,
           "label_names": label_names, "num_labels": num_labels, "problem_type": problem,
           "model_accepts_loss_kwargs": bool(accepts), "num_items_in_batch": trainer.num_items[:ga],
           "loss_is_scaled_for_ga": scaled,
           "versions": {"transformers": transformers.__version__, "torch": torch.__version__}}
    RESULT_OUT.write(json.dumps(out, allow_nan=True) + "\n")
    RESULT_OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
