// UTF-8 helpers for the tokenizers: strict validation, code point decoding, Rust-compatible lossy
// decoding (one U+FFFD per maximal invalid subpart) and the character classes HF tokenizers uses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fts::unicode {

inline constexpr size_t kValid = static_cast<size_t>(-1);

// Byte offset of the first byte that is not part of well-formed UTF-8 (overlongs, surrogates and
// code points above U+10FFFF are ill-formed), or kValid when the whole text is well-formed.
size_t findInvalidUtf8(std::string_view text);

// Decodes the code point starting at text[pos] of WELL-FORMED UTF-8 and advances pos past it.
inline char32_t decodeAt(std::string_view text, size_t& pos) {
    const auto b0 = static_cast<unsigned char>(text[pos]);
    if (b0 < 0x80) {
        ++pos;
        return b0;
    }
    if (b0 < 0xE0) {
        char32_t c = ((b0 & 0x1Fu) << 6) | (static_cast<unsigned char>(text[pos + 1]) & 0x3Fu);
        pos += 2;
        return c;
    }
    if (b0 < 0xF0) {
        char32_t c = ((b0 & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[pos + 1]) & 0x3Fu) << 6) |
                     (static_cast<unsigned char>(text[pos + 2]) & 0x3Fu);
        pos += 3;
        return c;
    }
    char32_t c = ((b0 & 0x07u) << 18) | ((static_cast<unsigned char>(text[pos + 1]) & 0x3Fu) << 12) |
                 ((static_cast<unsigned char>(text[pos + 2]) & 0x3Fu) << 6) |
                 (static_cast<unsigned char>(text[pos + 3]) & 0x3Fu);
    pos += 4;
    return c;
}

// Length in bytes of the UTF-8 sequence introduced by a lead byte (1 for ASCII and stray bytes).
inline size_t sequenceLength(unsigned char lead) { return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

void appendUtf8(std::string& out, char32_t cp);

// Rust's String::from_utf8_lossy: valid sequences are copied, each maximal invalid subpart
// (Unicode's "substitution of maximal subparts") becomes one U+FFFD.
std::string fromUtf8Lossy(std::string_view bytes);

// Unicode White_Space (Rust's char::is_whitespace, the regex crate's \s).
bool isWhitespace(char32_t cp);
// The regex crate's Unicode \w: Alphabetic, marks, decimal numbers, connector punctuation, Join_Control.
bool isWordCharacter(char32_t cp);
// The code point was assigned in Unicode `major`.x or earlier (HF's crates carry old tables: the
// unicode_categories classes are Unicode 8.0, StripAccents' mark table Unicode 9.0).
bool assignedBy(char32_t cp, int major);
// Rust's char::to_lowercase (Unicode 16), one code point at a time, appended as UTF-8.
void appendLowercase(std::string& out, char32_t cp);

}  // namespace fts::unicode
