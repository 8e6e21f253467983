// Character-class pre-tokenizers. Each matching code point is one delimiter match fed to
// splitByMatches, so Contiguous/Isolated/Removed behave exactly as HF's NormalizedString::split with
// a char predicate. Whitespace follows the regex crate's \\w and \\s (HF runs it with that crate, not
// Oniguruma: Join_Control is a word character there).
#include "core/data/char_pre_tokenizers.h"

#include "core/data/unicode_text.h"

#include <unicode/uchar.h>

namespace fts::tok {
namespace {

#include "core/data/unicode_additions.inc"

// First letter of the general category of a code point ICU 72 (Unicode 15) leaves unassigned but
// Unicode 16 (Rust's char methods, HF's Oniguruma) assigns; 0 when none.
char additionCategory(char32_t c) {
    if (u_charType(static_cast<UChar32>(c)) != U_UNASSIGNED) return 0;
    for (const UnicodeAddition& a : kUnicodeAdditions)
        if (c >= a.first && c <= a.last) return a.category[0];
    return 0;
}

bool isWhitespaceChar(char32_t c) { return unicode::isWhitespace(c); }

bool isPunctuationChar(char32_t c) { return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_P_MASK) != 0; }

SplitBehavior behaviorFromJson(const nlohmann::json& spec, const JsonContext& ctx, SplitBehavior fallback) {
    const std::string b = ctx.getString(spec, "behavior", "");
    if (b.empty()) return fallback;
    if (b == "Removed") return SplitBehavior::Removed;
    if (b == "Isolated") return SplitBehavior::Isolated;
    if (b == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
    if (b == "MergedWithNext") return SplitBehavior::MergedWithNext;
    if (b == "Contiguous") return SplitBehavior::Contiguous;
    ctx.child("behavior").fail("unknown split behavior '" + b + "'");
}

// Matches of one code point each where pred holds.
void charMatches(std::string_view sv, CharClassPreTokenizer::Predicate pred, std::vector<RegexMatch>& out) {
    size_t pos = 0;
    while (pos < sv.size()) {
        const size_t start = pos;
        if (pred(unicode::decodeAt(sv, pos))) out.push_back({static_cast<uint32_t>(start), static_cast<uint32_t>(pos)});
    }
}

}  // namespace

bool isBertPunctuation(char32_t c) {
    if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
    return isPunctuationChar(c) && unicode::assignedBy(c, 8);  // unicode_categories: Unicode 8.0
}

bool isNumericChar(char32_t c) {
    if (c < 0x80) return c >= '0' && c <= '9';
    return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_N_MASK) != 0 || additionCategory(c) == 'N';
}

void MetaspacePreTokenizer::preTokenize(PreTokenized& pt) const {
    std::string out;
    out.reserve(pt.text.size() + pt.text.size() / 2 + 8);
    std::vector<Piece> pieces;
    thread_local std::vector<RegexMatch> matches;
    for (const Piece& piece : pt.pieces) {
        const std::string_view sv = pt.view(piece);
        const auto begin = static_cast<uint32_t>(out.size());
        // Replace ' ' by the replacement, then prepend one if the scheme asks and it is not there yet.
        std::string rewritten;
        rewritten.reserve(sv.size() + 8);
        for (char c : sv) {
            if (c == ' ')
                rewritten += m_replacement;
            else
                rewritten.push_back(c);
        }
        const bool startsWithRep = rewritten.compare(0, m_replacement.size(), m_replacement) == 0;
        const bool prepend =
            !startsWithRep && (m_scheme == PrependScheme::Always ||
                               (m_scheme == PrependScheme::First && pt.atInputStart && piece.begin == 0));
        if (prepend) out += m_replacement;
        out += rewritten;
        const auto end = static_cast<uint32_t>(out.size());
        if (!m_split) {
            if (end > begin) pieces.push_back({begin, end});
            continue;
        }
        const std::string_view all = std::string_view(out).substr(begin, end - begin);
        matches.clear();
        for (size_t pos = all.find(m_replacement); pos != std::string_view::npos;
             pos = all.find(m_replacement, pos + m_replacement.size()))
            matches.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + m_replacement.size())});
        splitByMatches(all, matches, SplitBehavior::MergedWithNext, false, begin, pieces);
    }
    pt.text.swap(out);
    pt.pieces.swap(pieces);
}

