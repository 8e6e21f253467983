// Resolving a decoder family's config.json (see decoder_arch.h): transformers 5.23's defaults, null rules and
// __post_init__ derivations (kv heads, head_dim, layer_types, per-layer rope), then the tensor list.
#include "core/arch/decoder_arch.h"

#include <algorithm>
#include <cmath>

namespace fts {

namespace {

constexpr int64_t kMaxDimension = int64_t(1) << 24;  // keeps products of sizes far from overflow
constexpr int64_t kMaxLayers = int64_t(1) << 14;

// A positive integer up to `limit`; absent -> fallback. The sentences are those of core/config/message_templates.h
// (kNullNotAllowed, kPositiveUpTo and "expected X, got Y"), which the studio says in its own language; the limit keeps
// sizes and their products far from int64 overflow, and a hostile config from asking for billions of tensors.
int64_t positiveInt(const HfConfig& c, std::string_view key, int64_t fallback, int64_t limit = kMaxDimension) {
    const nlohmann::json& j = c.json();
    const auto it = j.find(std::string(key));
    if (it == j.end()) return fallback;
    const nlohmann::json& v = *it;
    if (v.is_null()) c.fail(key, "null is not allowed; expected a positive integer");
    const std::string upTo = "a positive integer up to " + std::to_string(limit);
    int64_t n = 0;
    if (v.is_number_unsigned()) {
        n = v.get<uint64_t>() > uint64_t(limit) ? limit + 1 : int64_t(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
        n = v.get<int64_t>();
    } else if (v.is_number_float()) {
        const double d = v.get<double>();
        if (!(d == std::floor(d))) c.fail(key, "expected a positive integer, got " + v.dump());
        n = d > double(limit) ? limit + 1 : d < 0 ? -1 : int64_t(d);
    } else {
        c.fail(key, "expected a positive integer, got " + v.dump());
    }
    if (n <= 0) c.fail(key, "expected a positive integer, got " + v.dump());
    if (n > limit) c.fail(key, "expected " + upTo + ", got " + v.dump());
    return n;
}

// An optional float key (`float | None`): absent -> fallback, null -> 0 (none).
double optionalPositive(const HfConfig& c, std::string_view key, std::optional<double> fallback) {
    if (c.isNull(key)) return 0.0;
    const double v = c.getDouble({key}, fallback.value_or(0.0));
    if (v < 0 || !std::isfinite(v)) c.fail(key, "must be a positive number or null");
    return v;
}

double probability(const HfConfig& c, std::string_view key) {
    const double p = c.getDouble({key}, 0.0);
    if (!(p >= 0 && p < 1)) c.fail(key, "must be in [0, 1)");
    return p;
}

void readShape(const HfConfig& c, const DecoderFamily& f, DecoderArch& a) {
    a.vocabSize = positiveInt(c, "vocab_size", f.vocabSize);
    a.hiddenSize = positiveInt(c, "hidden_size", f.hiddenSize);
    a.intermediateSize = positiveInt(c, "intermediate_size", f.intermediateSize);
    a.numLayers = positiveInt(c, "num_hidden_layers", f.numLayers, kMaxLayers);
    a.numHeads = positiveInt(c, "num_attention_heads", f.numHeads);
    if (c.isNull("num_key_value_heads") && f.nullKvHeadsRefused)
        c.fail("num_key_value_heads", "null is not accepted for " + std::string(f.modelType) +
                                          " (an integer field in transformers' config; leave the key out for its "
                                          "default, " +
                                          std::to_string(f.kvHeads.value_or(a.numHeads)) + ")");
    a.numKvHeads = c.isNull("num_key_value_heads")
                       ? a.numHeads
                       : positiveInt(c, "num_key_value_heads", f.kvHeads.value_or(a.numHeads));
    a.maxPositions = positiveInt(c, "max_position_embeddings", f.maxPositions);
    if (a.numHeads % a.numKvHeads != 0)
        c.fail("num_key_value_heads", "num_attention_heads (" + std::to_string(a.numHeads) +
                                          ") must be a multiple of " + std::to_string(a.numKvHeads));  // kKvHeadsDivide
    // head_dim: a config field (Llama, Qwen3, Gemma) or read with getattr (Phi-3, OLMo 2): absent -> the family's
    // default or hidden / heads; null -> hidden / heads where the field is `int | None`, refused elsewhere.
    const bool nullHeadDim = c.isNull("head_dim");
    if (nullHeadDim && !f.nullHeadDimAllowed)
        c.fail("head_dim", "null is not allowed for " + std::string(f.modelType) +
                               "; expected an integer (leave the key out for its default)");
    std::optional<int64_t> headDim = nullHeadDim ? std::nullopt : c.getOptionalInt({"head_dim"});
    if (!headDim && !nullHeadDim) headDim = f.headDim;
    // Gemma's validate_architecture checks the division even when head_dim is given.
    const bool mustDivide = !headDim || f.embedScale;
    if (mustDivide && a.hiddenSize % a.numHeads != 0)
        c.fail("num_attention_heads", "hidden size " + std::to_string(a.hiddenSize) + " must be divisible by " +
                                          std::to_string(a.numHeads) + " heads");  // kHeadsDivide
    a.headDim = headDim.value_or(a.hiddenSize / a.numHeads);
    if (a.headDim <= 0 || a.headDim > kMaxDimension)
        c.fail("head_dim", "must be a positive integer, found " + std::to_string(a.headDim));
    if (a.headDim % 2 != 0)
        c.fail("head_dim", "must be even for rotary embeddings, found " + std::to_string(a.headDim));
}

void readOptions(const HfConfig& c, const DecoderFamily& f, DecoderArch& a) {
    a.padTokenId = c.isNull("pad_token_id")  ? std::nullopt
                   : c.has({"pad_token_id"}) ? c.getOptionalInt({"pad_token_id"})
                                             : f.padTokenId;
    if (a.padTokenId && (*a.padTokenId < 0 || *a.padTokenId >= a.vocabSize)) a.padTokenId.reset();
    a.normEps = c.getDouble({"rms_norm_eps"}, f.normEps);
    if (!(a.normEps > 0)) c.fail("rms_norm_eps", "must be > 0");
    a.initializerRange = c.getDouble({"initializer_range"}, 0.02);
    a.attentionDropout = probability(c, "attention_dropout");
    if (f.residualDropout) a.residualDropout = probability(c, "resid_pdrop");
    if (f.residualDropout && c.has({"embd_pdrop"}) && c.getDouble({"embd_pdrop"}, 0.0) != 0.0)
        a.notes.push_back("embd_pdrop " + std::to_string(c.getDouble({"embd_pdrop"}, 0.0)) +
                          " is not used: transformers' " + std::string(f.architecture) + " has no embedding dropout");
    switch (f.bias) {
        case BiasRule::None:
            break;
        case BiasRule::AttentionBiasKey:
            a.qkvBias = a.oBias = c.getBool({"attention_bias"}, f.attentionBiasDefault);
            break;
        case BiasRule::QkvAlways:
            a.qkvBias = true;
            break;
    }
    if (f.readsMlpBias) a.mlpBias = c.getBool({"mlp_bias"}, false);
    a.tieWordEmbeddings = c.getBool({"tie_word_embeddings"}, f.tieEmbeddings);
    a.activation = c.getString({f.activationKey}, std::string(f.activation));
    const double scalar = f.queryPreAttnScalar
                              ? double(positiveInt(c, "query_pre_attn_scalar", f.defaultQueryPreAttnScalar))
                              : double(a.headDim);
    a.attentionScale = 1.0 / std::sqrt(scalar);
    if (f.attnSoftcap)
        a.attnSoftcap = optionalPositive(c, "attn_logit_softcapping", f.defaultAttnSoftcap);
    else if (f.finalSoftcap && c.has({"attn_logit_softcapping"}))
        a.notes.push_back("attn_logit_softcapping is not used: transformers' " + std::string(f.architecture) +
                          " does not cap attention scores either");
    if (f.finalSoftcap) a.finalSoftcap = optionalPositive(c, "final_logit_softcapping", f.defaultFinalSoftcap);
    if (f.embedScale) a.embedScale = std::sqrt(double(a.hiddenSize));
    if (f.graniteMultipliers) {  // GraniteConfig's four `float | int` scalars (null refused)
        auto scalar = [&](std::string_view key) {
            const double v = c.getDouble({key}, 1.0);
            if (!std::isfinite(v) || v == 0) c.fail(key, "must be a finite non-zero number");
            return v;
        };
        a.embeddingMultiplier = scalar("embedding_multiplier");
        a.attentionScale = scalar("attention_multiplier");  // the scores' scale itself, not a root
        a.residualMultiplier = scalar("residual_multiplier");
        a.logitsScaling = scalar("logits_scaling");
    }
    if (c.has({"use_bidirectional_attention"}) && c.getBool({"use_bidirectional_attention"}, false))
        c.fail("use_bidirectional_attention",
               "true (an embedding model's bidirectional attention) is not supported; causal language models only");
}

// Per-layer windows by the family's rule (decoder_family.h: WindowRule).
void readWindows(const HfConfig& c, const DecoderFamily& f, DecoderArch& a) {
    a.window.assign(size_t(a.numLayers), 0);
    const nlohmann::json& j = c.json();
    const bool hasLayerTypes = j.contains("layer_types") && j["layer_types"].is_array();
    std::vector<std::string> layerTypes;
    if (hasLayerTypes) {
        if (j["layer_types"].size() != size_t(a.numLayers))
            c.fail("layer_types", "expected " + std::to_string(a.numLayers) + " entries (num_hidden_layers), found " +
                                      std::to_string(j["layer_types"].size()));
        for (const auto& t : j["layer_types"]) {
            if (t != "full_attention" && t != "sliding_attention")
                c.fail("layer_types",
                       "expected \"full_attention\" or \"sliding_attention\" entries, found " + t.dump());
            layerTypes.push_back(t.get<std::string>());
        }
    }
    auto windowValue = [&]() -> std::optional<int64_t> {
        if (c.isNull("sliding_window")) return std::nullopt;
        if (!c.has({"sliding_window"}) && !f.defaultWindow) return std::nullopt;
        return positiveInt(c, "sliding_window", f.defaultWindow.value_or(1));
    };
    switch (f.windows) {
        case WindowRule::None:
            for (const auto& t : layerTypes)
                if (t != "full_attention")
                    c.fail("layer_types", "only \"full_attention\" layers are supported for " +
                                              std::string(f.modelType) + ", found \"" + t + "\"");
            break;
        case WindowRule::Every: {
            if (j.contains("layer_types") && f.modelType == "mistral")  // any value, null included
                c.fail("layer_types",
                       "a mistral config with layer_types is loaded by transformers as Ministral "
                       "(MinistralForCausalLM), which is not supported");
            if (const auto w = windowValue()) a.window.assign(size_t(a.numLayers), *w);
            break;
        }
        case WindowRule::Qwen: {
            // use_sliding_window (bool) and max_window_layers (int) are read (and refused when null) even when no
            // layer ends up windowed, as transformers validates them.
            const bool use = c.getBool({"use_sliding_window"}, false);
            const int64_t maxWindowLayers = c.getInt({"max_window_layers"}, 28);
            const auto w = windowValue();
            if (!use || !w) break;
            for (int64_t i = 0; i < a.numLayers; ++i) {
                const bool sliding =
                    hasLayerTypes ? layerTypes[size_t(i)] == "sliding_attention" : i >= maxWindowLayers;
                if (sliding) a.window[size_t(i)] = *w;
            }
            break;
        }
        case WindowRule::NoRope: {
            // SmolLM3Config: no_rope_layers (1 = RoPE) or every no_rope_layer_interval-th layer without it; windows
            // (use_sliding_window and a sliding_window) on the layers layer_types calls sliding, by default those
            // without RoPE.
            const int64_t interval = positiveInt(c, "no_rope_layer_interval", 4);
            std::vector<bool> rotary(size_t(a.numLayers));
            if (j.contains("no_rope_layers") && !j["no_rope_layers"].is_null()) {
                const auto& n = j["no_rope_layers"];
                if (!n.is_array() || n.size() != size_t(a.numLayers))
                    c.fail("no_rope_layers", "expected " + std::to_string(a.numLayers) + " entries of 0 or 1");
                for (size_t i = 0; i < n.size(); ++i) {
                    if (!n[i].is_number_integer() || (n[i] != 0 && n[i] != 1))
                        c.fail("no_rope_layers", "expected 0 or 1 entries, found " + n[i].dump());
                    rotary[i] = n[i] == 1;
                }
            } else {
                for (int64_t i = 0; i < a.numLayers; ++i) rotary[size_t(i)] = (i + 1) % interval != 0;
            }
            a.layerRotary = rotary;
            const bool use = c.getBool({"use_sliding_window"}, false);
            const auto w = windowValue();
            for (int64_t i = 0; i < a.numLayers; ++i) {
                const bool sliding = hasLayerTypes ? layerTypes[size_t(i)] == "sliding_attention"
                                                   : (w.has_value() && !rotary[size_t(i)]);
                if (use && w && sliding) a.window[size_t(i)] = *w;
            }
            break;
        }
        case WindowRule::Flag: {  // Qwen3MoeConfig: sliding_window kept only with use_sliding_window
            const bool use = c.getBool({"use_sliding_window"}, false);
            const auto w = windowValue();
            if (use && w) a.window.assign(size_t(a.numLayers), *w);
            break;
        }
        case WindowRule::LayerTypes: {
            const int64_t pattern =
                f.windowPatternKey ? positiveInt(c, "sliding_window_pattern", f.windowPattern) : f.windowPattern;
            const auto w = windowValue();
            for (int64_t i = 0; i < a.numLayers; ++i) {
                const bool sliding =
                    hasLayerTypes ? layerTypes[size_t(i)] == "sliding_attention" : (i + 1) % pattern != 0;
                if (sliding && w) a.window[size_t(i)] = *w;
            }
            // The rotary parameters follow the layer type, windowed or not (Gemma 3).
            if (f.layerTypeRope) {
                a.layerRope.assign(size_t(a.numLayers), 0);
                for (int64_t i = 0; i < a.numLayers; ++i) {
                    const bool sliding =
                        hasLayerTypes ? layerTypes[size_t(i)] == "sliding_attention" : (i + 1) % pattern != 0;
                    a.layerRope[size_t(i)] = sliding ? 1 : 0;
                }
            }
            break;
        }
    }
}

// The experts of a mixture-of-experts family: their number, top-k and width, the router's options and which layers
// are sparse (Qwen3-MoE: not in mlp_only_layers and on decoder_sparse_step).
void readMoe(const HfConfig& c, const DecoderFamily& f, DecoderArch& a) {
    if (f.moe == MoeKind::None) return;
    constexpr int64_t kMaxExperts = int64_t(1) << 14;
    MoeArch& m = a.moe;
    // Qwen3MoeConfig maps num_experts to num_local_experts, the name transformers 5 saves; released configs say
    // num_experts.
    m.expertsKey = std::string(f.expertsKey);
    if (!c.has({m.expertsKey}) && c.has({"num_local_experts"})) m.expertsKey = "num_local_experts";
    m.experts = positiveInt(c, m.expertsKey, f.experts, kMaxExperts);
    m.topK = positiveInt(c, "num_experts_per_tok", f.topK, kMaxExperts);
    if (m.topK > m.experts)
        c.fail("num_experts_per_tok", "expected at most " + m.expertsKey + " = " + std::to_string(m.experts) +
                                          " (a token's experts are chosen among them), got " + std::to_string(m.topK));
    const bool qwen = f.moe == MoeKind::Qwen3Moe;
    m.intermediate = qwen ? positiveInt(c, "moe_intermediate_size", 768) : a.intermediateSize;
    m.normalizeTopK = qwen ? c.getBool({"norm_topk_prob"}, false) : true;
    m.routerLogits = c.getBool({"output_router_logits"}, false);
    m.auxLossCoef = c.getDouble({"router_aux_loss_coef"}, 0.001);
    if (!std::isfinite(m.auxLossCoef) || m.auxLossCoef < 0)
        c.fail("router_aux_loss_coef", "must be a finite number >= 0");
    if (f.moe == MoeKind::GptOss) {
        m.swigluAlpha = c.getDouble({"swiglu_alpha"}, 1.702);
        m.swigluLimit = c.getDouble({"swiglu_limit"}, 7.0);
        if (!std::isfinite(m.swigluAlpha)) c.fail("swiglu_alpha", "must be a finite number");
        if (!(m.swigluLimit > 0) || !std::isfinite(m.swigluLimit))
            c.fail("swiglu_limit", "must be a finite number > 0");
    }
    if (f.moe == MoeKind::Mixtral) {
        m.jitterNoise = c.getDouble({"router_jitter_noise"}, 0.0);
        if (!(m.jitterNoise >= 0 && m.jitterNoise < 1)) c.fail("router_jitter_noise", "must be in [0, 1)");
    }
    m.sparseLayer.assign(size_t(a.numLayers), true);
    if (!qwen) return;
    const int64_t step = positiveInt(c, "decoder_sparse_step", 1, kMaxLayers);
    std::vector<bool> dense(size_t(a.numLayers), false);
    const nlohmann::json& j = c.json();
    if (j.contains("mlp_only_layers") && !j["mlp_only_layers"].is_null()) {
        const nlohmann::json& list = j["mlp_only_layers"];
        if (!list.is_array()) c.fail("mlp_only_layers", "expected a list of layer indices, got " + list.dump());
        for (const auto& v : list) {
            if (!v.is_number_integer()) c.fail("mlp_only_layers", "expected layer indices, found " + v.dump());
            const int64_t i = v.get<int64_t>();
            if (i >= 0 && i < a.numLayers)
                dense[size_t(i)] = true;
            else  // transformers compares each layer's index with the list: an index past the layers does nothing
                a.notes.push_back("mlp_only_layers: " + std::to_string(i) + " is not a layer (num_hidden_layers = " +
                                  std::to_string(a.numLayers) + "); it changes nothing");
        }
    }
    for (int64_t i = 0; i < a.numLayers; ++i) m.sparseLayer[size_t(i)] = !dense[size_t(i)] && (i + 1) % step == 0;
}

// Gemma 3 (convert_rope_params_to_dict): rope_parameters keyed by layer type; rope_scaling (4.x) updates the full
// layers' dict, rope_theta (default 1e6) and rope_local_base_freq (default 1e4) are the two bases when the dicts do
// not name theirs.
void readLayerTypeRopes(const HfConfig& c, DecoderArch& a) {
    const nlohmann::json& j = c.json();
    nlohmann::json params = nlohmann::json::object();
    if (j.contains("rope_parameters") && !j["rope_parameters"].is_null()) {
        if (!j["rope_parameters"].is_object()) c.fail("rope_parameters", "expected an object keyed by layer type");
        params = j["rope_parameters"];
    }
    nlohmann::json full = params.contains("full_attention") && params["full_attention"].is_object()
                              ? params["full_attention"]
                              : nlohmann::json{{"rope_type", "default"}};
    nlohmann::json sliding = params.contains("sliding_attention") && params["sliding_attention"].is_object()
                                 ? params["sliding_attention"]
                                 : nlohmann::json{{"rope_type", "default"}};
    for (const auto& [k, v] : params.items())
        if (k != "full_attention" && k != "sliding_attention")
            c.fail("rope_parameters",
                   "expected the keys \"full_attention\" and \"sliding_attention\", found \"" + k + "\"");
    if (j.contains("rope_scaling") && j["rope_scaling"].is_object())
        for (const auto& [k, v] : j["rope_scaling"].items()) full[k] = v;
    const double globalBase = c.getDouble({"rope_theta"}, 1000000.0);
    const double localBase = c.getDouble({"rope_local_base_freq"}, 10000.0);
    const double partial = c.isNull("partial_rotary_factor") ? 1.0 : c.getDouble({"partial_rotary_factor"}, 1.0);
    a.ropes.push_back(
        parseRopeDict(c, full, "rope_parameters.full_attention", globalBase, partial, a.headDim, a.maxPositions));
    a.ropes.push_back(
        parseRopeDict(c, sliding, "rope_parameters.sliding_attention", localBase, partial, a.headDim, a.maxPositions));
    for (const RopeConfig& r : a.ropes)
        if (r.dim != a.headDim)
            c.fail("partial_rotary_factor",
                   "partial rotary embeddings are not supported for gemma3_text (transformers' "
                   "Gemma3 rotates every feature of a head)");
}

std::string ropeKeyOf(const nlohmann::json& j) {
    return j.contains("rope_scaling") && j["rope_scaling"].is_object() && !j["rope_scaling"].empty()
               ? "rope_scaling"
               : "rope_parameters";
}

void readRopes(const HfConfig& c, const DecoderFamily& f, DecoderArch& a) {
    if (f.layerTypeRope) {
        readLayerTypeRopes(c, a);
        return;
    }
    std::optional<int64_t> original;
    if (f.longRopeOriginal) original = positiveInt(c, "original_max_position_embeddings", 4096);
    // The family's default base when the config names none (rope_theta absent and no dict).
    const nlohmann::json& j = c.json();
    auto hasDict = [&](const char* k) { return j.contains(k) && j[k].is_object() && !j[k].empty(); };
    RopeConfig r;
    if (!f.defaultRope.empty() && !hasDict("rope_scaling") && !hasDict("rope_parameters")) {
        // gpt-oss's __post_init__: its YaRN parameters when config.json gives none
        nlohmann::json withDefault = j;
        withDefault["rope_parameters"] = nlohmann::json::parse(f.defaultRope);
        r = parseRopeConfig(HfConfig(std::move(withDefault), c.source()), a.headDim, a.maxPositions, original);
    } else {
        r = parseRopeConfig(c, a.headDim, a.maxPositions, original);
    }
    const bool named =
        j.contains("rope_theta") ||
        (j.contains("rope_parameters") && j["rope_parameters"].is_object() &&
         j["rope_parameters"].contains("rope_theta")) ||
        (j.contains("rope_scaling") && j["rope_scaling"].is_object() && j["rope_scaling"].contains("rope_theta"));
    if (!named) r.theta = f.ropeTheta;
    if (f.longRopeOriginal && r.type != "default" && r.type != "longrope")
        c.fail(
            j.contains("rope_scaling") && !j["rope_scaling"].is_null() ? "rope_scaling" : "rope_parameters",
            "rope type \"" + r.type + "\" is not one " + std::string(f.architecture) + " accepts (default, longrope)");
    if (r.dim != a.headDim && !f.partialRotary)
        c.fail(j.contains("partial_rotary_factor") ? "partial_rotary_factor" : ropeKeyOf(j),
               "partial rotary embeddings (partial_rotary_factor < 1) are not supported for " +
                   std::string(f.modelType) + ": transformers' " + std::string(f.architecture) +
                   " rotates every feature of a head");
    a.ropes.push_back(r);
    a.layerRope.assign(size_t(a.numLayers), 0);
}

// A sparse layer's router and experts in named_parameters() order (Mixtral: router first; Qwen3-MoE: experts first),
// with the per-expert pieces its checkpoints hold.
void addGptOssExperts(const DecoderArch& a, const std::string& p, int layer, std::vector<ArchTensor>& out) {
    const int64_t E = a.moe.experts, I = a.moe.intermediate, C = a.hiddenSize;
    const std::string e = "num_local_experts";
    auto add = [&](std::string name, std::vector<int64_t> shape, TensorRole role, bool bias, std::string from) {
        ArchTensor t{p + name,
                     std::move(shape),
                     role,
                     bias,
                     layer,
                     false,
                     "",
                     std::move(from),
                     bias ? TensorInit::Zeros : TensorInit::Normal};
        t.mxfp4 = !bias && role != TensorRole::Router;
        out.push_back(std::move(t));
    };
    add("mlp.router.weight", {E, C}, TensorRole::Router, false, e + " x hidden_size");
    add("mlp.router.bias", {E}, TensorRole::Router, true, e);
    add("mlp.experts.gate_up_proj", {E, C, 2 * I}, TensorRole::ExpertsGateUp, false,
        e + " x hidden_size x 2*intermediate_size");
    add("mlp.experts.gate_up_proj_bias", {E, 2 * I}, TensorRole::ExpertsGateUp, true, e + " x 2*intermediate_size");
    add("mlp.experts.down_proj", {E, I, C}, TensorRole::ExpertsDown, false, e + " x intermediate_size x hidden_size");
    add("mlp.experts.down_proj_bias", {E, C}, TensorRole::ExpertsDown, true, e + " x hidden_size");
}

void addExperts(const DecoderArch& a, const std::string& p, int layer, std::vector<ArchTensor>& out) {
    if (a.family->moe == MoeKind::GptOss) return addGptOssExperts(a, p, layer, out);
    const bool mixtral = a.family->moe == MoeKind::Mixtral;
    const int64_t E = a.moe.experts, I = a.moe.intermediate, C = a.hiddenSize;
    const std::string eFrom = a.moe.expertsKey, iFrom = mixtral ? "intermediate_size" : "moe_intermediate_size";
    auto router = [&] {
        ArchTensor t{p + "mlp.gate.weight",   {E, C}, TensorRole::Router, false, layer, false, "",
                     eFrom + " x hidden_size"};
        if (mixtral) t.alias = p + "block_sparse_moe.gate.weight";
        out.push_back(std::move(t));
    };
    // Checkpoint names of expert e's gate, up and down projections.
    auto pieceName = [&](int64_t e, const char* mixtralName, const char* qwenName) {
        return p + (mixtral ? "block_sparse_moe.experts." : "mlp.experts.") + std::to_string(e) + "." +
               (mixtral ? mixtralName : qwenName) + ".weight";
    };
    auto experts = [&] {
        ArchTensor gateUp{p + "mlp.experts.gate_up_proj",
                          {E, 2 * I, C},
                          TensorRole::ExpertsGateUp,
                          false,
                          layer,
                          false,
                          "",
                          eFrom + " x 2*" + iFrom + " x hidden_size"};
        ArchTensor down{p + "mlp.experts.down_proj",        {E, C, I}, TensorRole::ExpertsDown, false, layer, false, "",
                        eFrom + " x hidden_size x " + iFrom};
        for (int64_t e = 0; e < E; ++e) {
            gateUp.pieces.push_back({pieceName(e, "w1", "gate_proj"), e, 0, I});
            gateUp.pieces.push_back({pieceName(e, "w3", "up_proj"), e, I, I});
            down.pieces.push_back({pieceName(e, "w2", "down_proj"), e, 0, C});
        }
        out.push_back(std::move(gateUp));
        out.push_back(std::move(down));
    };
    if (mixtral) router();
    experts();
    if (!mixtral) router();
}

}  // namespace

int64_t DecoderArch::largestWindow() const {
    int64_t w = 0;
    for (int64_t x : window) w = std::max(w, x);
    return w;
}

bool isDecoderFamily(const std::string& modelType) {
    return findDecoderFamily(modelType) != nullptr || modelType == "gemma3";
}

HfConfig languageModelConfig(const HfConfig& config, bool* wrapped) {
    if (wrapped) *wrapped = false;
    if (!config.has({"model_type"}) || config.requireString({"model_type"}) != "gemma3") return config;
    // Gemma3Config: text_config (absent: Gemma3TextConfig's defaults), tie_word_embeddings (default true) is the
    // wrapper's, and the language model is Gemma3TextModel under "model.language_model".
    const nlohmann::json& j = config.json();
    nlohmann::json text = nlohmann::json::object();
    if (j.contains("text_config") && !j["text_config"].is_null()) {
        if (!j["text_config"].is_object()) config.fail("text_config", "expected an object (Gemma3TextConfig)");
        text = j["text_config"];
    }
    if (text.contains("model_type") && text["model_type"] != "gemma3_text")
        config.fail("text_config", "model_type " + text["model_type"].dump() + ": expected \"gemma3_text\"");
    text["model_type"] = "gemma3_text";
    text["architectures"] = nlohmann::json::array({"Gemma3ForCausalLM"});
    text["tie_word_embeddings"] = config.getBool({"tie_word_embeddings"}, true);
    // Gemma3ForConditionalGeneration's head does not soft-cap (only Gemma3ForCausalLM's does): the language model
    // computes what the folder computes in transformers with the key cleared (resolveDecoderArch says so).
    text["final_logit_softcapping"] = nullptr;
    for (const char* k : {"torch_dtype", "dtype", "transformers_version"})
        if (j.contains(k) && !text.contains(k)) text[k] = j[k];
    if (wrapped) *wrapped = true;
    return HfConfig(std::move(text), config.source() + " (text_config)");
}

DecoderArch resolveDecoderArch(const HfConfig& outer) {
    bool wrapped = false;
    const HfConfig config = languageModelConfig(outer, &wrapped);
    const std::string supported = supportedDecoderTypes();
    if (!config.has({"model_type"})) config.fail("model_type", "missing (supported model types: " + supported + ")");
    const std::string type = config.requireString({"model_type"});
    const DecoderFamily* f = findDecoderFamily(type);
    if (!f) config.fail("model_type", "unsupported model type \"" + type + "\" (supported: " + supported + ")");
    DecoderArch a;
    a.family = f;
    readShape(config, *f, a);
    readOptions(config, *f, a);
    readWindows(config, *f, a);
    readRopes(config, *f, a);
    readMoe(config, *f, a);
    if (a.layerRotary.empty()) a.layerRotary.assign(size_t(a.numLayers), true);
    if (wrapped) {
        a.languageModelPrefixes = {"model.language_model.", "language_model.model."};
        a.leftOutPrefixes = {"model.vision_tower.", "model.multi_modal_projector.", "vision_tower.",
                             "multi_modal_projector."};
        a.notes.push_back(
            "Gemma3ForConditionalGeneration: the language model is trained and exported alone "
            "(as Gemma3ForCausalLM); the vision tower and the projector are left out");
        const nlohmann::json& outerText = outer.json().value("text_config", nlohmann::json::object());
        if (outerText.is_object() && outerText.contains("final_logit_softcapping") &&
            !outerText["final_logit_softcapping"].is_null())
            a.notes.push_back(
                "text_config.final_logit_softcapping is not used: transformers' "
                "Gemma3ForConditionalGeneration does not soft-cap its logits (the export clears it)");
    }
    return a;
}

std::vector<ArchTensor> decoderTensors(const DecoderArch& a) {
    const DecoderFamily& f = *a.family;
    const int64_t V = a.vocabSize, C = a.hiddenSize, I = a.intermediateSize, D = a.headDim;
    const int64_t QD = a.numHeads * D, KD = a.numKvHeads * D;
    const TensorInit normInit = f.norm == NormKind::RmsOnePlus ? TensorInit::Zeros : TensorInit::Ones;
    std::vector<ArchTensor> out;
    auto add = [&](std::string name, std::vector<int64_t> shape, TensorRole role, int layer, std::string from,
                   TensorInit init, bool bias = false) {
        ArchTensor t{std::move(name), std::move(shape), role, bias, layer, false, "", std::move(from), init};
        out.push_back(std::move(t));
    };
    auto linear = [&](const std::string& prefix, int64_t outF, int64_t inF, TensorRole role, int layer, bool bias,
                      const std::string& outFrom, const std::string& inFrom) {
        add(prefix + ".weight", {outF, inF}, role, layer, outFrom + " x " + inFrom, TensorInit::Normal);
        out.back().linear = true;
        out.back().module = prefix.substr(prefix.rfind('.') + 1);
        if (bias) add(prefix + ".bias", {outF}, role, layer, outFrom, TensorInit::Zeros, true);
    };
    auto norm = [&](const std::string& name, int64_t width, TensorRole role, int layer, const std::string& from) {
        add(name + ".weight", {width}, role, layer, from, normInit);
    };
    const std::string qFrom = "num_attention_heads*head_dim", kvFrom = "num_key_value_heads*head_dim";
    add("model.embed_tokens.weight", {V, C}, TensorRole::Embedding, -1, "vocab_size x hidden_size", TensorInit::Normal);
    for (int i = 0; i < int(a.numLayers); ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        if (f.fusedQkv) {  // Phi3Attention declares o_proj first
            linear(p + "self_attn.o_proj", C, QD, TensorRole::OProj, i, a.oBias, "hidden_size", qFrom);
            linear(p + "self_attn.qkv_proj", QD + 2 * KD, C, TensorRole::QkvProj, i, a.qkvBias,
                   "(num_attention_heads+2*num_key_value_heads)*head_dim", "hidden_size");
        } else {
            linear(p + "self_attn.q_proj", QD, C, TensorRole::QProj, i, a.qkvBias, qFrom, "hidden_size");
            linear(p + "self_attn.k_proj", KD, C, TensorRole::KProj, i, a.qkvBias, kvFrom, "hidden_size");
            linear(p + "self_attn.v_proj", KD, C, TensorRole::VProj, i, a.qkvBias, kvFrom, "hidden_size");
            linear(p + "self_attn.o_proj", C, QD, TensorRole::OProj, i, a.oBias, "hidden_size", qFrom);
        }
        if (f.attentionSinks) {  // GptOssAttention declares its sinks first
            add(p + "self_attn.sinks", {a.numHeads}, TensorRole::Sinks, i, "num_attention_heads", TensorInit::Normal);
            const int attention = 4 + (a.qkvBias ? 3 : 0) + (a.oBias ? 1 : 0);  // q, k, v, o and their biases
            std::rotate(out.end() - attention - 1, out.end() - 1, out.end());
        }
        if (f.qkNorm == QkNorm::PerHead) {
            norm(p + "self_attn.q_norm", D, TensorRole::QNorm, i, "head_dim");
            norm(p + "self_attn.k_norm", D, TensorRole::KNorm, i, "head_dim");
        } else if (f.qkNorm == QkNorm::Whole) {
            norm(p + "self_attn.q_norm", QD, TensorRole::QNorm, i, qFrom);
            norm(p + "self_attn.k_norm", KD, TensorRole::KNorm, i, kvFrom);
        }
        if (a.moe.experts > 0 && a.moe.sparseLayer[size_t(i)]) {
            addExperts(a, p, i, out);
        } else if (f.fusedGateUp) {
            linear(p + "mlp.gate_up_proj", 2 * I, C, TensorRole::GateUpProj, i, a.mlpBias, "2*intermediate_size",
                   "hidden_size");
        } else {
            linear(p + "mlp.gate_proj", I, C, TensorRole::GateProj, i, a.mlpBias, "intermediate_size", "hidden_size");
            linear(p + "mlp.up_proj", I, C, TensorRole::UpProj, i, a.mlpBias, "intermediate_size", "hidden_size");
        }
        if (!(a.moe.experts > 0 && a.moe.sparseLayer[size_t(i)]))
            linear(p + "mlp.down_proj", C, I, TensorRole::DownProj, i, a.mlpBias, "hidden_size", "intermediate_size");
        if (f.layout != BlockLayout::PostNorm) norm(p + "input_layernorm", C, TensorRole::InputNorm, i, "hidden_size");
        norm(p + "post_attention_layernorm", C, TensorRole::PostAttentionNorm, i, "hidden_size");
        if (f.layout == BlockLayout::Sandwich)
            norm(p + "pre_feedforward_layernorm", C, TensorRole::PreFeedforwardNorm, i, "hidden_size");
        if (f.layout != BlockLayout::PreNorm)
            norm(p + "post_feedforward_layernorm", C, TensorRole::PostFeedforwardNorm, i, "hidden_size");
    }
    norm("model.norm", C, TensorRole::FinalNorm, -1, "hidden_size");
    if (!a.tieWordEmbeddings) {
        add("lm_head.weight", {V, C}, TensorRole::LmHead, -1, "vocab_size x hidden_size", TensorInit::Normal);
        out.back().linear = true;
        out.back().module = "lm_head";
    }
    return out;
}

std::map<std::string, std::vector<StoredPiece>> storedPieces(const nlohmann::json& config, const std::string& source) {
    std::map<std::string, std::vector<StoredPiece>> out;
    if (!config.is_object() || !config.contains("model_type") || !config["model_type"].is_string()) return out;
    const HfConfig hf(config, source);
    const DecoderFamily* f = findDecoderFamily(languageModelConfig(hf).requireString({"model_type"}));
    if (!f || f->moe == MoeKind::None) return out;
    for (ArchTensor& t : decoderTensors(resolveDecoderArch(hf)))
        if (!t.pieces.empty()) out[t.name] = std::move(t.pieces);
    return out;
}

}  // namespace fts
