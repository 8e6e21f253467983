// UTF-8 validation and lossy decoding written from the Unicode standard's well-formedness table
// (Table 3-7); character properties come from ICU so they follow one Unicode version everywhere.
#include "core/data/unicode_text.h"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <utility>

namespace fts::unicode {
namespace {
#include "core/data/unicode_additions.inc"
}  // namespace
namespace {

// Valid range of the second byte for a lead byte (Table 3-7); {0,0} for invalid leads.
struct SecondRange {
    unsigned char lo, hi;
};
SecondRange secondRange(unsigned char lead) {
    if (lead >= 0xC2 && lead <= 0xDF) return {0x80, 0xBF};
    if (lead == 0xE0) return {0xA0, 0xBF};
    if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) return {0x80, 0xBF};
    if (lead == 0xED) return {0x80, 0x9F};
    if (lead == 0xF0) return {0x90, 0xBF};
    if (lead >= 0xF1 && lead <= 0xF3) return {0x80, 0xBF};
    if (lead == 0xF4) return {0x80, 0x8F};
    return {0, 0};
}

// Number of bytes of the well-formed sequence at text[pos], or the negative length of the maximal
// invalid subpart (at least 1) when it is ill-formed.
long sequenceAt(std::string_view text, size_t pos) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (lead < 0x80) return 1;
    const SecondRange r = secondRange(lead);
    if (r.lo == 0) return -1;
    const size_t need = sequenceLength(lead);
    size_t i = 1;
    for (; i < need; ++i) {
        if (pos + i >= text.size()) return -static_cast<long>(i);
        const auto b = static_cast<unsigned char>(text[pos + i]);
        const bool ok = i == 1 ? (b >= r.lo && b <= r.hi) : (b >= 0x80 && b <= 0xBF);
        if (!ok) return -static_cast<long>(i);
    }
    return static_cast<long>(need);
}

}  // namespace

size_t findInvalidUtf8(std::string_view text) {
    size_t pos = 0;
    const size_t n = text.size();
    while (pos < n) {
        // ASCII fast path, 8 bytes at a time.
        while (pos + 8 <= n) {
            uint64_t chunk;
            __builtin_memcpy(&chunk, text.data() + pos, 8);
            if (chunk & 0x8080808080808080ull) break;
            pos += 8;
        }
        if (pos >= n) break;
        const long len = sequenceAt(text, pos);
        if (len < 0) return pos;
        pos += static_cast<size_t>(len);
    }
    return kValid;
}

void appendUtf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string fromUtf8Lossy(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    size_t pos = 0;
    while (pos < bytes.size()) {
        const long len = sequenceAt(bytes, pos);
        if (len > 0) {
            out.append(bytes.data() + pos, static_cast<size_t>(len));
            pos += static_cast<size_t>(len);
        } else {
            out.append("\xEF\xBF\xBD");  // U+FFFD
            pos += static_cast<size_t>(-len);
        }
    }
    return out;
}

bool isWhitespace(char32_t cp) { return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_WHITE_SPACE); }

bool isWordCharacter(char32_t cp) {
    const auto c = static_cast<UChar32>(cp);
    if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC) || u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL)) return true;
    switch (u_charType(c)) {
        case U_NON_SPACING_MARK:
        case U_ENCLOSING_MARK:
        case U_COMBINING_SPACING_MARK:
        case U_DECIMAL_DIGIT_NUMBER:
        case U_CONNECTOR_PUNCTUATION:
            return true;
        case U_UNASSIGNED:  // assigned since ICU's Unicode 15: the generated Unicode 16 word table
            for (const auto& [first, last] : kWordAdditions)
                if (cp >= first && cp <= last) return true;
            return false;
        default:
            return false;
    }
}

bool assignedBy(char32_t cp, int major) {
    UVersionInfo age;
    u_charAge(static_cast<UChar32>(cp), age);
    return age[0] != 0 && age[0] <= major;
}

void appendLowercase(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
        return;
    }
    // Case pairs added in Unicode 16 (ICU 72 has Unicode 15 data).
    static constexpr std::pair<char32_t, char32_t> kNewPairs[] = {
        {0x1C89, 0x1C8A}, {0xA7CB, 0x0264}, {0xA7CC, 0xA7CD}, {0xA7DA, 0xA7DB}, {0xA7DC, 0x019B}};
    for (const auto& [upper, lower] : kNewPairs)
        if (cp == upper) return appendUtf8(out, lower);
    if (cp >= 0x10D50 && cp <= 0x10D65) return appendUtf8(out, cp + 0x20);
    icu::UnicodeString s(static_cast<UChar32>(cp));
    s.toLower(icu::Locale::getRoot());
    s.toUTF8String(out);
}

}  // namespace fts::unicode
