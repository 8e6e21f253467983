# Reference side of tests/core/data/test_tool_chat_golden.cpp: renders conversations with tools through
# transformers' apply_chat_template with a given chat template (Qwen2.5's, tests/data/tokenizers/), and tokenizes
# the rendered text with the tokenizer of TOKENIZER_DIR.
# Usage: python tool_chat_reference.py TOKENIZER_DIR TEMPLATE_FILE CASES_JSON
# Input: [{"messages": [...HF messages...], "tools": [...] or null}]; output: [{"text": ..., "ids": [...]}].
import json
import sys

from transformers import AutoTokenizer


def main() -> int:
    tok = AutoTokenizer.from_pretrained(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        template = f.read()
    with open(sys.argv[3], encoding="utf-8") as f:
        cases = json.load(f)
    out = []
    for c in cases:
        text = tok.apply_chat_template(c["messages"], tools=c.get("tools"), chat_template=template, tokenize=False)
        out.append({"text": text, "ids": tok(text, add_special_tokens=False)["input_ids"]})
    sys.stdout.write(json.dumps(out, ensure_ascii=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
