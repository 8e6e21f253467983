// Fuzz harness: any text through the four tokenizer families we ship tests for (GPT-2 byte-level BPE, BERT
// WordPiece, Mistral SentencePiece-style BPE with byte fallback, Qwen3): encode, encode of a truncated pair,
// decode. The first byte picks the tokenizer and the length limit. Invalid UTF-8 must be a FormatError.
#include "core/data/tokenizer.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

const std::vector<std::unique_ptr<fts::Tokenizer>>& tokenizers() {
    static const auto all = [] {
        std::vector<std::unique_ptr<fts::Tokenizer>> v;
        for (const char* name : {"gpt2", "bert-base-uncased", "mistral-7b", "qwen3"})
            v.push_back(fts::Tokenizer::fromFile(fts::fuzz::kTestData / "tokenizers" / name / "tokenizer.json"));
        return v;
    }();
    return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const fts::Tokenizer& tok = *tokenizers()[data[0] % tokenizers().size()];
    const std::string_view text = fts::fuzz::bytes(data + 1, size - 1);
    try {
        const std::vector<int32_t> ids = tok.encode(text, (data[0] & 0x10) != 0);
        (void)tok.decode(ids, (data[0] & 0x20) != 0);
        const size_t half = text.size() / 2;
        (void)tok.encodeTruncated(text.substr(0, half), text.substr(half), 4 + (data[0] >> 2));
    } catch (const fts::Error&) {
    }
    return 0;
}
