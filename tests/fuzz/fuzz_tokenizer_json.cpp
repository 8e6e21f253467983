// Fuzz harness: tokenizer.json loaded (models, normalizers, pre-tokenizers, post-processors, decoders, added
// tokens), then a fixed multilingual text encoded, with and without special tokens, and decoded back.
#include "core/data/tokenizer.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto file = fts::fuzz::writeScratch("tokenizer.json", fts::fuzz::bytes(data, size));
    try {
        const auto tok = fts::Tokenizer::fromFile(file);
        const std::string text = "Hello, world! Ünïcödé 你好 <|endoftext|> [CLS] 12345   tabs\tand\nlines ";
        for (bool special : {false, true}) {
            const std::vector<int32_t> ids = tok->encode(text, special);
            (void)tok->decode(ids, false);
            (void)tok->decode(ids, true);
        }
        (void)tok->vocabSize();
    } catch (const fts::Error&) {
    }
    return 0;
}
