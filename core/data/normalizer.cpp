// Unicode forms through ICU's UTF-8 API with a quick-check fast path (ASCII is returned untouched);
// the character-level normalizers decode code points and classify them with ICU's character
// properties, restricted to the Unicode versions of HF's tables where they are old (see
// unicode::assignedBy). BertNormalizer follows HF: clean (drop NUL, U+FFFD, Cc/Cf/Co except \t\n\r; whitespace
// -> ' '), pad CJK ideographs with spaces, strip accents (NFD, drop Mn), lowercase.
#include "core/data/normalizer.h"

#include "core/data/unicode_text.h"

#include <unicode/bytestream.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace fts::tok {
namespace {

const icu::Normalizer2* icuInstance(UnicodeForm form) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = nullptr;
    switch (form) {
        case UnicodeForm::NFC:
            n = icu::Normalizer2::getNFCInstance(status);
            break;
        case UnicodeForm::NFD:
            n = icu::Normalizer2::getNFDInstance(status);
            break;
        case UnicodeForm::NFKC:
            n = icu::Normalizer2::getNFKCInstance(status);
            break;
        case UnicodeForm::NFKD:
            n = icu::Normalizer2::getNFKDInstance(status);
            break;
    }
    if (U_FAILURE(status) || !n) throw Error(std::string("ICU normalizer unavailable: ") + u_errorName(status));
    return n;
}

bool isAscii(const std::string& s) {
    for (unsigned char c : s)
        if (c >= 0x80) return false;
    return true;
}

void runIcu(const icu::Normalizer2* n, std::string& text) {
    if (isAscii(text)) return;  // ASCII is invariant under all four forms
    UErrorCode status = U_ZERO_ERROR;
    const icu::StringPiece piece(text.data(), static_cast<int32_t>(text.size()));
    if (n->isNormalizedUTF8(piece, status) && U_SUCCESS(status)) return;
    status = U_ZERO_ERROR;
    std::string out;
    out.reserve(text.size() + 8);
    icu::StringByteSink<std::string> sink(&out);
    n->normalizeUTF8(0, piece, sink, nullptr, status);
    if (U_FAILURE(status)) throw Error(std::string("Unicode normalization failed: ") + u_errorName(status));
    text.swap(out);
}

void lowercase(std::string& text) {
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) unicode::appendLowercase(out, unicode::decodeAt(text, pos));
    text.swap(out);
}

template <class Keep>
void filterChars(std::string& text, Keep keep) {
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t start = pos;
        const char32_t cp = unicode::decodeAt(text, pos);
        if (keep(cp)) out.append(text, start, pos - start);
    }
    text.swap(out);
}

bool isChineseChar(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

uint32_t categoryMask(char32_t c) { return U_GET_GC_MASK(static_cast<UChar32>(c)); }

}  // namespace

UnicodeNormalizer::UnicodeNormalizer(UnicodeForm form) : m_icu(icuInstance(form)) {}

void UnicodeNormalizer::normalize(std::string& text) const {
    runIcu(static_cast<const icu::Normalizer2*>(m_icu), text);
}

void LowercaseNormalizer::normalize(std::string& text) const { lowercase(text); }

void StripAccentsNormalizer::normalize(std::string& text) const {
    if (isAscii(text)) return;
    filterChars(text, [](char32_t c) { return (categoryMask(c) & U_GC_M_MASK) == 0 || !unicode::assignedBy(c, 9); });
}

void BertNormalizer::normalize(std::string& text) const {
    if (m_cleanText) {
        std::string out;
        out.reserve(text.size());
        size_t pos = 0;
        while (pos < text.size()) {
            const size_t start = pos;
            const char32_t c = unicode::decodeAt(text, pos);
            const bool ws = c == '\t' || c == '\n' || c == '\r' || unicode::isWhitespace(c);
            const bool control = !(c == '\t' || c == '\n' || c == '\r') &&
                                 (categoryMask(c) & (U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CO_MASK)) != 0 &&
                                 unicode::assignedBy(c, 8);
            if (c == 0 || c == 0xFFFD || control) continue;
            if (ws)
                out.push_back(' ');
            else
                out.append(text, start, pos - start);
        }
        text.swap(out);
    }
    if (m_handleChinese && !isAscii(text)) {
        std::string out;
        out.reserve(text.size() + 16);
        size_t pos = 0;
        while (pos < text.size()) {
            const size_t start = pos;
            const char32_t c = unicode::decodeAt(text, pos);
            if (isChineseChar(c)) out.push_back(' ');
            out.append(text, start, pos - start);
            if (isChineseChar(c)) out.push_back(' ');
        }
        text.swap(out);
    }
    if (m_stripAccents && !isAscii(text)) {
        runIcu(icuInstance(UnicodeForm::NFD), text);
        filterChars(text,
                    [](char32_t c) { return (categoryMask(c) & U_GC_MN_MASK) == 0 || !unicode::assignedBy(c, 8); });
    }
    if (m_lowercase) lowercase(text);
}

