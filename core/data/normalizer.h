// Normalizers of tokenizer.json ("normalizer" key): a text -> text transform applied to each piece of
// input that is not an added token. Implemented: NFC, NFD, NFKC, NFKD (ICU), Lowercase, StripAccents,
// BertNormalizer, Prepend, Replace, Strip, Sequence; any other type is a FormatError naming the type
// and the file. Character classes follow HF tokenizers (checked against it in tests).
#pragma once
#include "core/data/tokenizer_json.h"
#include "core/data/tokenizer_regex.h"

#include <memory>
#include <string>
#include <vector>

namespace fts::tok {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    // Normalizes `text` (well-formed UTF-8) in place.
    virtual void normalize(std::string& text) const = 0;
};

enum class UnicodeForm { NFC, NFD, NFKC, NFKD };

class UnicodeNormalizer final : public Normalizer {
public:
    explicit UnicodeNormalizer(UnicodeForm form);
    void normalize(std::string& text) const override;

private:
    const void* m_icu;  // icu::Normalizer2 (a process-wide singleton owned by ICU)
};

// Per-character full lowercase mapping (no context rules: a final capital sigma becomes U+03C3, as HF).
class LowercaseNormalizer final : public Normalizer {
public:
    void normalize(std::string& text) const override;
};

// Removes combining marks (general category M: Mn, Mc, Me).
class StripAccentsNormalizer final : public Normalizer {
public:
    void normalize(std::string& text) const override;
};

class BertNormalizer final : public Normalizer {
public:
    BertNormalizer(bool cleanText, bool handleChinese, bool stripAccents, bool lowercase)
        : m_cleanText(cleanText),
          m_handleChinese(handleChinese),
          m_stripAccents(stripAccents),
          m_lowercase(lowercase) {}
    void normalize(std::string& text) const override;

private:
    bool m_cleanText, m_handleChinese, m_stripAccents, m_lowercase;
};

// Prepends a string to non-empty text.
class PrependNormalizer final : public Normalizer {
public:
    explicit PrependNormalizer(std::string prefix) : m_prefix(std::move(prefix)) {}
    void normalize(std::string& text) const override;

private:
    std::string m_prefix;
};

// Replaces every (non-overlapping, leftmost) match of a literal or regex pattern.
class ReplaceNormalizer final : public Normalizer {
public:
    ReplaceNormalizer(std::unique_ptr<TokenizerRegex> pattern, std::string content)
        : m_pattern(std::move(pattern)), m_content(std::move(content)) {}
    void normalize(std::string& text) const override;

private:
    std::unique_ptr<TokenizerRegex> m_pattern;
    std::string m_content;
};

// Strips Unicode whitespace on the left and/or right.
class StripNormalizer final : public Normalizer {
public:
    StripNormalizer(bool left, bool right) : m_left(left), m_right(right) {}
    void normalize(std::string& text) const override;

private:
    bool m_left, m_right;
};

class SequenceNormalizer final : public Normalizer {
public:
    explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : m_steps(std::move(steps)) {}
    void normalize(std::string& text) const override;

private:
    std::vector<std::unique_ptr<Normalizer>> m_steps;
};

// A literal ({"String": ...}) or regex ({"Regex": ...}) pattern of Split / Replace.
std::unique_ptr<TokenizerRegex> parsePattern(const nlohmann::json& spec, const JsonContext& ctx);

// null -> nullptr (no normalization).
std::unique_ptr<Normalizer> makeNormalizer(const nlohmann::json& spec, const JsonContext& ctx);

}  // namespace fts::tok
