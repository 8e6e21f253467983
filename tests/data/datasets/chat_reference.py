# Reference side of tests/core/data/test_chat_template_golden.cpp: renders conversations with a
# model's own chat template through transformers' apply_chat_template.
# Usage: python chat_reference.py TOKENIZER_DIR CONVERSATIONS_JSON [TEMPLATE.jinja BOS EOS] [--whole]
# Input: a JSON array of message lists; output: a JSON array of the rendered generation prompts
# (add_generation_prompt=True, tokenize=False), or with --whole the conversations as they are
# (add_generation_prompt=False). A template file replaces the tokenizer's, rendered with the given BOS / EOS text.
import json
import sys

from transformers import AutoTokenizer


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--whole"]
    whole = "--whole" in sys.argv
    tok = AutoTokenizer.from_pretrained(args[0])
    with open(args[1], encoding="utf-8") as f:
        conversations = json.load(f)
    extra = {}
    if len(args) >= 5:
        with open(args[2], encoding="utf-8") as f:
            tok.chat_template = f.read()
        extra = {"bos_token": args[3], "eos_token": args[4]}
    out = [tok.apply_chat_template(c, tokenize=False, add_generation_prompt=not whole, **extra) for c in conversations]
    sys.stdout.write(json.dumps(out, ensure_ascii=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
