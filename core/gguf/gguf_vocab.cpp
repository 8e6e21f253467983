// Tokenizer metadata for GGUF (see gguf_vocab.h). Token types (llama.h): 1 normal, 2 unknown, 3 control,
// 4 user-defined, 5 unused, 6 byte. Special ids follow llama.cpp's converter: tokenizer_config.json's
// {bos,eos,unk,sep,pad}_token by text, then config.json's *_token_id; add_bos/add_eos from the post-processor.
// The "llama" form's scores are our own: a token's score is minus the rank of the first merge that makes it, so
// llama.cpp's SentencePiece tokenizer (which merges the best-scoring pair first) merges in the order of
// tokenizer.json's merges (llama.cpp's converter writes -1000 for every token, which loses that order).
#include "core/gguf/gguf_vocab.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts::gguf {
namespace fs = std::filesystem;

namespace {

constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6;

const char* const kGpt2Regex = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
const char* const kLlama3Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+";
const char* const kQwen2Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+";

nlohmann::json readJsonFile(const fs::path& path, bool required) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        if (required)
            throw IoError(path.string() +
                          ": not found (a GGUF file carries the tokenizer: the model folder needs "
                          "its tokenizer.json)");
        return nullptr;
    }
    try {
        return parseJson(readFile(path));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(path.string() + ": not valid JSON (" + e.what() + ")");
    }
}

std::string typeOf(const nlohmann::json& j) {
    return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : "";
}

// The text of a tokenizer_config.json special-token entry: a string or {"content": ...}.
std::optional<std::string> tokenText(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
    return std::nullopt;
}

// What llama.cpp's converter takes for special even when not flagged so: <|...|>, <pad>, <mask>.
bool looksSpecial(const std::string& t) {
    return (t.size() >= 4 && t.rfind("<|", 0) == 0 && t.compare(t.size() - 2, 2, "|>") == 0) || t == "<pad>" ||
           t == "<mask>";
}

struct Tokenizer {
    fs::path file;
    nlohmann::json json, model;
    std::vector<std::string> byId;  // id -> text ("" for an id without a token)
    std::vector<bool> present;
    std::map<int64_t, nlohmann::json> added;  // id -> added_tokens entry
    std::unordered_map<std::string, int64_t> idOf;
};

Tokenizer readTokenizer(const fs::path& file, int64_t vocabSize) {
    Tokenizer t;
    t.file = file;
    t.json = readJsonFile(file, true);
    if (!t.json.is_object() || !t.json.contains("model") || !t.json["model"].is_object())
        throw FormatError(file.string() + ": no \"model\" object");
    t.model = t.json["model"];
    const std::string type = typeOf(t.model);
    if (type != "BPE")
        throw FormatError(file.string() + ": model.type is \"" + type +
                          "\"; GGUF export writes BPE tokenizers (GPT-2, Llama, Mistral, Qwen2): llama.cpp has no "
                          "form for this one here");
    if (!t.model.contains("vocab") || !t.model["vocab"].is_object())
        throw FormatError(file.string() + ": model.vocab is not an object");
    int64_t maxId = -1;
    std::vector<std::pair<std::string, int64_t>> entries;
    for (auto it = t.model["vocab"].begin(); it != t.model["vocab"].end(); ++it) {
        if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0)
            throw FormatError(file.string() + ": model.vocab[\"" + it.key() + "\"] is not a token id");
        entries.emplace_back(it.key(), it.value().get<int64_t>());
        maxId = std::max(maxId, it.value().get<int64_t>());
    }
    if (t.json.contains("added_tokens") && t.json["added_tokens"].is_array())
        for (const nlohmann::json& a : t.json["added_tokens"]) {
            if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") ||
                !a["content"].is_string())
                throw FormatError(file.string() + ": an added_tokens entry without an integer id and a content");
            const int64_t id = a["id"].get<int64_t>();
            t.added[id] = a;
            entries.emplace_back(a["content"].get<std::string>(), id);
            maxId = std::max(maxId, id);
        }
    if (maxId >= vocabSize)
        throw FormatError(file.string() + ": token id " + std::to_string(maxId) +
                          " is beyond the model's vocabulary of " + std::to_string(vocabSize) +
                          " (config.json vocab_size): the tokenizer does not belong to this model");
    t.byId.assign(static_cast<size_t>(vocabSize), "");
    t.present.assign(static_cast<size_t>(vocabSize), false);
    for (const auto& [text, id] : entries) {
        t.byId[static_cast<size_t>(id)] = text;
        t.present[static_cast<size_t>(id)] = true;
        t.idOf[text] = id;
    }
    return t;
}