void WhitespacePreTokenizer::preTokenize(PreTokenized& pt) const {
    // The regex crate's \w+|[^\w\s]+: runs of word characters, runs of other non-space characters.
    std::vector<Piece> out;
    out.reserve(pt.pieces.size() * 2);
    for (const Piece& piece : pt.pieces) {
        const std::string_view sv = pt.view(piece);
        size_t pos = 0;
        int runKind = 0;  // 0 none, 1 word, 2 other
        size_t runStart = 0;
        while (pos < sv.size()) {
            const size_t start = pos;
            const char32_t c = unicode::decodeAt(sv, pos);
            const int kind = unicode::isWordCharacter(c) ? 1 : unicode::isWhitespace(c) ? 0 : 2;
            if (kind != runKind) {
                if (runKind != 0)
                    out.push_back(
                        {piece.begin + static_cast<uint32_t>(runStart), piece.begin + static_cast<uint32_t>(start)});
                runKind = kind;
                runStart = start;
            }
        }
        if (runKind != 0)
            out.push_back(
                {piece.begin + static_cast<uint32_t>(runStart), piece.begin + static_cast<uint32_t>(sv.size())});
    }
    pt.pieces.swap(out);
}

void CharClassPreTokenizer::preTokenize(PreTokenized& pt) const {
    thread_local std::vector<RegexMatch> matches;
    for (const auto& [pred, behavior] : m_steps) {
        std::vector<Piece> out;
        out.reserve(pt.pieces.size() * 2);
        for (const Piece& piece : pt.pieces) {
            const std::string_view sv = pt.view(piece);
            matches.clear();
            charMatches(sv, pred, matches);
            splitByMatches(sv, matches, behavior, false, piece.begin, out);
        }
        pt.pieces.swap(out);
    }
}

PrependScheme parsePrependScheme(const nlohmann::json& spec, const JsonContext& ctx) {
    const std::string scheme = ctx.getString(spec, "prepend_scheme", "");
    if (scheme.empty())
        return ctx.getBool(spec, "add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
    if (scheme == "always") return PrependScheme::Always;
    if (scheme == "never") return PrependScheme::Never;
    if (scheme == "first") return PrependScheme::First;
    ctx.child("prepend_scheme").fail("unknown prepend_scheme '" + scheme + "' (expected always, never or first)");
}

std::string parseReplacement(const nlohmann::json& spec, const JsonContext& ctx) {
    const std::string rep = ctx.getString(spec, "replacement", "\xE2\x96\x81");
    size_t pos = 0;
    if (rep.empty() || unicode::findInvalidUtf8(rep) != unicode::kValid ||
        (unicode::decodeAt(rep, pos), pos) != rep.size())
        ctx.child("replacement").fail("expected exactly one character, found '" + rep + "'");
    return rep;
}

std::unique_ptr<PreTokenizer> makeCharPreTokenizer(const std::string& type, const nlohmann::json& spec,
                                                   const JsonContext& ctx) {
    using Steps = std::vector<std::pair<CharClassPreTokenizer::Predicate, SplitBehavior>>;
    if (type == "Metaspace")
        return std::make_unique<MetaspacePreTokenizer>(parseReplacement(spec, ctx), parsePrependScheme(spec, ctx),
                                                       ctx.getBool(spec, "split", true));
    if (type == "BertPreTokenizer")
        return std::make_unique<CharClassPreTokenizer>(
            Steps{{&isWhitespaceChar, SplitBehavior::Removed}, {&isBertPunctuation, SplitBehavior::Isolated}});
    if (type == "WhitespaceSplit")
        return std::make_unique<CharClassPreTokenizer>(Steps{{&isWhitespaceChar, SplitBehavior::Removed}});
    if (type == "Punctuation")
        return std::make_unique<CharClassPreTokenizer>(
            Steps{{&isBertPunctuation, behaviorFromJson(spec, ctx, SplitBehavior::Isolated)}});
    if (type == "Digits")
        return std::make_unique<CharClassPreTokenizer>(
            Steps{{&isNumericChar, ctx.getBool(spec, "individual_digits", false) ? SplitBehavior::Isolated
                                                                                 : SplitBehavior::Contiguous}});
    if (type == "Whitespace") return std::make_unique<WhitespacePreTokenizer>();
    return nullptr;
}

}  // namespace fts::tok
