#!/usr/bin/env python3
"""Writes the sequence-classification fixtures of tests/data/classification (deterministic: fixed seeds, no
arguments, run from anywhere; standard library only). Text is original to this project (CC0).

  tokenizer/          tokenizer.json + tokenizer_config.json: bert-base-uncased's pipeline (BertNormalizer,
                      BertPreTokenizer, WordPiece, TemplateProcessing "[CLS] $A [SEP] $B:1 [SEP]:1") with a small
                      vocabulary (ids 0..103 as in bert-base-uncased: [PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102,
                      [MASK] 103; everything else < 1000), so its ids fit tests/data/models/bert (vocab_size 1000).
                      bert-base-uncased's own ids run to 30521 and index past that model's embedding.
  mrpc_{train,eval}.tsv          GLUE MRPC layout: Quality, #1 ID, #2 ID, #1 String, #2 String; Quality 0/1
  mrpc_strings_{train,eval}.tsv  the same rows with Quality "equivalent" / "not_equivalent" (sorted label list
                                 gives equivalent=0, not_equivalent=1: the reverse of the integer file)
  imdb_{train,eval}.csv          text,label (int 0/1); RFC 4180 quoting where a text holds a comma or a quote
  imdb_{train,eval}.jsonl        the same rows as JSON lines
  imdb_train.json                the same training rows as one JSON array of objects
  regression_{train,eval}.jsonl  STS-B-like: text, text_pair, label (float 0.0..5.0, always written with a '.')
  multilabel_{train,eval}.jsonl  text, label (list of topic strings: animals, food, sports, weather; one train
                                 row and one eval row have an empty list)
Train files have 64 rows, eval files 16. A few rows are long enough to be truncated at max_length 32
(pairs: longest_first).
"""
import csv
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
BERT_TOKENIZER = os.path.join(HERE, "..", "tokenizers", "bert-base-uncased", "tokenizer.json")

SUBJECTS = ["the movie", "the film", "the story", "the actor", "the plot", "the music", "the ending", "this show"]
POSITIVE = ["good", "great", "fun", "lovely", "bright", "happy", "warm", "excellent"]
NEGATIVE = ["bad", "dull", "boring", "sad", "awful", "cold", "weak", "poor"]
ADVERBS = ["very", "quite", "really", "rather"]
VERBS = ["was", "is", "felt", "seems", "looks"]
TOPICS = {
    "animals": ["cat", "dog", "bird", "horse"],
    "food": ["bread", "apple", "soup", "cheese"],
    "sports": ["ball", "goal", "race", "match"],
    "weather": ["rain", "snow", "wind", "sunshine"],  # "sunshine" is not in the vocabulary: sun ##shine
}
PEOPLE = ["the child", "the teacher", "the farmer", "my friend", "the robot"]
ACTIONS = ["saw", "liked", "watched", "found", "wanted"]
PLACES = ["in the park", "in the city", "at home", "near the river", "today", "yesterday"]
SYNONYMS = {"good": "great", "great": "good", "bad": "awful", "awful": "bad", "happy": "lovely",
            "lovely": "happy", "boring": "dull", "dull": "boring", "very": "really", "really": "very",
            "was": "seemed", "saw": "watched", "watched": "saw"}
# More whole words in the vocabulary ("sunshine" stays out on purpose: WordPiece splits it).
EXTRA_VOCAB = ["seemed", "and", "but", "not", "with", "my", "of", "it", "i", "you", "we", "they", "sun",
               "more", "than", "ever", "all", "too", "so", "about", "who", "what", "where"]
SUFFIXES = ["##s", "##ed", "##ing", "##ly", "##er", "##shine", "##y"]


def words_of(*groups):
    out = []
    for g in groups:
        for phrase in (g.values() if isinstance(g, dict) else g):
            for p in (phrase if isinstance(phrase, list) else [phrase]):
                out.extend(p.split())
    return out


