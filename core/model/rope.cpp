// RoPE (see rope.h): config parsing for both config.json generations with transformers 5.23's precedence
// (rope_scaling over rope_parameters) and the frequency formulas of its modeling_rope_utils (default, linear,
// dynamic, llama3), evaluated in float32 tensors.
#include "core/model/rope.h"

#include <cmath>
#include <numbers>

namespace fts {

namespace {
// Python truthiness of a JSON value: transformers picks `rope_scaling or rope_parameters`.
bool truthy(const nlohmann::json& v) {
    if (v.is_null()) return false;
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number()) return v.get<double>() != 0.0;
    if (v.is_string() || v.is_object() || v.is_array()) return !v.empty();
    return true;
}
}  // namespace

RopeConfig parseRopeConfig(const HfConfig& config, int64_t headDim, int64_t maxPositions) {
    RopeConfig r;
    r.dim = headDim;
    r.maxPositions = maxPositions;
    // Top-level rope_theta (4.x) is the default of the dict's rope_theta; null reaches transformers' frequency
    // formula as None and fails there, so it is refused.
    r.theta = config.getDouble({"rope_theta"}, 10000.0);
    const nlohmann::json& j = config.json();
    // transformers 5.23 (convert_rope_params_to_dict): `rope_scaling or rope_parameters`: a non-empty 4.x
    // "rope_scaling" replaces the whole of "rope_parameters" (its rope_theta included) when both are present.
    std::string key = "rope_scaling";
    const nlohmann::json* p = nullptr;
    if (j.contains("rope_scaling") && truthy(j["rope_scaling"]))
        p = &j["rope_scaling"];
    else if (j.contains("rope_parameters") && !j["rope_parameters"].is_null())
        p = &j["rope_parameters"], key = "rope_parameters";
    // partial_rotary_factor at the top level: null is ignored as transformers does (`if ... is not None`).
    const double topPartial =
        config.isNull("partial_rotary_factor") ? 1.0 : config.getDouble({"partial_rotary_factor"}, 1.0);
    if (!p) {
        if (topPartial != 1.0) config.fail("partial_rotary_factor", "partial_rotary_factor != 1 is not supported");
        return r;
    }
    if (!p->is_object()) config.fail(key, "expected an object, found " + p->dump());
    // A null inside the dict reaches the formulas as None in transformers (a TypeError there): refused.
    auto value = [&](const char* name) -> const nlohmann::json* {
        if (!p->contains(name)) return nullptr;
        const nlohmann::json& v = (*p)[name];
        if (v.is_null()) config.fail(key, std::string("\"") + name + "\": null is not allowed; expected a number");
        return &v;
    };
    auto num = [&](const char* name, double fallback, bool required) {
        const nlohmann::json* v = value(name);
        if (!v) {
            if (required)
                config.fail(key, std::string("\"") + name + "\" is required for rope type \"" + r.type + "\"");
            return fallback;
        }
        if (!v->is_number()) config.fail(key, std::string("\"") + name + "\": expected a number, found " + v->dump());
        return v->get<double>();
    };
    // "rope_type" wins over the oldest spelling "type" (standardize_rope_params: setdefault("rope_type", type)).
    const char* typeKey = p->contains("rope_type") ? "rope_type" : p->contains("type") ? "type" : nullptr;
    if (typeKey) {
        const nlohmann::json& t = (*p)[typeKey];
        if (!t.is_string())
            config.fail(key, std::string("\"") + typeKey +
                                 "\": expected a rope type name (default, linear, dynamic, llama3), found " + t.dump());
        r.type = t.get<std::string>();
    }
    r.theta = num("rope_theta", r.theta, false);
    const double partial = num("partial_rotary_factor", topPartial, false);
    if (partial != 1.0) config.fail(key, "partial_rotary_factor != 1 is not supported");
    if (r.type == "default") return r;
    if (r.type == "linear" || r.type == "dynamic") {
        r.factor = num("factor", 1.0, true);
    } else if (r.type == "llama3") {
        r.factor = num("factor", 1.0, true);
        r.lowFreqFactor = num("low_freq_factor", 1.0, true);
        r.highFreqFactor = num("high_freq_factor", 4.0, true);
        // Absent: max_position_embeddings, as transformers' standardize_rope_params fills it (with a warning).
        r.originalMaxPositions = int64_t(num("original_max_position_embeddings", double(maxPositions), false));
        if (r.originalMaxPositions <= 0) config.fail(key, "\"original_max_position_embeddings\" must be > 0");
        if (!(r.highFreqFactor > r.lowFreqFactor)) config.fail(key, "high_freq_factor must exceed low_freq_factor");
    } else {
        config.fail(key, "unsupported rope type \"" + r.type + "\" (supported: default, linear, dynamic, llama3)");
    }
    if (!(r.factor > 0)) config.fail(key, "\"factor\" must be > 0");
    return r;
}

torch::Tensor ropeInverseFrequencies(const RopeConfig& rope, int64_t seqLen, const torch::Device& device) {
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    const torch::Tensor exponent =
        torch::arange(0, rope.dim, 2, f32.dtype(torch::kInt64)).to(torch::kFloat32) / double(rope.dim);
    torch::Tensor base = torch::full({}, rope.theta, f32);
    if (rope.type == "dynamic" && seqLen > rope.maxPositions) {
        // base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2)), float32 as transformers' tensor math
        torch::Tensor s = torch::full({}, seqLen, f32.dtype(torch::kInt64));
        torch::Tensor ratio = (s * rope.factor / double(rope.maxPositions)) - (rope.factor - 1.0);
        base = base * ratio.pow(double(rope.dim) / double(rope.dim - 2));
    }
    torch::Tensor invFreq = 1.0 / base.pow(exponent.to(device));
    if (rope.type == "linear") invFreq = invFreq / rope.factor;
    if (rope.type == "llama3") {
        const double oldLen = double(rope.originalMaxPositions);
        const double lowWavelen = oldLen / rope.lowFreqFactor, highWavelen = oldLen / rope.highFreqFactor;
        torch::Tensor wavelen = 2 * std::numbers::pi / invFreq;
        torch::Tensor scaled = torch::where(wavelen > lowWavelen, invFreq / rope.factor, invFreq);
        torch::Tensor smooth = (oldLen / wavelen - rope.lowFreqFactor) / (rope.highFreqFactor - rope.lowFreqFactor);
        torch::Tensor smoothed = (1 - smooth) * scaled / rope.factor + smooth * scaled;
        torch::Tensor medium = (wavelen < highWavelen).logical_not().logical_and((wavelen > lowWavelen).logical_not());
        invFreq = torch::where(medium, smoothed, scaled);
    }
    return invFreq;
}

std::pair<torch::Tensor, torch::Tensor> ropeCosSin(const RopeConfig& rope, int64_t seqLen,
                                                   const torch::Device& device) {
    c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);
    torch::NoGradGuard noGrad;
    const torch::Tensor invFreq = ropeInverseFrequencies(rope, seqLen, device);
    const torch::Tensor pos =
        torch::arange(seqLen, torch::TensorOptions().dtype(torch::kInt64).device(device)).to(torch::kFloat32);
    const torch::Tensor freqs = pos.unsqueeze(1) * invFreq.unsqueeze(0);  // (T, dim/2): the outer product of the matmul
    const torch::Tensor emb = torch::cat({freqs, freqs}, -1);
    return {emb.cos(), emb.sin()};
}

}  // namespace fts