// The merges as "a b" strings (tokenizer.json holds either strings or [a, b] pairs).
std::vector<std::string> mergesOf(const Tokenizer& t) {
    std::vector<std::string> out;
    if (!t.model.contains("merges") || !t.model["merges"].is_array()) return out;
    for (const nlohmann::json& m : t.model["merges"]) {
        if (m.is_string()) {
            out.push_back(m.get<std::string>());
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            out.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
        } else {
            throw FormatError(t.file.string() + ": a model.merges entry is neither \"a b\" nor [a, b]");
        }
    }
    return out;
}

// The byte-level pre-tokenizer's name: ByteLevel(use_regex) alone is GPT-2's; Split(regex) + ByteLevel is named by
// the regex. Throws naming what the file has when llama.cpp has no such pre-tokenizer.
std::string byteLevelPre(const Tokenizer& t) {
    const nlohmann::json& pre = t.json.value("pre_tokenizer", nlohmann::json(nullptr));
    const std::string where = t.file.string() + ": pre_tokenizer ";
    const auto checkByteLevel = [&](const nlohmann::json& b) {
        if (b.value("add_prefix_space", false))
            throw FormatError(where +
                              "ByteLevel has add_prefix_space true: llama.cpp does not add a space before "
                              "the text, so the GGUF would tokenize differently");
    };
    if (typeOf(pre) == "ByteLevel") {
        checkByteLevel(pre);
        if (!pre.value("use_regex", true))
            throw FormatError(where + "is ByteLevel without its regex: llama.cpp has no such pre-tokenizer");
        return "gpt-2";
    }
    if (typeOf(pre) == "Sequence" && pre.contains("pretokenizers") && pre["pretokenizers"].is_array()) {
        const nlohmann::json& parts = pre["pretokenizers"];
        if (parts.size() == 2 && typeOf(parts[0]) == "Split" && typeOf(parts[1]) == "ByteLevel") {
            checkByteLevel(parts[1]);
            const nlohmann::json& pattern = parts[0].value("pattern", nlohmann::json(nullptr));
            const std::string regex = pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()
                                          ? pattern["Regex"].get<std::string>()
                                          : std::string();
            const std::string name = preTokenizerName(regex);
            if (!name.empty()) return name;
            throw FormatError(where + "splits with the regex " + nlohmann::json(regex).dump() +
                              ", which is none of llama.cpp's (GPT-2's, Llama 3's, Qwen2's): the GGUF would "
                              "tokenize differently");
        }
    }
    throw FormatError(
        where + (pre.is_null() ? std::string("is missing") : "is " + pre.dump().substr(0, 200)) +
        ": GGUF export writes byte-level BPE tokenizers with GPT-2's, Llama 3's or Qwen2's pre-tokenizer");
}

// A SentencePiece-style BPE: byte fallback, "▁" for spaces (a Prepend/Replace normalizer or a Metaspace
// pre-tokenizer). Returns whether the text gets a leading "▁" (llama.cpp's add_space_prefix).
std::optional<bool> sentencePieceStyle(const Tokenizer& t) {
    if (!t.model.value("byte_fallback", false)) return std::nullopt;
    const nlohmann::json& norm = t.json.value("normalizer", nlohmann::json(nullptr));
    const nlohmann::json& pre = t.json.value("pre_tokenizer", nlohmann::json(nullptr));
    bool prepend = false, replace = false;
    std::vector<nlohmann::json> norms;
    if (typeOf(norm) == "Sequence" && norm.contains("normalizers") && norm["normalizers"].is_array())
        for (const nlohmann::json& n : norm["normalizers"]) norms.push_back(n);
    else if (norm.is_object())
        norms.push_back(norm);
    for (const nlohmann::json& n : norms) {
        if (typeOf(n) == "Prepend" && n.value("prepend", "") == "\u2581") prepend = true;
        if (typeOf(n) == "Replace") replace = true;
    }
    if (replace || prepend) return prepend;
    if (typeOf(pre) == "Metaspace") return pre.value("prepend_scheme", std::string("always")) != "never";
    return std::nullopt;
}

struct SpecialIds {
    std::map<std::string, int64_t> ids;  // "bos" -> id, in the order bos, eos, unk, sep, pad
    std::optional<bool> addBos, addEos;
};

