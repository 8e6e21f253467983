// GPT-2's byte-level scheme: every byte maps to one printable code point (bytes that are printable
// Latin-1 map to themselves, the other 68 to U+0100..U+0143), so BPE never sees an unknown symbol.
// Holds the ByteLevel pre-tokenizer (optional prefix space, GPT-2 regex, byte mapping) and decoder.
#pragma once
#include "core/data/decoder.h"
#include "core/data/pre_tokenizer.h"

#include <cstdint>
#include <string_view>

namespace fts::tok {

// The byte a code point stands for, or -1 when it is not part of the byte-level alphabet.
int byteLevelByte(char32_t cp);

struct ByteLevelOptions {
    bool addPrefixSpace = true;
    bool useRegex = true;
    static ByteLevelOptions fromJson(const nlohmann::json& spec, const JsonContext& ctx);
};

class ByteLevelPreTokenizer final : public PreTokenizer {
public:
    explicit ByteLevelPreTokenizer(ByteLevelOptions options);
    void preTokenize(PreTokenized& pt) const override;

private:
    ByteLevelOptions m_options;
    const TokenizerRegex* m_gpt2Regex;  // shared, process-wide
};

class ByteLevelDecoder final : public Decoder {
public:
    // Maps each token's characters back to bytes (a token with a character outside the alphabet is
    // taken as its raw UTF-8) and decodes the bytes lossily, like HF: one output string.
    void decodeChain(std::vector<std::string>& tokens) const override;
};

}  // namespace fts::tok
