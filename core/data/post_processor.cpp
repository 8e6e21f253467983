// TemplateProcessing reads the "single" and "pair" templates in either serialized form (a list of
// {"SpecialToken"|"Sequence": {...}} pieces or a "[CLS] $A [SEP]" string) and resolves every special
// token through the "special_tokens" map at load time, so process() only copies ids.
#include "core/data/post_processor.h"

#include "core/data/byte_level.h"
#include "core/util/error.h"

#include <cctype>
#include <map>
#include <sstream>

namespace fts::tok {

void PostProcessor::processPair(const std::vector<int32_t>& a, const std::vector<int32_t>& b, std::vector<int32_t>& ids,
                                std::vector<int8_t>& typeIds) const {
    ids = a;
    ids.insert(ids.end(), b.begin(), b.end());
    typeIds.assign(a.size(), 0);
    typeIds.insert(typeIds.end(), b.size(), 1);
}

void TemplatePostProcessor::process(std::vector<int32_t>& ids, bool addSpecialTokens) const {
    if (!addSpecialTokens) return;
    std::vector<int32_t> out;
    out.reserve(ids.size() + 4);
    for (const Item& item : m_single) {
        if (item.sequence != 0)
            out.insert(out.end(), ids.begin(), ids.end());
        else
            out.insert(out.end(), item.ids.begin(), item.ids.end());
    }
    ids.swap(out);
}

void TemplatePostProcessor::processPair(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                                        std::vector<int32_t>& ids, std::vector<int8_t>& typeIds) const {
    if (m_pair.empty())
        throw FormatError(
            "the tokenizer's TemplateProcessing post-processor has no \"pair\" template, so it cannot encode "
            "a sentence pair");
    ids.clear();
    typeIds.clear();
    for (const Item& item : m_pair) {
        const std::vector<int32_t>& piece = item.sequence == 1 ? a : item.sequence == 2 ? b : item.ids;
        ids.insert(ids.end(), piece.begin(), piece.end());
        typeIds.insert(typeIds.end(), piece.size(), item.typeId);
    }
}

size_t TemplatePostProcessor::addedTokens(bool pair) const {
    size_t n = 0;
    for (const Item& item : pair ? m_pair : m_single)
        if (item.sequence == 0) n += item.ids.size();
    return n;
}

void SequencePostProcessor::process(std::vector<int32_t>& ids, bool addSpecialTokens) const {
    for (const auto& step : m_steps) step->process(ids, addSpecialTokens);
}

const PostProcessor* SequencePostProcessor::pairStep() const {
    const PostProcessor* found = nullptr;
    for (const auto& step : m_steps) {
        if (!step->addsTokens()) continue;
        if (found)
            throw FormatError(
                "the tokenizer's Sequence post-processor has several steps that add special tokens; "
                "sentence pairs are not supported with it");
        found = step.get();
    }
    return found;
}

void SequencePostProcessor::processPair(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                                        std::vector<int32_t>& ids, std::vector<int8_t>& typeIds) const {
    if (const PostProcessor* step = pairStep())
        step->processPair(a, b, ids, typeIds);
    else
        PostProcessor::processPair(a, b, ids, typeIds);
}

size_t SequencePostProcessor::addedTokens(bool pair) const {
    size_t n = 0;
    for (const auto& step : m_steps) n += step->addedTokens(pair);
    return n;
}

bool SequencePostProcessor::addsTokens() const {
    for (const auto& step : m_steps)
        if (step->addsTokens()) return true;
    return false;
}

namespace {

using SpecialMap = std::map<std::string, std::vector<int32_t>>;

SpecialMap parseSpecialTokens(const nlohmann::json& spec, const JsonContext& ctx) {
    SpecialMap map;
    auto it = spec.find("special_tokens");
    if (it == spec.end() || it->is_null()) return map;
    const JsonContext sctx = ctx.child("special_tokens");
    if (!it->is_object()) sctx.fail("expected an object");
    for (const auto& [key, value] : it->items()) {
        const JsonContext ectx = sctx.child(key);
        const auto& ids = ectx.require(value, "ids");
        if (!ids.is_array()) ectx.child("ids").fail("expected an array of token ids");
        std::vector<int32_t> list;
        for (const auto& id : ids) {
            if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX)
                ectx.child("ids").fail("expected non-negative token ids, found " + id.dump());
            list.push_back(static_cast<int32_t>(id.get<int64_t>()));
        }
        // The map is keyed by the piece id ("id" field; equal to the key in HF's files).
        map[ectx.getString(value, "id", key)] = std::move(list);
    }
    return map;
}

// One piece of the string form: "$A", "$B", "$", "$0", "[CLS]", each optionally ":<type id>".
TemplatePostProcessor::Item parseStringPiece(std::string piece, const SpecialMap& specials, const JsonContext& ctx) {
    TemplatePostProcessor::Item item;
    const size_t colon = piece.rfind(':');
    if (colon != std::string::npos && colon + 1 < piece.size()) {
        bool digits = colon + 1 < piece.size() && piece.size() - colon <= 3;
        for (size_t i = colon + 1; i < piece.size(); ++i)
            digits = digits && std::isdigit(static_cast<unsigned char>(piece[i]));
        if (digits) {
            item.typeId = static_cast<int8_t>(std::stoi(piece.substr(colon + 1)));
            piece.resize(colon);
        }
    }
    if (!piece.empty() && piece[0] == '$') {
        const std::string rest = piece.substr(1);
        bool numeric = !rest.empty() && rest.size() <= 3;  // "$1": $A with type id 1 (small ids only)
        for (char c : rest) numeric = numeric && std::isdigit(static_cast<unsigned char>(c));
        if (numeric && std::stoi(rest) > 127) numeric = false;
        if (rest.empty() || rest == "A" || rest == "a" || numeric) {
            item.sequence = 1;
            if (numeric) item.typeId = static_cast<int8_t>(std::stoi(rest));  // "$1" is $A with type id 1
        } else if (rest == "B" || rest == "b") {
            item.sequence = 2;
        } else {
            ctx.fail("unknown template piece '" + piece + "'");
        }
        return item;
    }
    auto it = specials.find(piece);
    if (it == specials.end()) ctx.fail("template uses special token '" + piece + "' missing from special_tokens");
    item.ids = it->second;
    return item;
}

int8_t readTypeId(const nlohmann::json& piece, const JsonContext& ctx) {
    auto it = piece.find("type_id");
    if (it == piece.end()) return 0;
    if (!it->is_number_unsigned() || it->get<uint64_t>() > 127)
        ctx.child("type_id").fail("expected a small non-negative integer");
    return static_cast<int8_t>(it->get<uint64_t>());
}

// A template ("single" or "pair") in either serialized form.
std::vector<TemplatePostProcessor::Item> parseTemplate(const nlohmann::json& tpl, const SpecialMap& specials,
                                                       const JsonContext& tctx) {
    std::vector<TemplatePostProcessor::Item> items;
    if (tpl.is_string()) {
        std::istringstream words(tpl.get<std::string>());
        std::string w;
        while (words >> w) items.push_back(parseStringPiece(w, specials, tctx));
    } else if (tpl.is_array()) {
        for (size_t i = 0; i < tpl.size(); ++i) {
            const auto& p = tpl[i];
            const JsonContext pctx = tctx.index(i);
            if (p.is_string()) {
                items.push_back(parseStringPiece(p.get<std::string>(), specials, pctx));
            } else if (p.is_object() && p.contains("Sequence")) {
                const JsonContext sctx = pctx.child("Sequence");
                const std::string id = sctx.getString(p["Sequence"], "id", "A");
                if (id != "A" && id != "B") pctx.fail("unknown sequence id '" + id + "' (expected A or B)");
                TemplatePostProcessor::Item item;
                item.sequence = id == "A" ? 1 : 2;
                item.typeId = readTypeId(p["Sequence"], sctx);
                items.push_back(item);
            } else if (p.is_object() && p.contains("SpecialToken")) {
                const JsonContext sctx = pctx.child("SpecialToken");
                const std::string id = sctx.requireString(p["SpecialToken"], "id");
                auto it = specials.find(id);
                if (it == specials.end())
                    pctx.fail("template uses special token '" + id + "' missing from special_tokens");
                TemplatePostProcessor::Item item;
                item.ids = it->second;
                item.typeId = readTypeId(p["SpecialToken"], sctx);
                items.push_back(std::move(item));
            } else {
                pctx.fail("expected a {\"SpecialToken\": ...} or {\"Sequence\": ...} piece, found " + p.dump());
            }
        }
    } else {
        tctx.fail("expected a template (array of pieces or string)");
    }
    return items;
}

std::unique_ptr<PostProcessor> makeTemplate(const nlohmann::json& spec, const JsonContext& ctx) {
    const SpecialMap specials = parseSpecialTokens(spec, ctx);
    std::vector<TemplatePostProcessor::Item> single =
        parseTemplate(ctx.require(spec, "single"), specials, ctx.child("single"));
    for (const auto& item : single)
        if (item.sequence == 2) ctx.child("single").fail("the single-sequence template refers to sequence B");
    std::vector<TemplatePostProcessor::Item> pair;
    if (auto it = spec.find("pair"); it != spec.end() && !it->is_null()) {
        pair = parseTemplate(*it, specials, ctx.child("pair"));
        bool hasA = false, hasB = false;
        for (const auto& item : pair) {
            hasA = hasA || item.sequence == 1;
            hasB = hasB || item.sequence == 2;
        }
        if (!pair.empty() && (!hasA || !hasB)) ctx.child("pair").fail("the pair template must contain both $A and $B");
    }
    return std::make_unique<TemplatePostProcessor>(std::move(single), std::move(pair));
}

}  // namespace