SpecialIds specialIds(const Tokenizer& t, const nlohmann::json& tokenizerConfig, const nlohmann::json& config) {
    SpecialIds s;
    // add_bos / add_eos: the post-processor decides (what encoding does); tokenizer_config.json otherwise.
    const nlohmann::json& post = t.json.value("post_processor", nlohmann::json(nullptr));
    std::vector<nlohmann::json> posts;
    if (typeOf(post) == "Sequence" && post.contains("processors") && post["processors"].is_array())
        for (const nlohmann::json& p : post["processors"]) posts.push_back(p);
    else if (post.is_object())
        posts.push_back(post);
    for (const nlohmann::json& p : posts) {
        if (typeOf(p) == "ByteLevel") {
            if (!s.addBos) s.addBos = false;
            if (!s.addEos) s.addEos = false;
        } else if (typeOf(p) == "TemplateProcessing" && p.contains("single") && p["single"].is_array()) {
            const nlohmann::json& single = p["single"];
            const auto specialAt = [&](size_t i) -> std::string {
                if (i >= single.size() || !single[i].is_object() || !single[i].contains("SpecialToken")) return "";
                return single[i]["SpecialToken"].value("id", "");
            };
            const std::string first = specialAt(0), last = single.empty() ? "" : specialAt(single.size() - 1);
            s.addBos = !first.empty();
            s.addEos = !last.empty() && single.size() > 1;
        }
    }
    if (tokenizerConfig.is_object()) {
        if (!s.addBos && tokenizerConfig.contains("add_bos_token") && tokenizerConfig["add_bos_token"].is_boolean())
            s.addBos = tokenizerConfig["add_bos_token"].get<bool>();
        if (!s.addEos && tokenizerConfig.contains("add_eos_token") && tokenizerConfig["add_eos_token"].is_boolean())
            s.addEos = tokenizerConfig["add_eos_token"].get<bool>();
    }
    for (const char* kind : {"bos", "eos", "unk", "sep", "pad"}) {
        if (tokenizerConfig.is_object() && tokenizerConfig.contains(std::string(kind) + "_token")) {
            const std::optional<std::string> text = tokenText(tokenizerConfig[std::string(kind) + "_token"]);
            if (text) {
                const auto it = t.idOf.find(*text);
                if (it != t.idOf.end()) {
                    s.ids[kind] = it->second;
                    continue;
                }
            }
        }
        const std::string key = std::string(kind) + "_token_id";
        if (config.is_object() && config.contains(key) && config[key].is_number_integer()) {
            const int64_t id = config[key].get<int64_t>();
            if (id >= 0 && id < static_cast<int64_t>(t.byId.size())) s.ids[kind] = id;
        }
    }
    return s;
}

}  // namespace

std::string preTokenizerName(const std::string& splitRegex) {
    if (splitRegex == kLlama3Regex) return "llama-bpe";
    if (splitRegex == kQwen2Regex) return "qwen2";
    if (splitRegex == kGpt2Regex) return "gpt-2";
    return "";
}

