// Typed access to a Hugging Face config.json with errors that name the file and the key (torch-free).
// Invariant: absent keys take the caller's default, as transformers' config classes do; a present null is an error
// (transformers 5's strict dataclass validation refuses None for a field not typed Optional) unless the caller reads
// the key with getOptionalInt / isNull for a field typed `X | None`; present keys of the wrong type or out of range
// are errors, never silently replaced.
#pragma once
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fts {

class HfConfig {
public:
    // Reads and parses config.json. IoError when missing/unreadable, FormatError when not a JSON object.
    static HfConfig load(const std::filesystem::path& configJson);
    HfConfig(nlohmann::json json, std::string source);

    const nlohmann::json& json() const { return m_json; }
    const std::string& source() const { return m_source; }  // the file, for messages

    // `keys` lists the key and its aliases, the one transformers gives precedence first (GPT-2's attribute_map
    // makes {"hidden_size", "n_embd"}: hidden_size wins when both are present); the first present one is read.
    // has(): some key is present with a non-null value.
    bool has(std::initializer_list<std::string_view> keys) const;
    // The key is present with the value null (transformers' config classes often treat null and absent differently).
    bool isNull(std::string_view key) const;
    // The getters below refuse null in any of `keys` (FormatError "null is not allowed; expected ..."), except
    // getOptionalInt, which reads null as "no value" for fields typed `int | None`.
    int64_t getInt(std::initializer_list<std::string_view> keys, int64_t fallback) const;
    std::optional<int64_t> getOptionalInt(std::initializer_list<std::string_view> keys) const;
    double getDouble(std::initializer_list<std::string_view> keys, double fallback) const;
    bool getBool(std::initializer_list<std::string_view> keys, bool fallback) const;
    std::string getString(std::initializer_list<std::string_view> keys, const std::string& fallback) const;
    std::string requireString(std::initializer_list<std::string_view> keys) const;

    // FormatError "<file>: key "<key>": <what>".
    [[noreturn]] void fail(std::string_view key, const std::string& what) const;

private:
    // The first present key's value (nullptr when none is present). `expected` (e.g. "an integer") makes a null
    // in any listed key an error; empty: null counts as absent.
    const nlohmann::json* lookup(std::initializer_list<std::string_view> keys, std::string_view* foundKey,
                                 std::string_view expected) const;
    int64_t toInt(const nlohmann::json& v, std::string_view key) const;
    nlohmann::json m_json;
    std::string m_source;
};

// Whether config.json says its folder holds bitsandbytes' 4-bit weights (a quantization_config of quant_method
// "bitsandbytes"), which load and stay 4-bit. gpt-oss's MXFP4 experts (quant_method "mxfp4") are dequantized on load:
// not such a folder.
bool savedFourBit(const nlohmann::json& config);

}  // namespace fts
