// Per-tensor types of the quantization presets (see quant_preset.h).
#include "core/gguf/quant_preset.h"

#include <algorithm>
#include <cctype>

namespace fts::gguf {
namespace {

struct PresetRow {
    QuantPreset preset;
    const char* name;
    uint32_t fileType;
    GgmlType base;
};

// general.file_type values: llama.h `enum llama_ftype`.
constexpr PresetRow kPresets[] = {
    {QuantPreset::F32, "f32", 0, GgmlType::F32},         {QuantPreset::F16, "f16", 1, GgmlType::F16},
    {QuantPreset::BF16, "bf16", 32, GgmlType::BF16},     {QuantPreset::Q8_0, "q8_0", 7, GgmlType::Q8_0},
    {QuantPreset::Q4_0, "q4_0", 2, GgmlType::Q4_0},      {QuantPreset::Q4_K_M, "q4_k_m", 15, GgmlType::Q4_K},
    {QuantPreset::Q5_K_M, "q5_k_m", 17, GgmlType::Q5_K}, {QuantPreset::Q6_K, "q6_k", 18, GgmlType::Q6_K},
};

const PresetRow& row(QuantPreset p) {
    for (const PresetRow& r : kPresets)
        if (r.preset == p) return r;
    return kPresets[0];
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

// llama-quant.cpp `tensor_allows_quantization`, for the tensors of the architectures written here.
bool allowsQuantization(const TensorShape& t) {
    int dims = 0;
    for (size_t d = 0; d < t.ne.size(); ++d)
        if (t.ne[d] > 1) dims = static_cast<int>(d) + 1;
    if (dims < 2) return false;
    const std::string& n = t.name;
    if (n.size() < 6 || n.compare(n.size() - 6, 6, "weight") != 0) return false;
    if (contains(n, "_norm.weight")) return false;
    return n != "position_embd.weight";
}

bool useMoreBits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

// llama-quant.cpp `tensor_type_fallback`: a type whose block does not divide the row length.
GgmlType fallback(GgmlType type, int64_t rowLength) {
    if (rowLength % typeTraits(type).blockElements == 0) return type;
    GgmlType smaller = type == GgmlType::Q4_K   ? GgmlType::Q5_0
                       : type == GgmlType::Q5_K ? GgmlType::Q5_1
                       : type == GgmlType::Q6_K ? GgmlType::Q8_0
                                                : type;
    return rowLength % typeTraits(smaller).blockElements == 0 ? smaller : GgmlType::F16;
}

}  // namespace

std::optional<QuantPreset> parseQuantPreset(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const PresetRow& r : kPresets)
        if (lower == r.name) return r.preset;
    return std::nullopt;
}

std::string presetName(QuantPreset preset) { return row(preset).name; }

std::string presetNames() {
    std::string out;
    for (const PresetRow& r : kPresets) out += (out.empty() ? "" : ", ") + std::string(r.name);
    return out;
}

uint32_t fileType(QuantPreset preset) { return row(preset).fileType; }

bool isQuantized(QuantPreset preset) {
    return preset != QuantPreset::F32 && preset != QuantPreset::F16 && preset != QuantPreset::BF16;
}

std::vector<GgmlType> tensorTypes(QuantPreset preset, const std::vector<TensorShape>& tensors, int layers) {
    const GgmlType base = row(preset).base;
    const bool kMixture = preset == QuantPreset::Q4_K_M || preset == QuantPreset::Q5_K_M;
    int attnV = 0, ffnDown = 0;  // llama-quantize's counters: attn_v-like tensors seen, ffn_down tensors seen
    int attnVCount = 0;
    bool hasOutput = false;
    for (const TensorShape& t : tensors) {
        if (contains(t.name, "attn_v.weight") || contains(t.name, "attn_qkv.weight")) ++attnVCount;
        if (t.name == "output.weight") hasOutput = true;
    }
    std::vector<GgmlType> types;
    for (const TensorShape& t : tensors) {
        if (!allowsQuantization(t)) {
            types.push_back(GgmlType::F32);
            continue;
        }
        GgmlType type = base;
        if (!isQuantized(preset)) {
            types.push_back(type);
            continue;
        }
        const int64_t rowLength = t.ne[0];
        const bool output = t.name == "output.weight" || (!hasOutput && t.name == "token_embd.weight");
        if (output) {
            if (rowLength % typeTraits(type).blockElements != 0)
                type = GgmlType::Q8_0;
            else if (type != GgmlType::Q8_0)
                type = GgmlType::Q6_K;
        } else if (t.name == "token_embd.weight") {
            // the base type
        } else if (contains(t.name, "attn_v.weight") || contains(t.name, "attn_qkv.weight")) {
            if (kMixture && useMoreBits(attnV, attnVCount)) type = GgmlType::Q6_K;
            ++attnV;
        } else if (contains(t.name, "ffn_down")) {
            if (kMixture && useMoreBits(ffnDown, layers)) type = GgmlType::Q6_K;
            ++ffnDown;
        }
        types.push_back(fallback(type, rowLength));
    }
    return types;
}

}  // namespace fts::gguf
