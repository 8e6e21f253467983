// Loads the pipeline from tokenizer.json and runs it. encode(): split out raw-text added tokens,
// normalize each remaining segment, split out normalized added tokens, pre-tokenize, run the model
// on each piece, post-process. "truncation" and "padding" are ignored, as transformers' fast
// tokenizers override them per call; the caller owns sequence lengths.
#include "core/data/tokenizer.h"

#include "core/data/added_tokens.h"
#include "core/data/decoder.h"
#include "core/data/normalizer.h"
#include "core/data/post_processor.h"
#include "core/data/pre_tokenizer.h"
#include "core/data/tokenizer_model.h"
#include "core/data/unicode_text.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

namespace fts {

using nlohmann::json;
using tok::JsonContext;

namespace {

const json& member(const json& doc, const char* key) {
    static const json null;
    auto it = doc.find(key);
    return it == doc.end() ? null : *it;
}

std::vector<tok::AddedToken> parseAddedTokens(const json& doc, const JsonContext& root) {
    std::vector<tok::AddedToken> tokens;
    const json& list = member(doc, "added_tokens");
    if (list.is_null()) return tokens;
    const JsonContext ctx = root.child("added_tokens");
    if (!list.is_array()) ctx.fail("expected an array of added tokens");
    for (size_t i = 0; i < list.size(); ++i) {
        const JsonContext ectx = ctx.index(i);
        const json& e = list[i];
        tok::AddedToken t;
        t.content = ectx.requireString(e, "content");
        const json& id = ectx.require(e, "id");
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= INT32_MAX)
            ectx.child("id").fail("expected a non-negative integer token id, found " + id.dump());
        t.id = static_cast<int32_t>(id.get<int64_t>());  // validated; AddedVocabulary assigns like HF
        t.singleWord = ectx.getBool(e, "single_word", false);
        t.lstrip = ectx.getBool(e, "lstrip", false);
        t.rstrip = ectx.getBool(e, "rstrip", false);
        t.normalized = ectx.getBool(e, "normalized", true);
        t.special = ectx.getBool(e, "special", false);
        if (unicode::findInvalidUtf8(t.content) != unicode::kValid) ectx.child("content").fail("not valid UTF-8");
        tokens.push_back(std::move(t));
    }
    return tokens;
}

}  // namespace

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

