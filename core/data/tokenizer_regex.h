// Regexes of tokenizer.json (written for Oniguruma, which HF tokenizers uses) run with PCRE2 in
// UTF + UCP mode, JIT-compiled. Invariant: same matches as the onig crate's find_iter, including its
// handling of empty matches; escapes whose Unicode meaning differs (\s \S \w \W \h \H) are rewritten.
#pragma once
#include "core/data/tokenizer_json.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct pcre2_real_code_8;

namespace fts::tok {

struct RegexMatch {
    uint32_t begin, end;  // byte offsets into the searched text
};

class TokenizerRegex {
public:
    // An Oniguruma-syntax pattern; errors (bad syntax, an escape that cannot be translated) name ctx.
    static std::unique_ptr<TokenizerRegex> compile(std::string_view pattern, const JsonContext& ctx);
    // A literal string (Split's {"String": ...} pattern).
    static std::unique_ptr<TokenizerRegex> literal(std::string_view text, const JsonContext& ctx);
    ~TokenizerRegex();
    TokenizerRegex(const TokenizerRegex&) = delete;
    TokenizerRegex& operator=(const TokenizerRegex&) = delete;

    // Appends every match in `text` (well-formed UTF-8, not re-checked) to `out`, left to right.
    // Thread-safe: match state is per thread.
    void findAll(std::string_view text, std::vector<RegexMatch>& out) const;

    // The Oniguruma -> PCRE2 rewrite (exposed for tests).
    static std::string translateOnigPattern(std::string_view pattern, const JsonContext& ctx);

private:
    TokenizerRegex() = default;
    pcre2_real_code_8* m_code = nullptr;
    std::string m_pcrePattern;
};

}  // namespace fts::tok
