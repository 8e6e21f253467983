// PCRE2 backend for tokenizer.json regexes. Oniguruma's classes differ from PCRE2's UCP ones where it
// matters for real tokenizers (measured against HF tokenizers 0.23.2, code point by code point): onig's
// \s is Unicode White_Space (with U+0085, without U+180E); onig's \w is Alphabetic|Mark|Decimal_Number|
// Connector_Punctuation, plus, outside brackets only, the Latin-1 digits-like ¹²³¼½¾. Those escapes are
// rewritten to explicit classes before compiling. PCRE2 10.42 knows Unicode 14, HF's Oniguruma Unicode 16:
// \p{<general category>}, \d and \w get the code points assigned since appended (unicode_additions.inc).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "core/data/tokenizer_regex.h"

#include "core/data/unicode_text.h"

#include <pcre2.h>

#include <cstdio>
#include <utility>

namespace fts::tok {
namespace {

#include "core/data/unicode_additions.inc"

std::string hexCode(char32_t c) {
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "\\x{%X}", static_cast<unsigned>(c));
    return buffer;
}

std::string rangeText(char32_t first, char32_t last) {
    return first == last ? hexCode(first) : hexCode(first) + "-" + hexCode(last);
}

// Class items for the code points assigned after Unicode 14 in a general category ("L", "Lu", "LC",
// long names "Letter", ...); empty when the name is not a general category or nothing was added.
std::string categoryAdditions(std::string name) {
    static const std::pair<const char*, const char*> kLongNames[] = {
        {"Letter", "L"},    {"Mark", "M"},  {"Number", "N"}, {"Punctuation", "P"},  {"Symbol", "S"},
        {"Separator", "Z"}, {"Other", "C"}, {"L&", "LC"},    {"Cased_Letter", "LC"}};
    for (const auto& [longName, shortName] : kLongNames)
        if (name == longName) name = shortName;
    std::string out;
    for (const UnicodeAddition& a : kUnicodeAdditions) {
        const std::string_view gc(a.category, 2);
        const bool match = name.size() == 1   ? gc[0] == name[0]
                           : name == "LC"     ? (gc == "Lu" || gc == "Ll" || gc == "Lt")
                           : name.size() == 2 ? gc == name
                                              : false;
        if (match) out += rangeText(a.first, a.last);
    }
    return out;
}

const std::string& wordAdditions() {
    static const std::string items = [] {
        std::string out;
        for (const auto& [first, last] : kWordAdditions) out += rangeText(first, last);
        return out;
    }();
    return items;
}

constexpr std::string_view kSpace =
    "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";
constexpr std::string_view kWordCore = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}";
constexpr std::string_view kWordLatin1 = "\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}";  // outside brackets only
constexpr std::string_view kHex = "0-9a-fA-F";

// Per-thread PCRE2 match state: match data large enough for group 0 of any pattern, and a JIT
// stack big enough for long runs of repeated classes.
struct ThreadMatchState {
    pcre2_match_data* data = nullptr;
    pcre2_match_context* context = nullptr;
    pcre2_jit_stack* jitStack = nullptr;
    ThreadMatchState() {
        data = pcre2_match_data_create(16, nullptr);
        context = pcre2_match_context_create(nullptr);
        jitStack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
        if (context && jitStack) pcre2_jit_stack_assign(context, nullptr, jitStack);
    }
    ~ThreadMatchState() {
        pcre2_jit_stack_free(jitStack);
        pcre2_match_context_free(context);
        pcre2_match_data_free(data);
    }
};

ThreadMatchState& threadState() {
    thread_local ThreadMatchState state;
    return state;
}

std::string pcreErrorText(int code) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(code, buffer, sizeof(buffer));
    return reinterpret_cast<const char*>(buffer);
}

}  // namespace