std::unique_ptr<Tokenizer> Tokenizer::fromFile(const std::filesystem::path& tokenizerJson) {
    const std::string file = tokenizerJson.string();
    std::error_code ec;
    if (std::filesystem::is_directory(tokenizerJson, ec))
        throw IoError(file + ": is a directory; expected a tokenizer.json file (" +
                      (tokenizerJson / "tokenizer.json").string() + "?)");
    const std::string text = readFile(tokenizerJson);
    json doc;
    try {
        doc = parseJson(text);
    } catch (const json::exception& e) {
        throw FormatError(file + ": not valid JSON: " + e.what());
    }
    if (!doc.is_object()) throw FormatError(file + ": expected a JSON object at the top level (a tokenizer.json)");
    const JsonContext root(file, "tokenizer");
    if (!doc.contains("model")) throw FormatError(file + ": missing key 'model' (not a tokenizer.json?)");
    if (const json& v = member(doc, "version"); !v.is_null() && v != "1.0")
        throw FormatError(file + ": version: unknown tokenizer.json version " + v.dump() + " (expected \"1.0\")");

    std::unique_ptr<Tokenizer> t(new Tokenizer());
    t->m_path = tokenizerJson;
    t->m_model = tok::makeModel(doc["model"], root.child("model"));
    t->m_normalizer = tok::makeNormalizer(member(doc, "normalizer"), root.child("normalizer"));
    t->m_preTokenizer = tok::makePreTokenizer(member(doc, "pre_tokenizer"), root.child("pre_tokenizer"));
    t->m_postProcessor = tok::makePostProcessor(member(doc, "post_processor"), root.child("post_processor"));
    t->m_decoder = tok::makeDecoder(member(doc, "decoder"), root.child("decoder"));
    t->m_added =
        std::make_unique<tok::AddedVocabulary>(parseAddedTokens(doc, root), *t->m_model, t->m_normalizer.get());

    t->m_vocabSize = t->m_model->idLimit();
    for (const tok::AddedToken& a : t->m_added->tokens()) {
        t->m_vocabSize = std::max(t->m_vocabSize, a.id + 1);
        if (a.special) t->m_specialContents.insert(a.content);
    }

    // End-of-sequence token: tokenizer_config.json's eos_token, else a conventional special token.
    const std::filesystem::path configPath = tokenizerJson.parent_path() / "tokenizer_config.json";
    bool configNamesEos = false;
    if (std::filesystem::is_regular_file(configPath, ec)) {
        const std::string cfile = configPath.string();
        json config;
        try {
            config = parseJson(readFile(configPath));
        } catch (const json::exception& e) {
            throw FormatError(cfile + ": not valid JSON: " + e.what());
        }
        // eos_token / bos_token: a string or a serialized AddedToken {"content": ...}; "" or null: none
        auto special = [&](const char* key) -> std::optional<int32_t> {
            static const json kNull;
            const json& v = config.is_object() ? member(config, key) : kNull;
            std::string content;
            if (v.is_string()) {
                content = v.get<std::string>();
            } else if (v.is_object() && v.contains("content") && v["content"].is_string()) {
                content = v["content"].get<std::string>();
            } else if (!v.is_null()) {
                throw FormatError(cfile + ": " + key + ": expected a string or {\"content\": ...}, found " + v.dump());
            }
            if (content.empty()) return std::nullopt;
            const std::optional<int32_t> id = t->tokenToId(content);
            if (!id) throw FormatError(cfile + ": " + key + ": '" + content + "' is not a token of " + file);
            return id;
        };
        if (const std::optional<int32_t> eos = special("eos_token")) {
            configNamesEos = true;
            t->m_eosId = eos;
        }
        t->m_bosId = special("bos_token");
    }
    if (!configNamesEos) {
        for (const char* candidate :
             {"<|endoftext|>", "</s>", "<|im_end|>", "<|end_of_text|>", "<|eot_id|>", "<eos>"}) {
            auto id = t->m_added->tokenToId(candidate);
            if (id && t->m_specialContents.count(candidate)) {
                t->m_eosId = id;
                break;
            }
        }
    }
    return t;
}

void Tokenizer::encodeRaw(std::string_view text, std::vector<int32_t>& out) const {
    thread_local std::vector<tok::TextSegment> rawSegments, normSegments;
    thread_local tok::PreTokenized pt;
    thread_local std::string segment;
    rawSegments.clear();
    m_added->split(text, false, rawSegments);
    size_t segmentIndex = 0;
    for (const tok::TextSegment& raw : rawSegments) {
        if (raw.id >= 0) {
            out.push_back(raw.id);
            continue;
        }
        segment.assign(text.substr(raw.begin, raw.end - raw.begin));
        if (m_normalizer) m_normalizer->normalize(segment);
        normSegments.clear();
        m_added->split(segment, true, normSegments);
        for (const tok::TextSegment& seg : normSegments) {
            if (seg.id >= 0) {
                out.push_back(seg.id);
                continue;
            }
            pt.reset(segment.substr(seg.begin, seg.end - seg.begin), segmentIndex++, raw.begin == 0 && seg.begin == 0);
            if (m_preTokenizer) m_preTokenizer->preTokenize(pt);
            for (const tok::Piece& piece : pt.pieces) m_model->tokenize(pt.view(piece), out);
        }
    }
    // The per-thread buffers keep their capacity between calls; do not hold on to a huge text's.
    constexpr size_t kKeep = size_t(1) << 20;
    if (segment.capacity() > kKeep) std::string().swap(segment);
    if (pt.text.capacity() > kKeep) std::string().swap(pt.text);
    if (pt.pieces.capacity() > kKeep / 8) std::vector<tok::Piece>().swap(pt.pieces);
}

void Tokenizer::encodeAppend(std::string_view text, std::vector<int32_t>& out, bool addSpecialTokens) const {
    const size_t bad = unicode::findInvalidUtf8(text);
    if (bad != unicode::kValid) throw FormatError("text is not valid UTF-8 (byte " + std::to_string(bad) + ")");
    if (!m_postProcessor) {
        encodeRaw(text, out);
        return;
    }
    std::vector<int32_t> ids;
    encodeRaw(text, ids);
    m_postProcessor->process(ids, addSpecialTokens);
    out.insert(out.end(), ids.begin(), ids.end());
}