GgufVocab readGgufVocab(const fs::path& dir, const nlohmann::json& config, int64_t vocabSize) {
    const Tokenizer t = readTokenizer(dir / "tokenizer.json", vocabSize);
    const nlohmann::json tokenizerConfig = readJsonFile(dir / "tokenizer_config.json", false);
    SpecialIds special = specialIds(t, tokenizerConfig, config);
    const std::vector<std::string> merges = mergesOf(t);
    GgufVocab v;
    v.tokenCount = vocabSize;

    std::vector<std::string> tokens(static_cast<size_t>(vocabSize));
    std::vector<int32_t> types(static_cast<size_t>(vocabSize), kNormal);
    std::vector<float> scores;
    const std::optional<bool> spm = sentencePieceStyle(t);
    if (spm) {
        v.model = "llama";
        v.pre = "default";
        // score = -(rank of the first merge that makes the token); tokens no merge makes keep 0
        std::unordered_map<std::string, size_t> firstMerge;
        for (size_t r = 0; r < merges.size(); ++r) {
            const size_t space = merges[r].find(' ', 1);
            if (space == std::string::npos) continue;
            firstMerge.emplace(merges[r].substr(0, space) + merges[r].substr(space + 1), r);
        }
        scores.assign(static_cast<size_t>(vocabSize), 0.0f);
        for (size_t i = 0; i < tokens.size(); ++i) {
            const auto m = firstMerge.find(t.byId[i]);
            if (m != firstMerge.end()) scores[i] = -static_cast<float>(m->second + 1);
        }
    } else {
        v.model = "gpt2";
        v.pre = byteLevelPre(t);
        if (v.pre == "llama-bpe" && !t.model.value("ignore_merges", false))
            v.warnings.push_back(t.file.string() +
                                 ": Llama 3's pre-tokenizer with model.ignore_merges false: llama.cpp takes a word "
                                 "that is a whole token as that token (ignore_merges), which can differ in rare cases");
    }
    const std::string normalizer = t.json.value("normalizer", nlohmann::json(nullptr)).dump();
    if (normalizer.find("\"NFC\"") != std::string::npos || normalizer.find("\"NFKC\"") != std::string::npos)
        v.warnings.push_back(t.file.string() +
                             ": the tokenizer normalizes text to NFC; llama.cpp does not, so text typed in "
                             "decomposed form (e + combining accent) tokenizes differently there");
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (!t.present[i]) {
            tokens[i] = "[PAD" + std::to_string(i) + "]";
            types[i] = kUnused;
            if (spm) scores[i] = -10000.0f;
            continue;
        }
        tokens[i] = t.byId[i];
        const auto added = t.added.find(static_cast<int64_t>(i));
        if (added != t.added.end()) {
            const bool isSpecial = added->second.value("special", false) || looksSpecial(tokens[i]);
            types[i] = isSpecial ? kControl : kUserDefined;
            if (spm && special.ids.count("unk") && special.ids.at("unk") == static_cast<int64_t>(i))
                types[i] = kUnknown;
        } else if (spm && tokens[i].size() == 6 && tokens[i].rfind("<0x", 0) == 0 && tokens[i][5] == '>') {
            types[i] = kByte;
        }
    }

    v.metadata.push_back({"tokenizer.ggml.model", MetadataValue::string(v.model)});
    v.metadata.push_back({"tokenizer.ggml.pre", MetadataValue::string(v.pre)});
    v.metadata.push_back({"tokenizer.ggml.tokens", MetadataValue::stringArray(tokens)});
    if (spm) v.metadata.push_back({"tokenizer.ggml.scores", MetadataValue::f32Array(scores)});
    v.metadata.push_back({"tokenizer.ggml.token_type", MetadataValue::i32Array(types)});
    if (!spm) {
        if (merges.empty()) throw FormatError(t.file.string() + ": a byte-level BPE without merges");
        v.metadata.push_back({"tokenizer.ggml.merges", MetadataValue::stringArray(merges)});
    } else {
        v.metadata.push_back({"tokenizer.ggml.add_space_prefix", MetadataValue::boolean(*spm)});
    }
    const std::map<std::string, std::string> keyOf = {{"bos", "tokenizer.ggml.bos_token_id"},
                                                      {"eos", "tokenizer.ggml.eos_token_id"},
                                                      {"unk", "tokenizer.ggml.unknown_token_id"},
                                                      {"sep", "tokenizer.ggml.seperator_token_id"},
                                                      {"pad", "tokenizer.ggml.padding_token_id"}};
    for (const char* kind : {"bos", "eos", "unk", "sep", "pad"}) {
        const auto it = special.ids.find(kind);
        if (it == special.ids.end()) continue;
        v.metadata.push_back({keyOf.at(kind), MetadataValue::u32(static_cast<uint32_t>(it->second))});
    }
    if (!special.ids.count("eos")) {
        // transformers' tokenizer classes default EOS by name (GPT2Tokenizer: <|endoftext|>): do the same, and say so
        for (const char* text : {"<|endoftext|>", "</s>", "<|end_of_text|>", "<eos>"}) {
            const auto it = t.idOf.find(text);
            if (it == t.idOf.end()) continue;
            special.ids["eos"] = it->second;
            v.metadata.push_back(
                {"tokenizer.ggml.eos_token_id", MetadataValue::u32(static_cast<uint32_t>(it->second))});
            v.warnings.push_back((dir / "tokenizer_config.json").string() + ": no eos_token; the GGUF ends text with " +
                                 text + " (id " + std::to_string(it->second) + "), as transformers does");
            break;
        }
    }
    if (!special.ids.count("eos"))
        throw FormatError((dir / "tokenizer_config.json").string() +
                          ": no end-of-sequence token (eos_token, or eos_token_id in config.json): llama.cpp would "
                          "never stop generating");
    if (!special.ids.count("bos")) {
        // llama.cpp defaults a BPE vocabulary's BOS to id 11: name the EOS instead, as GPT-2-style models do
        v.metadata.push_back(
            {"tokenizer.ggml.bos_token_id", MetadataValue::u32(static_cast<uint32_t>(special.ids.at("eos")))});
    }
    v.metadata.push_back({"tokenizer.ggml.add_bos_token", MetadataValue::boolean(special.addBos.value_or(false))});
    v.metadata.push_back({"tokenizer.ggml.add_eos_token", MetadataValue::boolean(special.addEos.value_or(false))});
    if (special.ids.count("bos")) v.bosText = tokens[static_cast<size_t>(special.ids.at("bos"))];
    v.eosText = tokens[static_cast<size_t>(special.ids.at("eos"))];
    return v;
}

}  // namespace fts::gguf