def write_tokenizer():
    with open(BERT_TOKENIZER, encoding="utf-8") as f:
        doc = json.load(f)
    old = doc["model"]["vocab"]
    by_id = sorted(old.items(), key=lambda kv: kv[1])
    vocab = {tok: i for tok, i in by_id if i <= 103}  # [PAD], [unused0..98], [UNK], [CLS], [SEP], [MASK]
    chars = "!\"#$%&'()*+,-./0123456789:;<=>?@[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
    pieces = list(chars) + ["##" + c for c in "0123456789abcdefghijklmnopqrstuvwxyz"]
    words = words_of(SUBJECTS, POSITIVE, NEGATIVE, ADVERBS, VERBS, PEOPLE, ACTIONS, PLACES)
    words += [w for ws in TOPICS.values() for w in ws if w != "sunshine"] + EXTRA_VOCAB
    for tok in pieces + words + SUFFIXES:
        if tok not in vocab:
            vocab[tok] = len(vocab)
    assert len(vocab) < 1000, len(vocab)
    doc["model"]["vocab"] = vocab
    doc["truncation"] = None
    doc["padding"] = None
    os.makedirs(os.path.join(HERE, "tokenizer"), exist_ok=True)
    with open(os.path.join(HERE, "tokenizer", "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
    config = {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 128,
              "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
              "mask_token": "[MASK]", "padding_side": "right", "truncation_side": "right"}
    with open(os.path.join(HERE, "tokenizer", "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1)
        f.write("\n")


def review(rng, long=False):
    """A short review and its sentiment (1 when positive words outnumber negative ones)."""
    clauses, score = [], 0
    for _ in range(rng.randint(3, 5) if long else rng.randint(1, 2)):
        positive = rng.random() < 0.5
        adj = rng.choice(POSITIVE if positive else NEGATIVE)
        score += 1 if positive else -1
        adv = rng.choice(ADVERBS) + " " if rng.random() < 0.5 else ""
        clauses.append(f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {adv}{adj}")
    if score == 0:  # break ties with one more clause
        positive = rng.random() < 0.5
        score += 1 if positive else -1
        clauses.append(f"it was {rng.choice(POSITIVE if positive else NEGATIVE)}")
    text = " and ".join(clauses)
    text = text[0].upper() + text[1:] + rng.choice([".", "!", "."])
    return text, 1 if score > 0 else 0


def sentence(rng, long=False):
    parts = [rng.choice(PEOPLE), rng.choice(ACTIONS), "the", rng.choice(TOPICS[rng.choice(list(TOPICS))]),
             rng.choice(PLACES)]
    if long:
        parts += ["and", rng.choice(PEOPLE), rng.choice(ACTIONS), "the",
                  rng.choice(TOPICS[rng.choice(list(TOPICS))]), rng.choice(PLACES), "with", rng.choice(PEOPLE)]
    s = " ".join(parts)
    return s[0].upper() + s[1:] + "."


def paraphrase(rng, s):
    words = s.rstrip(".").split()
    out = [SYNONYMS.get(w.lower(), w) if rng.random() < 0.7 else w for w in words]
    return " ".join(out) + "."


def mrpc_rows(rng, n, first_id):
    rows = []
    for i in range(n):
        s1 = sentence(rng, long=(i % 13 == 5))
        if i % 2 == 0:
            s2, quality = paraphrase(rng, s1), 1
            if s2 == s1:
                s2 = s1.rstrip(".") + " " + rng.choice(PLACES) + "."
        else:
            s2, quality = sentence(rng, long=(i % 11 == 3)), 0
        rows.append((quality, first_id + 2 * i, first_id + 2 * i + 1, s1, s2))
    rng.shuffle(rows)
    return rows


def write_tsv(path, header, rows):
    # GLUE's MRPC files: tab-separated, no quoting (texts hold no tab, newline or double quote).
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            assert not any(isinstance(v, str) and ("\t" in v or "\n" in v or '"' in v) for v in r)
            f.write("\t".join(str(v) for v in r) + "\n")


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def imdb_rows(rng, n):
    rows = []
    for i in range(n):
        text, label = review(rng, long=(i % 9 == 4))
        if i % 16 == 7:
            text = text.rstrip(".!") + ', said "my friend".'  # a comma and quotes: exercises CSV quoting
        rows.append({"text": text, "label": label})
    return rows


def regression_rows(rng, n):
    rows = []
    for i in range(n):
        s1 = sentence(rng, long=(i % 10 == 6))
        kind = i % 3
        if kind == 0:
            s2 = paraphrase(rng, s1)
        elif kind == 1:
            w = s1.rstrip(".").split()
            s2 = " ".join(w[: max(2, len(w) // 2)] + sentence(rng).rstrip(".").lower().split()[2:]) + "."
        else:
            s2 = sentence(rng)
        a = set(s1.lower().rstrip(".").split())
        b = set(s2.lower().rstrip(".").split())
        score = round(5.0 * len(a & b) / len(a | b), 2)
        if i % 8 == 0:
            score = float(round(score))  # some whole-number scores, still floats (written as 3.0)
        rows.append({"text": s1, "text_pair": s2, "label": float(score)})
    return rows


def multilabel_rows(rng, n, empty_at):
    names = sorted(TOPICS)
    rows = []
    for i in range(n):
        if i == empty_at:
            rows.append({"text": "The robot liked it very much.", "label": []})
            continue
        k = 1 + (rng.random() < 0.45) + (rng.random() < 0.15)
        topics = sorted(rng.sample(names, k))
        words = [rng.choice(TOPICS[t]) for t in topics]
        if i % 12 == 9:
            words += [rng.choice(TOPICS[t]) for t in topics]
        rng.shuffle(words)
        text = f"{rng.choice(PEOPLE)} {rng.choice(ACTIONS)} the " + " and the ".join(words) + f" {rng.choice(PLACES)}."
        rows.append({"text": text[0].upper() + text[1:], "label": topics})
    return rows


def main():
    write_tokenizer()
    header = ["Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"]
    names = {1: "equivalent", 0: "not_equivalent"}
    for split, n, seed, first in (("train", 64, 101, 1000001), ("eval", 16, 102, 2000001)):
        rows = mrpc_rows(random.Random(seed), n, first)
        write_tsv(os.path.join(HERE, f"mrpc_{split}.tsv"), header, rows)
        write_tsv(os.path.join(HERE, f"mrpc_strings_{split}.tsv"), header,
                  [(names[r[0]],) + r[1:] for r in rows])

        imdb = imdb_rows(random.Random(seed + 100), n)
        with open(os.path.join(HERE, f"imdb_{split}.csv"), "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, lineterminator="\n")  # QUOTE_MINIMAL, quotes doubled
            w.writerow(["text", "label"])
            for r in imdb:
                w.writerow([r["text"], r["label"]])
        write_jsonl(os.path.join(HERE, f"imdb_{split}.jsonl"), imdb)
        if split == "train":
            with open(os.path.join(HERE, "imdb_train.json"), "w", encoding="utf-8", newline="\n") as f:
                json.dump(imdb, f, ensure_ascii=False, indent=1)
                f.write("\n")

        write_jsonl(os.path.join(HERE, f"regression_{split}.jsonl"), regression_rows(random.Random(seed + 200), n))
        write_jsonl(os.path.join(HERE, f"multilabel_{split}.jsonl"),
                    multilabel_rows(random.Random(seed + 300), n, empty_at=(10 if split == "train" else 3)))


if __name__ == "__main__":
    main()
