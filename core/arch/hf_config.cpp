// Typed access to config.json (see hf_config.h).
#include "core/arch/hf_config.h"

#include <cmath>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts {

HfConfig HfConfig::load(const std::filesystem::path& configJson) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(configJson, ec))
        throw IoError(configJson.string() + ": not found (a Hugging Face model folder needs config.json)");
    const std::string text = readFile(configJson);
    nlohmann::json j;
    try {
        j = parseJson(text);
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(configJson.string() + ": not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw FormatError(configJson.string() + ": expected a JSON object at the top level");
    // A checkpoint saved quantized: bitsandbytes' 4-bit format loads (the model factory reads it, quant4bit.h);
    // GPTQ, AWQ, 8-bit and the rest do not. docs/qlora.md.
    if (const auto q = j.find("quantization_config"); q != j.end() && q->is_object()) {
        const std::string method = q->value("quant_method", std::string("unknown"));
        if (method == "mxfp4") return HfConfig(std::move(j), configJson.string());  // experts dequantized on load
        const bool fourBit = (q->contains("load_in_4bit") && (*q)["load_in_4bit"] == true) ||
                             (q->contains("_load_in_4bit") && (*q)["_load_in_4bit"] == true);
        if (method != "bitsandbytes" || !fourBit)
            throw FormatError(configJson.string() + ": key \"quantization_config\": the model is saved quantized (" +
                              method + (method == "bitsandbytes" ? ", 8-bit" : "") +
                              "); only bitsandbytes' 4-bit format (load_in_4bit, NF4/FP4) loads (docs/qlora.md). Use "
                              "the model's unquantized release (float32, bfloat16 or float16 weights)");
    }
    return HfConfig(std::move(j), configJson.string());
}

bool savedFourBit(const nlohmann::json& config) {
    if (!config.is_object() || !config.contains("quantization_config")) return false;
    const nlohmann::json& q = config["quantization_config"];
    return q.is_object() && q.value("quant_method", std::string("bitsandbytes")) == "bitsandbytes";
}

HfConfig::HfConfig(nlohmann::json json, std::string source) : m_json(std::move(json)), m_source(std::move(source)) {}

void HfConfig::fail(std::string_view key, const std::string& what) const {
    throw FormatError(m_source + ": key \"" + std::string(key) + "\": " + what);
}

const nlohmann::json* HfConfig::lookup(std::initializer_list<std::string_view> keys, std::string_view* foundKey,
                                       std::string_view expected) const {
    if (!expected.empty())
        for (std::string_view k : keys)
            if (isNull(k)) fail(k, "null is not allowed; expected " + std::string(expected));
    for (std::string_view k : keys) {
        auto it = m_json.find(std::string(k));
        if (it != m_json.end() && !it->is_null()) {
            if (foundKey) *foundKey = k;
            return &*it;
        }
    }
    if (foundKey) *foundKey = *keys.begin();
    return nullptr;
}

bool HfConfig::has(std::initializer_list<std::string_view> keys) const { return lookup(keys, nullptr, {}) != nullptr; }

bool HfConfig::isNull(std::string_view key) const {
    auto it = m_json.find(std::string(key));
    return it != m_json.end() && it->is_null();
}

int64_t HfConfig::toInt(const nlohmann::json& v, std::string_view key) const {
    if (v.is_number_integer()) return v.get<int64_t>();
    // JSON written by Python may hold 64.0 for an int; accept exact integral floats only.
    if (v.is_number_float()) {
        double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return int64_t(d);
    }
    fail(key, "expected an integer, found " + v.dump());
}

std::optional<int64_t> HfConfig::getOptionalInt(std::initializer_list<std::string_view> keys) const {
    std::string_view key;
    const nlohmann::json* v = lookup(keys, &key, {});
    if (!v) return std::nullopt;
    return toInt(*v, key);
}

int64_t HfConfig::getInt(std::initializer_list<std::string_view> keys, int64_t fallback) const {
    std::string_view key;
    const nlohmann::json* v = lookup(keys, &key, "an integer");
    return v ? toInt(*v, key) : fallback;
}

double HfConfig::getDouble(std::initializer_list<std::string_view> keys, double fallback) const {
    std::string_view key;
    const nlohmann::json* v = lookup(keys, &key, "a number");
    if (!v) return fallback;
    if (!v->is_number()) fail(key, "expected a number, found " + v->dump());
    return v->get<double>();
}

bool HfConfig::getBool(std::initializer_list<std::string_view> keys, bool fallback) const {
    std::string_view key;
    const nlohmann::json* v = lookup(keys, &key, "true or false");
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, "expected true or false, found " + v->dump());
    return v->get<bool>();
}

std::string HfConfig::getString(std::initializer_list<std::string_view> keys, const std::string& fallback) const {
    std::string_view key;
    const nlohmann::json* v = lookup(keys, &key, "a string");
    if (!v) return fallback;
    if (!v->is_string()) fail(key, "expected a string, found " + v->dump());
    return v->get<std::string>();
}

std::string HfConfig::requireString(std::initializer_list<std::string_view> keys) const {
    std::string_view key;
    const nlohmann::json* v = lookup(keys, &key, "a string");
    if (!v) fail(key, "required string is missing");
    if (!v->is_string()) fail(key, "expected a string, found " + v->dump());
    return v->get<std::string>();
}

}  // namespace fts
