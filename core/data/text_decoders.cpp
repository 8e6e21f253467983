// String-level decoders (see text_decoders.h); semantics follow HF tokenizers' decode_chain.
#include "core/data/text_decoders.h"

#include "core/data/normalizer.h"
#include "core/data/unicode_text.h"

namespace fts::tok {
namespace {

void replaceAll(std::string& s, std::string_view from, std::string_view to) {
    size_t pos = 0;
    while ((pos = s.find(from, pos)) != std::string::npos) {
        s.replace(pos, from.size(), to);
        pos += to.size();
    }
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// "<0xXX>" -> the byte, else -1 (Rust's u8::from_str_radix accepts either hex case).
int byteToken(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
    const int hi = hexValue(t[3]), lo = hexValue(t[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

}  // namespace

void ReplaceDecoder::decodeChain(std::vector<std::string>& tokens) const {
    thread_local std::vector<RegexMatch> matches;
    for (std::string& t : tokens) {
        matches.clear();
        m_pattern->findAll(t, matches);
        if (matches.empty()) continue;
        std::string out;
        size_t prev = 0;
        for (const RegexMatch& m : matches) {
            out.append(t, prev, m.begin - prev);
            out += m_content;
            prev = m.end;
        }
        out.append(t, prev, std::string::npos);
        t.swap(out);
    }
}

void ByteFallbackDecoder::decodeChain(std::vector<std::string>& tokens) const {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    std::string bytes;
    auto flush = [&]() {
        if (bytes.empty()) return;
        if (unicode::findInvalidUtf8(bytes) == unicode::kValid) {
            out.push_back(bytes);
        } else {
            for (size_t i = 0; i < bytes.size(); ++i) out.emplace_back("\xEF\xBF\xBD");
        }
        bytes.clear();
    };
    for (std::string& t : tokens) {
        const int b = byteToken(t);
        if (b >= 0) {
            bytes.push_back(static_cast<char>(b));
            continue;
        }
        flush();
        out.push_back(std::move(t));
    }
    flush();
    tokens.swap(out);
}

void FuseDecoder::decodeChain(std::vector<std::string>& tokens) const {
    std::string joined;
    for (const std::string& t : tokens) joined += t;
    tokens.assign(1, std::move(joined));
}

void StripDecoder::decodeChain(std::vector<std::string>& tokens) const {
    std::vector<size_t> bounds;
    for (std::string& t : tokens) {
        bounds.clear();
        std::vector<char32_t> chars;
        size_t pos = 0;
        bounds.push_back(0);
        while (pos < t.size()) {
            chars.push_back(unicode::decodeAt(t, pos));
            bounds.push_back(pos);
        }
        size_t startCut = 0;
        for (size_t i = 0; i < m_start && i < chars.size(); ++i) {
            if (chars[i] != m_content) break;
            startCut = i + 1;
        }
        size_t stopCut = chars.size();
        for (size_t i = 0; i < m_stop && i < chars.size(); ++i) {
            const size_t index = chars.size() - i - 1;
            if (chars[index] != m_content) break;
            stopCut = index;
        }
        if (stopCut < startCut) stopCut = startCut;
        t = t.substr(bounds[startCut], bounds[stopCut] - bounds[startCut]);
    }
}

void WordPieceDecoder::decodeChain(std::vector<std::string>& tokens) const {
    for (size_t i = 0; i < tokens.size(); ++i) {
        std::string& t = tokens[i];
        if (i != 0) {
            if (t.compare(0, m_prefix.size(), m_prefix) == 0)
                t.erase(0, m_prefix.size());  // an empty prefix always matches and removes nothing
            else
                t.insert(0, 1, ' ');
        }
        if (m_cleanup) {
            replaceAll(t, " .", ".");
            replaceAll(t, " ?", "?");
            replaceAll(t, " !", "!");
            replaceAll(t, " ,", ",");
            replaceAll(t, " ' ", "'");
            replaceAll(t, " n't", "n't");
            replaceAll(t, " 'm", "'m");
            replaceAll(t, " do not", " don't");
            replaceAll(t, " 's", "'s");
            replaceAll(t, " 've", "'ve");
            replaceAll(t, " 're", "'re");
        }
    }
}

void MetaspaceDecoder::decodeChain(std::vector<std::string>& tokens) const {
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string with = (i == 0 && m_scheme != PrependScheme::Never) ? std::string() : std::string(" ");
        replaceAll(tokens[i], m_replacement, with);
    }
}

std::unique_ptr<Decoder> makeTextDecoder(const std::string& type, const nlohmann::json& spec, const JsonContext& ctx) {
    if (type == "Replace")
        return std::make_unique<ReplaceDecoder>(parsePattern(ctx.require(spec, "pattern"), ctx.child("pattern")),
                                                ctx.requireString(spec, "content"));
    if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
    if (type == "Fuse") return std::make_unique<FuseDecoder>();
    if (type == "Strip") {
        const std::string content = ctx.requireString(spec, "content");
        size_t pos = 0;
        if (content.empty() || unicode::findInvalidUtf8(content) != unicode::kValid)
            ctx.child("content").fail("expected one character");
        const char32_t c = unicode::decodeAt(content, pos);
        if (pos != content.size()) ctx.child("content").fail("expected one character, found '" + content + "'");
        auto count = [&](const char* key) -> size_t {
            auto it = spec.find(key);
            if (it == spec.end() || it->is_null()) return 0;
            if (!it->is_number_unsigned()) ctx.child(key).fail("expected a non-negative integer, found " + it->dump());
            return it->get<size_t>();
        };
        return std::make_unique<StripDecoder>(c, count("start"), count("stop"));
    }
    if (type == "WordPiece")
        return std::make_unique<WordPieceDecoder>(ctx.getString(spec, "prefix", "##"),
                                                  ctx.getBool(spec, "cleanup", true));
    if (type == "Metaspace")
        return std::make_unique<MetaspaceDecoder>(parseReplacement(spec, ctx), parsePrependScheme(spec, ctx));
    return nullptr;
}

}  // namespace fts::tok
