// Incremental decoding of generated tokens; see text_stream.h.
#include "core/generate/text_stream.h"

namespace fts {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD: what decode() makes of an incomplete character
}

TextStream::TextStream(const Tokenizer& tokenizer, std::vector<std::string> stopStrings, bool skipSpecialTokens)
    : m_tokenizer(tokenizer), m_stopStrings(std::move(stopStrings)), m_skipSpecial(skipSpecialTokens) {}

std::string TextStream::push(int64_t token) {
    m_ids.push_back(int32_t(token));
    if (!m_stopStrings.empty() && !m_stopped) {
        const std::string raw = m_tokenizer.decode(m_ids, false);
        for (const auto& s : m_stopStrings)
            if (!s.empty() && raw.find(s) != std::string::npos) m_stopped = true;
    }
    const std::string text = m_tokenizer.decode(m_ids, m_skipSpecial);
    // Hold back a trailing U+FFFD: the next token may complete the character.
    size_t end = text.size();
    if (text.size() >= kReplacement.size() &&
        text.compare(end - kReplacement.size(), kReplacement.size(), kReplacement.data(), kReplacement.size()) == 0)
        end -= kReplacement.size();
    if (end <= m_emitted) return {};
    std::string out = text.substr(m_emitted, end - m_emitted);
    m_emitted = end;
    return out;
}

std::string TextStream::flush() {
    const std::string all = text();
    if (all.size() <= m_emitted) return {};
    std::string rest = all.substr(m_emitted);
    m_emitted = all.size();
    return rest;
}

std::string TextStream::text() const { return m_tokenizer.decode(m_ids, m_skipSpecial); }

}  // namespace fts