std::unique_ptr<PostProcessor> makePostProcessor(const nlohmann::json& spec, const JsonContext& ctx) {
    if (spec.is_null()) return nullptr;
    const std::string type = ctx.type(spec);
    if (type == "ByteLevel") {
        ByteLevelOptions::fromJson(spec, ctx);
        return std::make_unique<ByteLevelPostProcessor>();
    }
    if (type == "TemplateProcessing") return makeTemplate(spec, ctx);
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        // single: cls $A sep (the [token, id] pairs); Roberta's trim_offsets/add_prefix_space only move offsets.
        auto pair = [&](const char* key) {
            const JsonContext kctx = ctx.child(key);
            const auto& v = ctx.require(spec, key);
            if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_number_integer() ||
                v[1].get<int64_t>() < 0 || v[1].get<int64_t>() >= INT32_MAX)
                kctx.fail("expected [\"<token>\", <id>], found " + v.dump());
            TemplatePostProcessor::Item item;
            item.ids.push_back(static_cast<int32_t>(v[1].get<int64_t>()));
            return item;
        };
        using Item = TemplatePostProcessor::Item;
        const Item cls = pair("cls"), sep = pair("sep");
        Item a, b;
        a.sequence = 1;
        b.sequence = 2;
        std::vector<Item> single{cls, a, sep}, pairItems;
        if (type == "RobertaProcessing") {  // <s> A </s></s> B </s>, every type id 0
            ctx.getBool(spec, "trim_offsets", true);
            ctx.getBool(spec, "add_prefix_space", true);
            pairItems = {cls, a, sep, sep, b, sep};
        } else {  // [CLS] A [SEP] B [SEP], B and its [SEP] of type 1
            Item sep1 = sep;
            sep1.typeId = b.typeId = 1;
            pairItems = {cls, a, sep, b, sep1};
        }
        return std::make_unique<TemplatePostProcessor>(std::move(single), std::move(pairItems));
    }
    if (type == "Sequence") {
        const auto& list = ctx.require(spec, "processors");
        if (!list.is_array()) ctx.child("processors").fail("expected an array of post-processors");
        std::vector<std::unique_ptr<PostProcessor>> steps;
        for (size_t i = 0; i < list.size(); ++i) {
            auto step = makePostProcessor(list[i], ctx.child("processors").index(i));
            if (step) steps.push_back(std::move(step));
        }
        return std::make_unique<SequencePostProcessor>(std::move(steps));
    }
    ctx.unsupported("post-processor", type,
                    "ByteLevel, TemplateProcessing, BertProcessing, RobertaProcessing, Sequence");
}

}  // namespace fts::tok
