// Byte-level tables are built once from GPT-2's rule; the pre-tokenizer writes the mapped pieces into a
// fresh buffer in one pass (at most 2 output bytes per input byte).
#include "core/data/byte_level.h"

#include "core/data/unicode_text.h"

#include <array>

namespace fts::tok {
namespace {

struct ByteTables {
    std::array<char32_t, 256> charOf{};
    std::array<std::array<char, 2>, 256> utf8{};
    std::array<uint8_t, 256> utf8Len{};
    std::array<int16_t, 512> byteOf{};  // code point (< 512) -> byte, -1 when none

    ByteTables() {
        byteOf.fill(-1);
        auto printable = [](int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE); };
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) charOf[b] = printable(b) ? static_cast<char32_t>(b) : next++;
        for (int b = 0; b < 256; ++b) {
            std::string s;
            unicode::appendUtf8(s, charOf[b]);
            utf8Len[b] = static_cast<uint8_t>(s.size());
            utf8[b][0] = s[0];
            utf8[b][1] = s.size() > 1 ? s[1] : 0;
            byteOf[charOf[b]] = static_cast<int16_t>(b);
        }
    }
};

const ByteTables& tables() {
    static const ByteTables t;
    return t;
}

const TokenizerRegex* gpt2Regex() {
    // GPT-2's pre-tokenization regex, as HF's ByteLevel uses it.
    static const std::unique_ptr<TokenizerRegex> re =
        TokenizerRegex::compile(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)",
                                JsonContext("<built-in>", "ByteLevel GPT-2 regex"));
    return re.get();
}

}  // namespace

int byteLevelByte(char32_t cp) { return cp < 512 ? tables().byteOf[cp] : -1; }

ByteLevelOptions ByteLevelOptions::fromJson(const nlohmann::json& spec, const JsonContext& ctx) {
    ByteLevelOptions o;
    o.addPrefixSpace = ctx.getBool(spec, "add_prefix_space", true);
    o.useRegex = ctx.getBool(spec, "use_regex", true);
    ctx.getBool(spec, "trim_offsets", true);  // offsets only; validated for type
    return o;
}

ByteLevelPreTokenizer::ByteLevelPreTokenizer(ByteLevelOptions options)
    : m_options(options), m_gpt2Regex(options.useRegex ? gpt2Regex() : nullptr) {}

void ByteLevelPreTokenizer::preTokenize(PreTokenized& pt) const {
    const ByteTables& t = tables();
    thread_local std::vector<RegexMatch> matches;
    thread_local std::vector<Piece> split;
    thread_local std::string prefixed;
    std::string out;
    out.reserve(pt.text.size() * 2 + 8);
    std::vector<Piece> pieces;
    pieces.reserve(pt.pieces.size() * 2);

    auto emitMapped = [&](std::string_view s) {
        const auto begin = static_cast<uint32_t>(out.size());
        for (unsigned char b : s) out.append(t.utf8[b].data(), t.utf8Len[b]);
        pieces.push_back({begin, static_cast<uint32_t>(out.size())});
    };

    for (const Piece& piece : pt.pieces) {
        std::string_view sv = pt.view(piece);
        if (m_options.addPrefixSpace && sv.front() != ' ') {
            prefixed.assign(1, ' ');
            prefixed.append(sv);
            sv = prefixed;
        }
        if (!m_gpt2Regex) {
            emitMapped(sv);
            continue;
        }
        matches.clear();
        split.clear();
        m_gpt2Regex->findAll(sv, matches);
        splitByMatches(sv, matches, SplitBehavior::Isolated, false, 0, split);
        for (const Piece& p : split) emitMapped(sv.substr(p.begin, p.end - p.begin));
    }
    pt.text.swap(out);
    pt.pieces.swap(pieces);
}

void ByteLevelDecoder::decodeChain(std::vector<std::string>& tokens) const {
    std::string bytes;
    for (const std::string& token : tokens) {
        const size_t mark = bytes.size();
        size_t pos = 0;
        bool inAlphabet = true;
        while (pos < token.size()) {
            const int b = byteLevelByte(unicode::decodeAt(token, pos));
            if (b < 0) {
                inAlphabet = false;
                break;
            }
            bytes.push_back(static_cast<char>(b));
        }
        if (!inAlphabet) {
            bytes.resize(mark);
            bytes.append(token);
        }
    }
    tokens.assign(1, unicode::fromUtf8Lossy(bytes));
}

}  // namespace fts::tok
