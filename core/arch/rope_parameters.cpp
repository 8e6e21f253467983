// Rotary parameters (see rope_parameters.h): config parsing for both config.json generations with transformers
// 5.23's precedence (rope_scaling over rope_parameters) and the keys each rope type of its modeling_rope_utils reads.
#include "core/arch/rope_parameters.h"

#include <cmath>

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

int64_t rotaryDim(const HfConfig& config, const std::string& key, int64_t headDim, double partial) {
    if (!(partial > 0 && partial <= 1))
        config.fail(key, "partial_rotary_factor must be in (0, 1], found " + std::to_string(partial));
    const int64_t dim = int64_t(double(headDim) * partial);  // int(head_dim * partial_rotary_factor)
    if (dim < 2 || dim % 2 != 0)
        config.fail(
            key, "head_dim * partial_rotary_factor must be an even number of at least 2, found " + std::to_string(dim));
    return dim;
}
}  // namespace

RopeConfig parseRopeDict(const HfConfig& config, const nlohmann::json& dict, const std::string& key, double theta,
                         double partialRotary, int64_t headDim, int64_t maxPositions,
                         std::optional<int64_t> topOriginalMax) {
    RopeConfig r;
    r.theta = theta;
    r.maxPositions = maxPositions;
    const nlohmann::json* p = &dict;
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
            config.fail(key, std::string("\"") + typeKey + "\": expected a rope type name (" + kSupportedRopeTypes +
                                 "), found " + t.dump());
        r.type = t.get<std::string>();
    }
    if (r.type == "su") r.type = "longrope";  // Phi-3's first releases spelled it "su" (transformers maps it)
    r.theta = num("rope_theta", r.theta, false);
    if (!(r.theta > 0)) config.fail(key, "\"rope_theta\" must be > 0");
    r.dim = rotaryDim(config, key, headDim, num("partial_rotary_factor", partialRotary, false));
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
    } else if (r.type == "longrope") {
        // transformers' _compute_longrope_parameters: the config's top-level original_max_position_embeddings (Phi-3
        // keeps it there) sets factor = max_position_embeddings / original; without one, the dict's factor.
        auto factors = [&](const char* name) {
            const nlohmann::json* v = value(name);
            if (!v) config.fail(key, std::string("\"") + name + "\" is required for rope type \"longrope\"");
            if (!v->is_array() || v->size() != size_t(r.dim / 2))
                config.fail(key, std::string("\"") + name + "\": expected a list of " + std::to_string(r.dim / 2) +
                                     " numbers (rotary dimension / 2), found " + v->dump().substr(0, 80));
            std::vector<double> out;
            for (const auto& x : *v) {
                if (!x.is_number() || !(x.get<double>() > 0))
                    config.fail(key, std::string("\"") + name + "\": expected positive numbers, found " + x.dump());
                out.push_back(x.get<double>());
            }
            return out;
        };
        r.shortFactor = factors("short_factor");
        r.longFactor = factors("long_factor");
        // transformers' standardize_rope_params: a config attribute original_max_position_embeddings (Phi-3's
        // class has one, default 4096) takes priority over the dict's; factor: the dict's, else max / original.
        if (topOriginalMax) {
            r.originalMaxPositions = *topOriginalMax;
        } else {
            r.originalMaxPositions = int64_t(num("original_max_position_embeddings", double(maxPositions), false));
        }
        if (r.originalMaxPositions <= 0) config.fail(key, "\"original_max_position_embeddings\" must be > 0");
        r.factor = num("factor", double(maxPositions) / double(r.originalMaxPositions), false);
        const nlohmann::json* af = value("attention_factor");
        if (af) {
            if (!af->is_number() || !(af->get<double>() > 0))
                config.fail(key, "\"attention_factor\": expected a positive number, found " + af->dump());
            r.attentionFactor = af->get<double>();
        } else {
            r.attentionFactor =
                r.factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(r.factor) / std::log(double(r.originalMaxPositions)));
        }
    } else if (r.type == "yarn") {
        // transformers' _compute_yarn_parameters: factor and original_max_position_embeddings (absent: filled with
        // max_position_embeddings, as standardize_rope_params does), beta_fast / beta_slow (0 or absent: 32 / 1),
        // truncate (default true), attention_factor or its value from factor (and mscale / mscale_all_dim).
        r.factor = num("factor", 1.0, true);
        r.originalMaxPositions = int64_t(num("original_max_position_embeddings", double(maxPositions), false));
        if (r.originalMaxPositions <= 0) config.fail(key, "\"original_max_position_embeddings\" must be > 0");
        r.betaFast = num("beta_fast", 0.0, false);
        r.betaSlow = num("beta_slow", 0.0, false);
        if (r.betaFast == 0) r.betaFast = 32;
        if (r.betaSlow == 0) r.betaSlow = 1;
        if (const nlohmann::json* t = value("truncate")) {
            if (!t->is_boolean()) config.fail(key, "\"truncate\": expected true or false, found " + t->dump());
            r.truncate = t->get<bool>();
        }
        auto mscaleOf = [](double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; };
        if (const nlohmann::json* af = value("attention_factor")) {
            if (!af->is_number() || !(af->get<double>() > 0))
                config.fail(key, "\"attention_factor\": expected a positive number, found " + af->dump());
            r.attentionFactor = af->get<double>();
        } else {
            const double mscale = num("mscale", 0.0, false), mscaleAllDim = num("mscale_all_dim", 0.0, false);
            r.attentionFactor = mscale != 0 && mscaleAllDim != 0
                                    ? mscaleOf(r.factor, mscale) / mscaleOf(r.factor, mscaleAllDim)
                                    : mscaleOf(r.factor, 1.0);
        }
    } else {
        config.fail(key, "unsupported rope type \"" + r.type + "\" (supported: " + kSupportedRopeTypes + ")");
    }
    if (!(r.factor > 0)) config.fail(key, "\"factor\" must be > 0");
    return r;
}

RopeConfig parseRopeConfig(const HfConfig& config, int64_t headDim, int64_t maxPositions,
                           std::optional<int64_t> topOriginalMax) {
    // Top-level rope_theta (4.x) is the default of the dict's rope_theta; null reaches transformers' frequency
    // formula as None and fails there, so it is refused.
    const double theta = config.getDouble({"rope_theta"}, 10000.0);
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
        RopeConfig r;
        r.theta = theta;
        r.maxPositions = maxPositions;
        r.dim = rotaryDim(config, "partial_rotary_factor", headDim, topPartial);
        return r;
    }
    return parseRopeDict(config, *p, key, theta, topPartial, headDim, maxPositions, topOriginalMax);
}

}  // namespace fts