namespace {

// How many tokens of A and of B longest_first truncation keeps (a, b: their lengths; budget: max_length minus the
// pair's special tokens; maxLength: max_length). Measured against tokenizers 0.23.2 on 56,277 cases (tests/data/
// classification/NOTES.md): the shorter side keeps everything when it fits in half the budget, otherwise the
// budget splits floor/ceil with the odd token going to the longer side (to B when both are as long).
std::pair<size_t, size_t> longestFirstKeep(size_t a, size_t b, size_t budget, size_t maxLength) {
    if (a + b <= budget) return {a, b};
    const size_t ca = std::min(a, maxLength), cb = std::min(b, maxLength);
    size_t n1 = std::min(ca, cb);
    const bool swap = ca > cb;
    size_t n2 = n1 > budget ? n1 : std::max(n1, budget - n1);
    if (n1 + n2 > budget) {
        n1 = budget / 2;
        n2 = n1 + budget % 2;
    }
    if (swap) std::swap(n1, n2);
    return {std::min(a, n1), std::min(b, n2)};
}

}  // namespace

Tokenizer::Encoded Tokenizer::encodeTruncated(std::string_view text, const std::optional<std::string_view>& textPair,
                                              int64_t maxLength) const {
    Encoded out;
    std::vector<int32_t> a, b;
    encodeAppend(text, a, false);
    if (textPair) encodeAppend(*textPair, b, false);
    const size_t added = m_postProcessor ? m_postProcessor->addedTokens(bool(textPair)) : 0;
    if (maxLength <= int64_t(added))
        throw FormatError("max_length " + std::to_string(maxLength) + " leaves no room for text after the " +
                          std::to_string(added) + " special tokens of a " + (textPair ? "pair" : "single sequence"));
    const size_t budget = size_t(maxLength) - added;
    if (!textPair) {
        if (a.size() > budget) {
            a.resize(budget);
            out.truncated = true;
        }
        out.ids = std::move(a);
        if (m_postProcessor) m_postProcessor->process(out.ids, true);
        out.typeIds.assign(out.ids.size(), 0);
        return out;
    }
    const auto [keepA, keepB] = longestFirstKeep(a.size(), b.size(), budget, size_t(maxLength));
    out.truncated = keepA < a.size() || keepB < b.size();
    a.resize(keepA);
    b.resize(keepB);
    if (m_postProcessor)
        m_postProcessor->processPair(a, b, out.ids, out.typeIds);
    else
        tok::ByteLevelPostProcessor().processPair(a, b, out.ids, out.typeIds);
    return out;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool addSpecialTokens) const {
    std::vector<int32_t> ids;
    encodeAppend(text, ids, addSpecialTokens);
    return ids;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skipSpecialTokens) const {
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (int32_t id : ids) {
        const std::string* token = nullptr;
        const tok::AddedToken* a = m_added->byId(id);
        if (a)
            token = &a->decodeForm;
        else
            token = m_model->idToToken(id);
        if (!token) continue;  // like HF: ids without a token are dropped
        if (skipSpecialTokens && ((a && a->special) || m_specialContents.count(*token))) continue;
        tokens.push_back(*token);
    }
    if (!m_decoder) {
        std::string joined;
        for (size_t i = 0; i < tokens.size(); ++i) {
            if (i) joined += ' ';
            joined += tokens[i];
        }
        return joined;
    }
    m_decoder->decodeChain(tokens);
    std::string out;
    for (const std::string& s : tokens) out += s;
    return out;
}

int32_t Tokenizer::vocabSize() const { return m_vocabSize; }

std::optional<int32_t> Tokenizer::tokenToId(std::string_view token) const {
    if (auto id = m_added->tokenToId(token)) return id;
    return m_model->tokenToId(token);
}

std::string Tokenizer::idToToken(int32_t id) const {
    if (const tok::AddedToken* a = m_added->byId(id)) return a->decodeForm;
    if (const std::string* t = m_model->idToToken(id)) return *t;
    throw Error("token id " + std::to_string(id) + " has no token in " + m_path.string() + " (vocabulary size " +
                std::to_string(m_vocabSize) + ")");
}

bool Tokenizer::isSpecialToken(int32_t id) const {
    const tok::AddedToken* a = m_added->byId(id);
    return a && a->special;
}

}  // namespace fts
