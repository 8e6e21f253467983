#!/usr/bin/env python3
"""Writes the golden files of the classification unit tests (rerun after changing the fixtures):
  pair_encodings.json: transformers' tokenizer(text, text_pair, truncation=True, max_length=M) (batched, as run_glue)
                       with tokenizer/ on MRPC rows and made-up lengths, ids and token_type_ids;
  metrics_reference.json: scikit-learn 1.7.2 / scipy 1.16.3 metrics (accuracy, F1 binary / macro / micro, MSE,
                       Pearson) on seeded random logits and targets, computed as the Trainer examples do.
Usage: python make_goldens.py (from this folder, in the project's venv)."""
import csv
import json
import os

import numpy as np
import scipy
import sklearn
from scipy.stats import pearsonr
from sklearn.metrics import accuracy_score, f1_score, mean_squared_error
from transformers import AutoTokenizer

here = os.path.dirname(os.path.abspath(__file__))


def pair_encodings():
    tok = AutoTokenizer.from_pretrained(os.path.join(here, "tokenizer"))
    with open(os.path.join(here, "mrpc_train.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:12]
    cases = []
    for i, r in enumerate(rows):
        a, b = r["#1 String"], r["#2 String"]
        for m in (6, 8, 9, 12, 17, 24, 64):
            for pair in (b, None, ""):
                args = ([a],) if pair is None else ([a], [pair])
                enc = tok(*args, truncation=True, max_length=m)
                cases.append({"text": a, "text_pair": pair, "max_length": m, "ids": enc["input_ids"][0],
                              "token_type_ids": enc["token_type_ids"][0]})
    # Longer B than A, and equal lengths, to reach every branch of longest_first.
    for a, b in (("good", "the movie looks rather excellent and the actor looks very lovely"),
                 ("the movie looks rather excellent", "the music seems really weak and sad")):
        for m in (5, 6, 7, 8, 10, 13):
            enc = tok([a], [b], truncation=True, max_length=m)
            cases.append({"text": a, "text_pair": b, "max_length": m, "ids": enc["input_ids"][0],
                          "token_type_ids": enc["token_type_ids"][0]})
    return cases


def metrics_cases():
    rng = np.random.default_rng(7)
    out = []
    for kind, k, n in (("single", 2, 40), ("single", 2, 7), ("single", 3, 30), ("single", 5, 12), ("multi", 4, 25),
                       ("multi", 3, 6), ("regression", 1, 30), ("regression-constant", 1, 5)):
        logits = rng.normal(size=(n, k)).astype(np.float32)
        if kind == "single":
            y = rng.integers(0, k, size=n)
            if k == 5:
                y[y == 4] = 0  # a class in neither labels nor (mostly) predictions
            p = logits.argmax(axis=1)
            avg = "binary" if k == 2 else "macro"
            m = {"accuracy": accuracy_score(y, p), "f1": f1_score(y, p, average=avg, zero_division=0)}
            targets = y.astype(np.float32).reshape(n, 1)
        elif kind == "multi":
            y = (rng.random(size=(n, k)) < 0.4).astype(np.int64)
            y[:, -1] = 0  # a label never true
            logits[:, -1] = -abs(logits[:, -1])  # and never predicted
            p = (logits > 0).astype(np.int64)
            m = {"accuracy": accuracy_score(y, p), "f1": f1_score(y, p, average="macro", zero_division=0),
                 "f1_micro": f1_score(y, p, average="micro", zero_division=0)}
            targets = y.astype(np.float32)
        else:
            y = rng.normal(size=n).astype(np.float32)
            if kind == "regression-constant":
                logits[:] = 0.5
            p = logits[:, 0]
            r = pearsonr(p.astype(np.float64), y.astype(np.float64))[0] if kind == "regression" else None
            m = {"mse": mean_squared_error(y.astype(np.float64), p.astype(np.float64)), "pearson": r}
            targets = y.reshape(n, 1)
        out.append({"kind": kind.split("-")[0], "num_labels": k, "logits": logits.tolist(), "targets": targets.tolist(),
                    "metrics": {a: (None if v is None else float(v)) for a, v in m.items()}})
    return out


with open(os.path.join(here, "pair_encodings.json"), "w") as f:
    json.dump(pair_encodings(), f)
with open(os.path.join(here, "metrics_reference.json"), "w") as f:
    json.dump({"versions": {"scikit-learn": sklearn.__version__, "scipy": scipy.__version__}, "cases": metrics_cases()}, f)
