// Reads generation_config.json and config.json of a model folder; see model_generation_config.h.
#include "core/generate/model_generation_config.h"

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/json_parse.h"

namespace fts {

namespace fs = std::filesystem;

namespace {

nlohmann::json readObject(const fs::path& file) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return nlohmann::json::object();
    nlohmann::json j;
    try {
        j = parseJson(readFile(file));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(file.string() + ": not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw FormatError(file.string() + ": expected a JSON object");
    return j;
}

std::optional<int64_t> tokenId(const nlohmann::json& j, const char* key, const fs::path& file) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    if (!j[key].is_number_integer() || j[key].get<int64_t>() < 0)
        throw FormatError(file.string() + ": \"" + key + "\" must be a token id (an integer >= 0), found " +
                          j[key].dump());
    return j[key].get<int64_t>();
}

std::vector<int64_t> tokenIds(const nlohmann::json& j, const char* key, const fs::path& file) {
    if (!j.contains(key) || j[key].is_null()) return {};
    if (!j[key].is_array()) return {*tokenId(j, key, file)};
    std::vector<int64_t> ids;
    for (const auto& v : j[key]) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0)
            throw FormatError(file.string() + ": \"" + key + "\" must list token ids (integers >= 0), found " +
                              j[key].dump());
        ids.push_back(v.get<int64_t>());
    }
    return ids;
}

}  // namespace

ModelGenerationConfig readModelGenerationConfig(const fs::path& modelDir) {
    const fs::path genFile = modelDir / "generation_config.json", cfgFile = modelDir / "config.json";
    const nlohmann::json gen = readObject(genFile), cfg = readObject(cfgFile);
    ModelGenerationConfig c;
    // generation_config.json first, as transformers' generate() reads it; config.json where it is silent.
    c.eosTokenIds = tokenIds(gen, "eos_token_id", genFile);
    if (c.eosTokenIds.empty()) c.eosTokenIds = tokenIds(cfg, "eos_token_id", cfgFile);
    c.padTokenId = tokenId(gen, "pad_token_id", genFile);
    if (!c.padTokenId) c.padTokenId = tokenId(cfg, "pad_token_id", cfgFile);
    c.bosTokenId = tokenId(gen, "bos_token_id", genFile);
    if (!c.bosTokenId) c.bosTokenId = tokenId(cfg, "bos_token_id", cfgFile);
    c.doSample = optionalField<bool>(gen, "do_sample", genFile.string());
    c.temperature = optionalField<double>(gen, "temperature", genFile.string());
    c.topP = optionalField<double>(gen, "top_p", genFile.string());
    c.repetitionPenalty = optionalField<double>(gen, "repetition_penalty", genFile.string());
    c.topK = optionalField<int64_t>(gen, "top_k", genFile.string());
    c.maxNewTokens = optionalField<int64_t>(gen, "max_new_tokens", genFile.string());
    return c;
}

}  // namespace fts