std::string TokenizerRegex::translateOnigPattern(std::string_view p, const JsonContext& ctx) {
    std::string out;
    out.reserve(p.size() + 32);
    bool inClass = false;
    size_t i = 0;
    auto unsupportedInClass = [&](char c) {
        ctx.fail(std::string("regex: the escape \\") + c +
                 " inside a character class has no PCRE2 equivalent with Oniguruma's Unicode meaning");
    };
    while (i < p.size()) {
        const char c = p[i];
        if (c == '\\' && i + 1 < p.size()) {
            const char d = p[i + 1];
            i += 2;
            const std::string wordInClass = std::string(kWordCore) + wordAdditions();
            switch (d) {
                case 's':
                    out += inClass ? std::string(kSpace) : "[" + std::string(kSpace) + "]";
                    continue;
                case 'S':
                    if (inClass) unsupportedInClass(d);
                    out += "[^" + std::string(kSpace) + "]";
                    continue;
                case 'w':
                    out += inClass ? wordInClass : "[" + wordInClass + std::string(kWordLatin1) + "]";
                    continue;
                case 'W':
                    if (inClass) unsupportedInClass(d);
                    out += "[^" + wordInClass + std::string(kWordLatin1) + "]";
                    continue;
                case 'h':  // Oniguruma: hexadecimal digit (PCRE2: horizontal space)
                    out += inClass ? std::string(kHex) : "[" + std::string(kHex) + "]";
                    continue;
                case 'H':
                    if (inClass) unsupportedInClass(d);
                    out += "[^" + std::string(kHex) + "]";
                    continue;
                case 'd':
                case 'D': {
                    const std::string extra = categoryAdditions("Nd");
                    if (inClass)
                        out += d == 'd' ? "\\d" + extra : "\\D";  // \D in brackets: Unicode 14's digits
                    else
                        out += (d == 'd' ? "[\\d" : "[^\\d") + extra + "]";
                    continue;
                }
                case 'p':
                case 'P': {
                    // \p{Name}, \p{^Name}, \P{Name}, \pL: append the newer code points of a category.
                    std::string name, original = std::string("\\") + d;
                    if (i < p.size() && p[i] == '{') {
                        const size_t close = p.find('}', i);
                        if (close == std::string_view::npos) ctx.fail("regex: unterminated \\p{...}");
                        name = std::string(p.substr(i + 1, close - i - 1));
                        original += std::string(p.substr(i, close + 1 - i));
                        i = close + 1;
                    } else if (i < p.size()) {
                        name = std::string(1, p[i]);
                        original += p[i++];
                    }
                    bool negated = d == 'P';
                    if (!name.empty() && name[0] == '^') {
                        negated = !negated;
                        name.erase(0, 1);
                    }
                    const std::string extra = categoryAdditions(name);
                    const std::string positive = "\\p{" + name + "}";
                    if (extra.empty())
                        out += original;
                    else if (!negated)
                        out += inClass ? positive + extra : "[" + positive + extra + "]";
                    else if (!inClass)
                        out += "[^" + positive + extra + "]";
                    else
                        out += original;  // negated inside brackets: Unicode 14's membership
                    continue;
                }
                default:
                    out += c;
                    out += d;
                    continue;
            }
        }
        if (!inClass) {
            out += c;
            ++i;
            if (c == '[') {
                inClass = true;
                if (i < p.size() && p[i] == '^') out += p[i++];
                if (i < p.size() && p[i] == ']') out += p[i++];  // a leading ']' is literal
            }
            continue;
        }
        // Inside a character class.
        if (c == ']') {
            inClass = false;
            out += c;
            ++i;
        } else if (c == '[') {
            if (i + 1 < p.size() && p[i + 1] == ':') {  // POSIX bracket [:alpha:]
                const size_t close = p.find(":]", i + 2);
                if (close == std::string_view::npos) ctx.fail("regex: unterminated POSIX class in pattern");
                out.append(p.substr(i, close + 2 - i));
                i = close + 2;
            } else {
                ctx.fail("regex: nested character classes (Oniguruma set operations) are not supported");
            }
        } else if (c == '&' && i + 1 < p.size() && p[i + 1] == '&') {
            ctx.fail("regex: character class intersection '&&' (Oniguruma) is not supported");
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

std::unique_ptr<TokenizerRegex> TokenizerRegex::compile(std::string_view pattern, const JsonContext& ctx) {
    if (unicode::findInvalidUtf8(pattern) != unicode::kValid) ctx.fail("regex pattern is not valid UTF-8");
    std::unique_ptr<TokenizerRegex> re(new TokenizerRegex());
    re->m_pcrePattern = translateOnigPattern(pattern, ctx);
    int errorCode = 0;
    PCRE2_SIZE errorOffset = 0;
    // Oniguruma's default (Ruby) syntax: ^ and $ are line anchors, '.' does not match '\n'.
    re->m_code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re->m_pcrePattern.data()), re->m_pcrePattern.size(),
                               PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &errorCode, &errorOffset, nullptr);
    if (!re->m_code) {
        ctx.fail("regex " + nlohmann::json(std::string(pattern)).dump() +
                 " does not compile: " + pcreErrorText(errorCode) + " (at offset " + std::to_string(errorOffset) +
                 " of the PCRE2 form " + nlohmann::json(re->m_pcrePattern).dump() + ")");
    }
    // JIT is an optimisation: when unavailable pcre2_match interprets the pattern.
    pcre2_jit_compile(re->m_code, PCRE2_JIT_COMPLETE);
    return re;
}

std::unique_ptr<TokenizerRegex> TokenizerRegex::literal(std::string_view text, const JsonContext& ctx) {
    std::string escaped;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        const bool plain = u >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!plain) escaped += '\\';
        escaped += c;
    }
    // Escaped ASCII never forms an onig-specific escape (\s, \w, \h are letters, left unescaped).
    return compile(escaped, ctx);
}

TokenizerRegex::~TokenizerRegex() { pcre2_code_free(m_code); }

void TokenizerRegex::findAll(std::string_view text, std::vector<RegexMatch>& out) const {
    ThreadMatchState& st = threadState();
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    const size_t n = text.size();
    size_t lastEnd = 0;
    bool haveLastMatch = false;
    size_t lastMatchEnd = 0;
    while (lastEnd <= n) {
        const int rc = pcre2_match(m_code, subject, n, lastEnd, PCRE2_NO_UTF_CHECK, st.data, st.context);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) throw Error("tokenizer regex failed while matching: " + pcreErrorText(rc));
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(st.data);
        const size_t s = ov[0], e = ov[1];
        // Like the onig crate: an empty match right where the previous match ended is skipped by
        // advancing one character; otherwise the search resumes at the match end.
        if (s == e && haveLastMatch && lastMatchEnd == e) {
            lastEnd += lastEnd < n ? unicode::sequenceLength(static_cast<unsigned char>(text[lastEnd])) : 1;
            continue;
        }
        lastEnd = e;
        lastMatchEnd = e;
        haveLastMatch = true;
        out.push_back({static_cast<uint32_t>(s), static_cast<uint32_t>(e)});
    }
}

}  // namespace fts::tok