void PrependNormalizer::normalize(std::string& text) const {
    if (!text.empty()) text.insert(0, m_prefix);
}

void ReplaceNormalizer::normalize(std::string& text) const {
    thread_local std::vector<RegexMatch> matches;
    matches.clear();
    m_pattern->findAll(text, matches);
    if (matches.empty()) return;
    std::string out;
    out.reserve(text.size() + matches.size() * m_content.size());
    size_t prev = 0;
    for (const RegexMatch& m : matches) {
        out.append(text, prev, m.begin - prev);
        out += m_content;
        prev = m.end;
    }
    out.append(text, prev, std::string::npos);
    text.swap(out);
}

void StripNormalizer::normalize(std::string& text) const {
    size_t begin = 0, end = text.size();
    if (m_left) {
        size_t pos = 0;
        while (pos < text.size()) {
            const size_t start = pos;
            if (!unicode::isWhitespace(unicode::decodeAt(text, pos))) {
                begin = start;
                break;
            }
            begin = pos;
        }
    }
    if (m_right) {
        // Walk forward remembering the end of the last non-whitespace character.
        size_t pos = begin, lastEnd = begin;
        while (pos < text.size()) {
            if (!unicode::isWhitespace(unicode::decodeAt(text, pos))) lastEnd = pos;
        }
        end = lastEnd;
    }
    if (end < begin) end = begin;
    text = text.substr(begin, end - begin);
}

void SequenceNormalizer::normalize(std::string& text) const {
    for (const auto& step : m_steps) step->normalize(text);
}

std::unique_ptr<TokenizerRegex> parsePattern(const nlohmann::json& pattern, const JsonContext& pctx) {
    if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string())
        return TokenizerRegex::compile(pattern["Regex"].get<std::string>(), pctx);
    if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
        const std::string literal = pattern["String"].get<std::string>();
        if (literal.empty()) pctx.fail("an empty String pattern is not supported");
        return TokenizerRegex::literal(literal, pctx);
    }
    pctx.fail("expected {\"Regex\": \"...\"} or {\"String\": \"...\"}, found " + pattern.dump());
}

std::unique_ptr<Normalizer> makeNormalizer(const nlohmann::json& spec, const JsonContext& ctx) {
    if (spec.is_null()) return nullptr;
    const std::string type = ctx.type(spec);
    if (type == "NFC") return std::make_unique<UnicodeNormalizer>(UnicodeForm::NFC);
    if (type == "NFD") return std::make_unique<UnicodeNormalizer>(UnicodeForm::NFD);
    if (type == "NFKC") return std::make_unique<UnicodeNormalizer>(UnicodeForm::NFKC);
    if (type == "NFKD") return std::make_unique<UnicodeNormalizer>(UnicodeForm::NFKD);
    if (type == "Lowercase") return std::make_unique<LowercaseNormalizer>();
    if (type == "StripAccents") return std::make_unique<StripAccentsNormalizer>();
    if (type == "BertNormalizer") {
        const bool lower = ctx.getBool(spec, "lowercase", true);
        // strip_accents null follows lowercase (HF's BertNormalizer builder).
        const bool strip = ctx.getBool(spec, "strip_accents", lower);
        return std::make_unique<BertNormalizer>(ctx.getBool(spec, "clean_text", true),
                                                ctx.getBool(spec, "handle_chinese_chars", true), strip, lower);
    }
    if (type == "Prepend") return std::make_unique<PrependNormalizer>(ctx.requireString(spec, "prepend"));
    if (type == "Replace")
        return std::make_unique<ReplaceNormalizer>(parsePattern(ctx.require(spec, "pattern"), ctx.child("pattern")),
                                                   ctx.requireString(spec, "content"));
    if (type == "Strip")
        return std::make_unique<StripNormalizer>(ctx.getBool(spec, "strip_left", true),
                                                 ctx.getBool(spec, "strip_right", true));
    if (type == "Sequence") {
        const auto& list = ctx.require(spec, "normalizers");
        if (!list.is_array()) ctx.child("normalizers").fail("expected an array of normalizers");
        std::vector<std::unique_ptr<Normalizer>> steps;
        for (size_t i = 0; i < list.size(); ++i) {
            auto step = makeNormalizer(list[i], ctx.child("normalizers").index(i));
            if (step) steps.push_back(std::move(step));
        }
        return std::make_unique<SequenceNormalizer>(std::move(steps));
    }
    ctx.unsupported("normalizer", type,
                    "NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, BertNormalizer, Prepend, Replace, Strip, Sequence");
}

}  // namespace fts::tok
