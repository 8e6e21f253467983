// The text of a sequence as its tokens arrive: each new token yields the characters it completes (a byte-level
// token may end inside a UTF-8 character: those bytes wait for the next token), and stop strings are found in the
// text as soon as a token completes one. Decodes with the tokenizer's own decoder (the whole sequence each time, so
// merges across tokens and leading-space rules come out as in decode()). No LibTorch here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/tokenizer.h"

namespace fts {

class TextStream {
public:
    TextStream(const Tokenizer& tokenizer, std::vector<std::string> stopStrings, bool skipSpecialTokens = true);
    // Adds a token; returns the text that became final with it (possibly empty).
    std::string push(int64_t token);
    // The rest of the text once the sequence has ended (bytes held back for a character that never completed).
    std::string flush();
    // True once the raw text (special tokens included) contains a stop string.
    bool stopped() const { return m_stopped; }
    // The text so far (everything, including bytes held back at the end), and the token ids.
    std::string text() const;
    const std::vector<int32_t>& ids() const { return m_ids; }

private:
    const Tokenizer& m_tokenizer;
    std::vector<std::string> m_stopStrings;
    bool m_skipSpecial;
    std::vector<int32_t> m_ids;
    size_t m_emitted = 0;  // bytes of the decoded text already returned by push()
    bool m_stopped = false;
};

}  // namespace fts
