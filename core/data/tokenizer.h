// A Hugging Face tokenizer.json, run natively: added tokens -> normalizer -> pre-tokenizer -> model
// -> post-processor, and the decoder back. Invariant: for every component type it accepts, ids and
// decoded text equal HF tokenizers' (checked against its output in tests); a component type it does
// not implement is a FormatError at load naming the type, its JSON path and the file.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fts {
namespace tok {
class AddedVocabulary;
class Normalizer;
class PreTokenizer;
class TokenizerModel;
class PostProcessor;
class Decoder;
}  // namespace tok

class Tokenizer {
public:
    // Loads tokenizer.json; also reads tokenizer_config.json next to it when present (eos_token).
    // Throws IoError (unreadable file) or FormatError ("<file>: <json path>: <problem>").
    static std::unique_ptr<Tokenizer> fromFile(const std::filesystem::path& tokenizerJson);
    ~Tokenizer();
    Tokenizer(const Tokenizer&) = delete;
    Tokenizer& operator=(const Tokenizer&) = delete;

    // HF's encode(text, add_special_tokens).ids. `text` must be well-formed UTF-8 (else FormatError).
    // Thread-safe.
    std::vector<int32_t> encode(std::string_view text, bool addSpecialTokens = false) const;
    // Same, appending to `out` (no per-call vector allocation when out has capacity).
    void encodeAppend(std::string_view text, std::vector<int32_t>& out, bool addSpecialTokens = false) const;

    // A text, or a sentence pair, with special tokens and token type ids, cut to at most maxLength tokens:
    // transformers' tokenizer(text, text_pair, truncation=True, max_length=maxLength) (longest_first, the rule
    // tokenizers 0.23 applies: docs/data.md). An empty pair is still a pair ([CLS] A [SEP] [SEP]), as in a batched
    // call. FormatError for invalid UTF-8, a maxLength that leaves no room for text, or a post-processor without a
    // pair template.
    struct Encoded {
        std::vector<int32_t> ids;
        std::vector<int8_t> typeIds;
        bool truncated = false;
    };
    Encoded encodeTruncated(std::string_view text, const std::optional<std::string_view>& textPair,
                            int64_t maxLength) const;

    // HF's decode(ids, skip_special_tokens): ids without a token are skipped; invalid UTF-8 produced by
    // byte-level tokens becomes U+FFFD.
    std::string decode(const std::vector<int32_t>& ids, bool skipSpecialTokens = false) const;

    // Ids are in [0, vocabSize()): one past the largest id of the model and the added tokens.
    int32_t vocabSize() const;
    std::optional<int32_t> tokenToId(std::string_view token) const;  // added tokens first, then the model
    std::string idToToken(int32_t id) const;                         // throws fts::Error for an id without a token
    bool isSpecialToken(int32_t id) const;                           // an added token marked "special"

    // eos_token of tokenizer_config.json next to the file when it names one; else the first
    // conventional special added token present (<|endoftext|>, </s>, <|im_end|>, <|end_of_text|>,
    // <|eot_id|>, <eos>); else none.
    std::optional<int32_t> eosTokenId() const { return m_eosId; }
    // bos_token of tokenizer_config.json next to the file; none when it names none (or there is no such file).
    std::optional<int32_t> bosTokenId() const { return m_bosId; }

    const std::filesystem::path& path() const { return m_path; }

private:
    Tokenizer();
    void encodeRaw(std::string_view text, std::vector<int32_t>& out) const;

    std::filesystem::path m_path;
    std::unique_ptr<tok::AddedVocabulary> m_added;
    std::unique_ptr<tok::Normalizer> m_normalizer;
    std::unique_ptr<tok::PreTokenizer> m_preTokenizer;
    std::unique_ptr<tok::TokenizerModel> m_model;
    std::unique_ptr<tok::PostProcessor> m_postProcessor;
    std::unique_ptr<tok::Decoder> m_decoder;
    std::unordered_set<std::string> m_specialContents;
    std::optional<int32_t> m_eosId;
    std::optional<int32_t> m_bosId;
    int32_t m_vocabSize = 0;
};

}  // namespace fts
