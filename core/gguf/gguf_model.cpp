// HF -> GGUF architecture mapping (see gguf_model.h). Shapes: an HF Linear weight is (out, in) row-major, which is
// GGUF's ne = {in, out}; GPT-2's Conv1D stores (in, out) and is transposed first.
#include "core/gguf/gguf_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "core/arch/decoder_arch.h"
#include "core/gguf/block_quantize.h"
#include "core/gguf/parallel_ranges.h"
#include "core/util/error.h"

namespace fts::gguf {
namespace fs = std::filesystem;

namespace {

// Reads config.json keys with the file named in every error.
class ConfigKeys {
public:
    ConfigKeys(const nlohmann::json& j, std::string source) : m_j(j), m_source(std::move(source)) {}

    bool has(const char* key) const { return m_j.contains(key) && !m_j[key].is_null(); }
    int64_t integer(const char* key) const {
        if (!has(key) || !m_j[key].is_number_integer() || m_j[key].get<int64_t>() <= 0)
            throw ConfigError(m_source + ": key \"" + key + "\": expected a positive integer" +
                              (has(key) ? ", found " + m_j[key].dump() : std::string(" (missing)")));
        return m_j[key].get<int64_t>();
    }
    int64_t integer(const char* key, int64_t fallback) const { return has(key) ? integer(key) : fallback; }
    double number(const char* key, double fallback) const {
        if (!has(key)) return fallback;
        if (!m_j[key].is_number())
            throw ConfigError(m_source + ": key \"" + key + "\": expected a number, found " + m_j[key].dump());
        return m_j[key].get<double>();
    }
    std::string text(const char* key, const std::string& fallback) const {
        if (!has(key)) return fallback;
        if (!m_j[key].is_string())
            throw ConfigError(m_source + ": key \"" + key + "\": expected a string, found " + m_j[key].dump());
        return m_j[key].get<std::string>();
    }
    bool flag(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        if (!m_j[key].is_boolean())
            throw ConfigError(m_source + ": key \"" + key + "\": expected true or false, found " + m_j[key].dump());
        return m_j[key].get<bool>();
    }
    [[noreturn]] void fail(const std::string& key, const std::string& what) const {
        throw ConfigError(m_source + ": key \"" + key + "\": " + what);
    }
    const nlohmann::json& json() const { return m_j; }
    const std::string& source() const { return m_source; }

private:
    const nlohmann::json& m_j;
    std::string m_source;
};

int layerOf(const std::string& ggufName) {
    if (ggufName.rfind("blk.", 0) != 0) return -1;
    return std::atoi(ggufName.c_str() + 4);
}

// Finds the HF tensor under any of `names` (checkpoints are saved with and without the base-model prefix).
const WeightTensor* findTensor(const ModelWeights& w, const std::vector<std::string>& names) {
    for (const std::string& n : names) {
        const auto it = w.tensors.find(n);
        if (it != w.tensors.end()) return &it->second;
    }
    return nullptr;
}

class Planner {
public:
    Planner(const ModelWeights& w, GgufModel& m) : m_w(w), m_m(m) {}

    // Adds GGUF tensor `name` from the first of `sources` present, expecting numpy shape `shape` (after the
    // rearrangement). Required tensors missing are an error naming them.
    bool add(const std::string& name, const std::vector<std::string>& sources, std::vector<int64_t> shape,
             bool required = true, Rearrange r = Rearrange::None, int64_t heads = 0) {
        const WeightTensor* t = findTensor(m_w, sources);
        if (!t) {
            if (required)
                throw FormatError(m_w.description + ": tensor " + sources.front() + " is missing (GGUF needs it for " +
                                  name + ")");
            return false;
        }
        std::vector<int64_t> stored = shape;
        if (r == Rearrange::Transpose) std::reverse(stored.begin(), stored.end());
        if (t->entry->shape != stored) {
            std::string got, want;
            for (int64_t d : t->entry->shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
            for (int64_t d : stored) want += (want.empty() ? "" : ", ") + std::to_string(d);
            throw FormatError(m_w.description + ": tensor " + t->entry->name + " has shape [" + got + "], expected [" +
                              want + "] from config.json");
        }
        const auto dt = t->entry->dtype;
        if (dt != SafetensorsDtype::F32 && dt != SafetensorsDtype::F16 && dt != SafetensorsDtype::BF16)
            throw FormatError(m_w.description + ": tensor " + t->entry->name + " is " + std::string(dtypeName(dt)) +
                              "; GGUF export reads F32, F16 and BF16 weights (export a quantized run merged first)");
        PlannedTensor p;
        p.name = name;
        p.source = t->entry->name;
        p.ne.assign(shape.rbegin(), shape.rend());
        p.rearrange = r;
        p.heads = heads;
        m_m.tensors.push_back(std::move(p));
        m_used.push_back(t->entry->name);
        return true;
    }

    // Every HF tensor not used is an error (a layer llama.cpp's architecture has no place for), except buffers and
    // the parts of a vision-language folder left out (ignoredPrefixes).
    void checkAllUsed(const std::vector<std::string>& ignoredSuffixes,
                      const std::vector<std::string>& ignoredPrefixes = {}) const {
        for (const auto& [name, t] : m_w.tensors) {
            if (std::find(m_used.begin(), m_used.end(), name) != m_used.end()) continue;
            bool ignored = false;
            for (const std::string& prefix : ignoredPrefixes) ignored = ignored || name.starts_with(prefix);
            for (const std::string& s : ignoredSuffixes)
                ignored =
                    ignored || (name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0);
            if (!ignored)
                throw FormatError(m_w.description + ": tensor " + name + " has no place in llama.cpp's " + m_m.arch +
                                  " architecture");
        }
    }

private:
    const ModelWeights& m_w;
    GgufModel& m_m;
    std::vector<std::string> m_used;
};

void put(GgufModel& m, const std::string& key, MetadataValue v) {
    m.hyperParameters.push_back({m.arch + "." + key, std::move(v)});
}

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// Llama 3.1's frequency factors (transformers' _compute_llama3_parameters), as llama.cpp's rope_freqs.weight: per
// frequency pair, the divisor llama.cpp applies to the base frequency. The parameters are core/arch's, as the model
// reads them (rope_parameters.h).
std::vector<float> llama3RopeFactors(const fts::RopeConfig& r, int64_t headDim) {
    const double factor = r.factor, low = r.lowFreqFactor, high = r.highFreqFactor;
    const double oldContext = double(r.originalMaxPositions);
    const double lowWavelength = oldContext / low, highWavelength = oldContext / high;
    std::vector<float> out;
    for (int64_t i = 0; i < headDim; i += 2) {
        // in float32, as the converter's torch code computes the frequencies
        const float exponent = static_cast<float>(i) / static_cast<float>(headDim);
        const float freq = 1.0f / std::pow(static_cast<float>(r.theta), exponent);
        const double wavelength = 2 * M_PI / freq;
        if (wavelength < highWavelength) {
            out.push_back(1.0f);
        } else if (wavelength > lowWavelength) {
            out.push_back(static_cast<float>(factor));
        } else {
            const double smooth = (oldContext / wavelength - low) / (high - low);
            out.push_back(static_cast<float>(1.0 / ((1 - smooth) / factor + smooth)));
        }
    }
    return out;
}

// The GGUF name of a decoder tensor's role (llama.cpp's tensor names; gguf-py's constants).
std::string ggufRoleName(TensorRole role, BlockLayout layout) {
    switch (role) {
        case TensorRole::Embedding:
            return "token_embd";
        case TensorRole::FinalNorm:
            return "output_norm";
        case TensorRole::LmHead:
            return "output";
        case TensorRole::InputNorm:
            return "attn_norm";
        case TensorRole::QProj:
            return "attn_q";
        case TensorRole::KProj:
            return "attn_k";
        case TensorRole::VProj:
            return "attn_v";
        case TensorRole::QkvProj:
            return "attn_qkv";
        case TensorRole::OProj:
            return "attn_output";
        case TensorRole::QNorm:
            return "attn_q_norm";
        case TensorRole::KNorm:
            return "attn_k_norm";
        case TensorRole::PostAttentionNorm:  // Llama's pre-MLP norm; Gemma's and OLMo 2's norm after attention
            return layout == BlockLayout::PreNorm ? "ffn_norm" : "post_attention_norm";
        case TensorRole::PreFeedforwardNorm:
            return "ffn_norm";
        case TensorRole::PostFeedforwardNorm:
            return "post_ffw_norm";
        case TensorRole::GateProj:
            return "ffn_gate";
        case TensorRole::UpProj:
        case TensorRole::GateUpProj:  // Phi-3: gate rows then up rows, which llama.cpp's SwiGLU splits the same way
            return "ffn_up";
        case TensorRole::DownProj:
            return "ffn_down";
        case TensorRole::Count:
            break;
    }
    return "";
}

// What llama.cpp's architecture computes differently from the family, refused by the config key that says it (the
// model would not be the same): its activation, its biases, rope types it lacks, Gemma's attention scale and tied head.
void refuseWhatLlamaCppComputesDifferently(const ConfigKeys& c, const DecoderArch& a, const GgufModel& m) {
    const DecoderFamily& f = *a.family;
    const std::string type(f.modelType);
    if (m.arch == "phi3" && a.headDim * a.numHeads != a.hiddenSize)
        c.fail("head_dim", "llama.cpp's phi3 takes head_dim = hidden_size / num_attention_heads");
    const bool gemma = f.embedScale;
    const std::string expectedAct = gemma ? "gelu_pytorch_tanh" : "silu";
    if (a.activation != expectedAct && !(gemma && (a.activation == "gelu_new" || a.activation == "gelu_fast")) &&
        !(!gemma && a.activation == "swish"))
        c.fail(std::string(f.activationKey),
               "\"" + a.activation + "\": llama.cpp's " + m.arch + " computes " + expectedAct);
    // llama.cpp's llama takes every bias, its qwen2 those of q/k/v; the other architectures none
    const bool llamaArch = m.arch == "llama", qwen2Arch = m.arch == "qwen2";
    if (qwen2Arch && a.mlpBias) c.fail("mlp_bias", "true: llama.cpp's qwen2 has no MLP biases");
    if (qwen2Arch && a.oBias) c.fail("attention_bias", "true: llama.cpp's qwen2 has no o_proj bias");
    if (!llamaArch && !qwen2Arch && (a.qkvBias || a.oBias || a.mlpBias))
        c.fail(a.mlpBias && !a.qkvBias ? "mlp_bias" : "attention_bias",
               "true: llama.cpp's " + m.arch + " has no attention or MLP biases");
    const fts::RopeConfig& full = a.ropes.at(0);
    const std::string ropeKey = c.has("rope_scaling") ? "rope_scaling" : "rope_parameters";
    const bool llamaRope = llamaArch || qwen2Arch;  // dynamic (a warning) and llama3 (rope_freqs) as before
    if ((full.type == "dynamic" || full.type == "llama3") && !llamaRope)
        c.fail(ropeKey, "rope type \"" + full.type + "\" is not exported to GGUF for " + type);
    if (full.type == "longrope" && m.arch != "phi3")
        c.fail(ropeKey, "rope type \"longrope\" is not exported to GGUF for " + type);
    if (gemma && std::abs(a.attentionScale * std::sqrt(double(a.headDim)) - 1.0) > 1e-12)
        c.fail("query_pre_attn_scalar", "llama.cpp's " + m.arch +
                                            " scales attention scores by 1/sqrt(head_dim); query_pre_attn_scalar "
                                            "must equal head_dim (" +
                                            std::to_string(a.headDim) + ")");
    if (m.arch == "gemma2" && !a.tieWordEmbeddings)
        c.fail("tie_word_embeddings", "false: llama.cpp's gemma2 has no output layer of its own");
}

// The keys every described decoder writes (sizes, heads, the full-attention rope and its scaling), as llama.cpp's
// converter writes them; Llama 3.1's rope factors as the rope_freqs tensor.
void putDecoderKeys(const ConfigKeys& c, const DecoderArch& a, GgufModel& m) {
    const bool llamaArch = m.arch == "llama", llamaRope = llamaArch || m.arch == "qwen2";
    const fts::RopeConfig& full = a.ropes.at(0);
    m.layers = static_cast<int>(a.numLayers);
    m.vocabSize = a.vocabSize;
    m.contextLength = a.maxPositions;
    put(m, "context_length", MetadataValue::u32(u32(a.maxPositions)));
    put(m, "embedding_length", MetadataValue::u32(u32(a.hiddenSize)));
    put(m, "block_count", MetadataValue::u32(u32(a.numLayers)));
    put(m, "feed_forward_length", MetadataValue::u32(u32(a.intermediateSize)));
    put(m, "attention.head_count", MetadataValue::u32(u32(a.numHeads)));
    put(m, "attention.head_count_kv", MetadataValue::u32(u32(a.numKvHeads)));
    put(m, "rope.freq_base", MetadataValue::f32(static_cast<float>(full.theta)));
    put(m, "attention.layer_norm_rms_epsilon", MetadataValue::f32(static_cast<float>(a.normEps)));
    // key_length: what the converter writes (Llama / Qwen2: when config.json names head_dim; Phi-3: never)
    if (m.arch != "phi3" && (!llamaRope || c.has("head_dim"))) {
        put(m, "attention.key_length", MetadataValue::u32(u32(a.headDim)));
        put(m, "attention.value_length", MetadataValue::u32(u32(a.headDim)));
    }
    if (llamaArch) {
        put(m, "vocab_size", MetadataValue::u32(u32(a.vocabSize)));
        put(m, "rope.dimension_count", MetadataValue::u32(u32(full.dim)));
    }
    if (full.type == "linear") {
        put(m, "rope.scaling.type", MetadataValue::string("linear"));
        put(m, "rope.scaling.factor", MetadataValue::f32(static_cast<float>(full.factor)));
    } else if (full.type == "dynamic") {
        m.warnings.push_back(c.source() +
                             ": rope_scaling \"dynamic\": llama.cpp has no dynamic NTK scaling; the "
                             "model computes the same up to " +
                             std::to_string(a.maxPositions) +
                             " tokens (max_position_embeddings) and without scaling beyond");
    } else if (full.type == "llama3") {  // Llama 3.1's frequency factors as llama.cpp's rope_freqs.weight
        PlannedTensor freqs;
        freqs.name = "rope_freqs.weight";
        freqs.values = llama3RopeFactors(full, full.dim);
        freqs.ne = {static_cast<int64_t>(freqs.values.size())};
        m.tensors.push_back(std::move(freqs));
    }
}

// Windowed attention and the architecture's own keys: Gemma 2's soft-capping and even-layer windows, Gemma 3's local
// rope and window pattern, Phi-3's LongRoPE factors; elsewhere a window llama.cpp does not apply is said.
void putWindowKeys(const ConfigKeys& c, const DecoderArch& a, GgufModel& m) {
    const fts::RopeConfig& full = a.ropes.at(0);
    const int64_t window = a.largestWindow();
    std::vector<bool> sliding;
    for (int64_t w : a.window) sliding.push_back(w > 0);
    if (m.arch == "gemma2") {
        if (a.attnSoftcap > 0) put(m, "attn_logit_softcapping", MetadataValue::f32(static_cast<float>(a.attnSoftcap)));
        if (a.finalSoftcap > 0)
            put(m, "final_logit_softcapping", MetadataValue::f32(static_cast<float>(a.finalSoftcap)));
        for (size_t i = 0; i < sliding.size(); ++i)  // llama.cpp's gemma2: even layers windowed, odd ones full
            if (window > 0 && sliding[i] != (i % 2 == 0))
                c.fail("layer_types",
                       "llama.cpp's gemma2 windows the even layers only; layer " + std::to_string(i) + " differs");
        put(m, "attention.sliding_window", MetadataValue::u32(u32(window > 0 ? window : a.maxPositions)));
    } else if (m.arch == "gemma3") {
        if (a.finalSoftcap > 0)
            put(m, "final_logit_softcapping", MetadataValue::f32(static_cast<float>(a.finalSoftcap)));
        const fts::RopeConfig& local = a.ropes.at(1);
        if (local.type != "default")
            c.fail("rope_parameters", "sliding_attention rope type \"" + local.type +
                                          "\": llama.cpp's gemma3 scales only the full-attention layers");
        put(m, "rope.freq_base_swa", MetadataValue::f32(static_cast<float>(local.theta)));
        if (window > 0) {
            put(m, "attention.sliding_window", MetadataValue::u32(u32(window)));
            put(m, "attention.sliding_window_pattern", MetadataValue::boolArray(sliding));
        }
    } else if (m.arch == "phi3") {
        put(m, "rope.dimension_count", MetadataValue::u32(u32(full.dim)));
        put(m, "rope.scaling.original_context_length",
            MetadataValue::u32(u32(full.originalMaxPositions > 0 ? full.originalMaxPositions : a.maxPositions)));
        put(m, "attention.sliding_window", MetadataValue::u32(u32(window)));
        if (window > 0)
            m.warnings.push_back(c.source() + ": sliding_window " + std::to_string(window) +
                                 ": llama.cpp's phi3 attends over the whole context; the model computes the same up "
                                 "to " +
                                 std::to_string(window) + " tokens");
        if (full.type == "longrope") {
            put(m, "rope.scaling.attn_factor", MetadataValue::f32(static_cast<float>(full.attentionFactor)));
            for (const auto& [name, factors] : {std::pair{"rope_factors_long.weight", &full.longFactor},
                                                std::pair{"rope_factors_short.weight", &full.shortFactor}}) {
                PlannedTensor t;
                t.name = name;
                t.values.assign(factors->begin(), factors->end());
                t.ne = {static_cast<int64_t>(t.values.size())};
                m.tensors.push_back(std::move(t));
            }
            m.warnings.push_back(
                c.source() + ": longrope: llama.cpp picks the long factors for a whole context longer than " +
                std::to_string(full.originalMaxPositions) +
                " tokens (transformers: once a sequence passes that length); use a context of at most that length "
                "for the same results on short prompts");
        }
    } else if (window > 0 && window < a.maxPositions) {
        m.warnings.push_back(c.source() + ": sliding_window " + std::to_string(window) + ": llama.cpp's " + m.arch +
                             " attends over the whole context; the model computes the same up to " +
                             std::to_string(window) + " tokens");
    }
}

// Every tensor by role under llama.cpp's name, from the names a checkpoint may use (base-model and vision-language
// layouts too); Llama's q/k rows permuted per head, Gemma's (1 + w) norms added one.
void planDecoderTensors(const DecoderArch& a, const GgufModel& m, Planner& p) {
    const DecoderFamily& f = *a.family;
    const bool llamaArch = m.arch == "llama";
    auto sources = [&](const std::string& name) {
        std::vector<std::string> s{name};
        if (name.starts_with("model.")) {
            s.push_back(name.substr(6));
            for (const std::string& prefix : a.languageModelPrefixes) s.push_back(prefix + name.substr(6));
        } else if (!a.languageModelPrefixes.empty()) {
            s.push_back("language_model." + name);
        }
        return s;
    };
    bool hasHead = false;
    for (const ArchTensor& t : decoderTensors(a)) {
        const std::string role = ggufRoleName(t.role, f.layout);
        const std::string g = t.layer >= 0 ? "blk." + std::to_string(t.layer) + "." + role : role;
        const bool norm = !t.linear && t.role != TensorRole::Embedding && !t.bias;
        // llama.cpp's llama rotates adjacent pairs: q and k rows permuted per head (HF rotates halves)
        const bool permute = llamaArch && (t.role == TensorRole::QProj || t.role == TensorRole::KProj);
        const Rearrange r = permute                                  ? Rearrange::PermuteHeads
                            : norm && f.norm == NormKind::RmsOnePlus ? Rearrange::AddOne
                                                                     : Rearrange::None;
        p.add(g + (t.bias ? ".bias" : ".weight"), sources(t.name), t.shape, true, r,
              permute ? (t.role == TensorRole::QProj ? a.numHeads : a.numKvHeads) : 0);
        hasHead = hasHead || t.role == TensorRole::LmHead;
    }
    if (!hasHead && m.arch == "olmo2")  // llama.cpp's olmo2 needs an output layer: the tied embedding's rows
        p.add("output.weight", sources("model.embed_tokens.weight"), {a.vocabSize, a.hiddenSize});
    std::vector<std::string> ignored{"rotary_emb.inv_freq"};
    if (a.tieWordEmbeddings) ignored.push_back("lm_head.weight");
    p.checkAllUsed(ignored, a.leftOutPrefixes);
}

// Every decoder family from its description (core/arch): llama.cpp's architecture of the family (llama for Llama
// and Mistral, with q/k permuted; qwen2, qwen3, gemma2, gemma3, phi3, olmo2 with NEOX rope), its keys as llama.cpp's
// converter writes them, every tensor by role. What llama.cpp computes differently is refused (the model would not be
// the same) or said as a warning.
void planDescribedDecoder(const ConfigKeys& c, const HfConfig& hf, GgufModel& m, Planner& p) {
    const DecoderArch a = resolveDecoderArch(hf);
    const DecoderFamily& f = *a.family;
    m.arch = std::string(f.ggufArch);
    if (m.arch.empty())
        c.fail("model_type", "\"" + std::string(f.modelType) + "\": GGUF export is not built for this family yet (" +
                                 supportedModelTypesText() +
                                 " load and train; GGUF: gpt2, llama, mistral, qwen2, "
                                 "qwen3, gemma2, gemma3_text, gemma3, phi3, olmo2)");
    refuseWhatLlamaCppComputesDifferently(c, a, m);
    putDecoderKeys(c, a, m);
    putWindowKeys(c, a, m);
    planDecoderTensors(a, m, p);
}

void planGpt2(const ConfigKeys& c, GgufModel& m, Planner& p) {
    const int64_t hidden = c.integer("n_embd");
    const int64_t layers = c.integer("n_layer");
    const int64_t heads = c.integer("n_head");
    const int64_t vocab = c.integer("vocab_size");
    const int64_t positions = c.integer("n_positions", c.integer("n_ctx", 1024));
    const int64_t ffn = c.integer("n_inner", 4 * hidden);
    const std::string act = c.text("activation_function", "gelu_new");
    if (act != "gelu_new" && act != "gelu_pytorch_tanh" && act != "gelu_fast")
        c.fail("activation_function", "\"" + act + "\": llama.cpp's gpt2 computes the tanh GELU (gelu_new)");
    if (!c.flag("scale_attn_weights", true)) c.fail("scale_attn_weights", "false: llama.cpp's gpt2 always scales");
    if (c.flag("scale_attn_by_inverse_layer_idx", false))
        c.fail("scale_attn_by_inverse_layer_idx", "true: llama.cpp's gpt2 does not scale by the layer");
    m.layers = static_cast<int>(layers);
    m.vocabSize = vocab;
    m.contextLength = positions;
    put(m, "block_count", MetadataValue::u32(u32(layers)));
    put(m, "context_length", MetadataValue::u32(u32(positions)));
    put(m, "embedding_length", MetadataValue::u32(u32(hidden)));
    put(m, "feed_forward_length", MetadataValue::u32(u32(ffn)));
    put(m, "attention.head_count", MetadataValue::u32(u32(heads)));
    put(m, "attention.layer_norm_epsilon",
        MetadataValue::f32(static_cast<float>(c.number("layer_norm_epsilon", 1e-5))));

    const auto names = [](const std::string& n) { return std::vector<std::string>{"transformer." + n, n}; };
    p.add("token_embd.weight", names("wte.weight"), {vocab, hidden});
    p.add("position_embd.weight", names("wpe.weight"), {positions, hidden});
    p.add("output_norm.weight", names("ln_f.weight"), {hidden});
    p.add("output_norm.bias", names("ln_f.bias"), {hidden});
    p.add("output.weight", {"lm_head.weight"}, {vocab, hidden}, false);
    for (int64_t l = 0; l < layers; ++l) {
        const std::string hf = "h." + std::to_string(l) + ".";
        const std::string g = "blk." + std::to_string(l) + ".";
        const auto T = Rearrange::Transpose;
        p.add(g + "attn_norm.weight", names(hf + "ln_1.weight"), {hidden});
        p.add(g + "attn_norm.bias", names(hf + "ln_1.bias"), {hidden});
        p.add(g + "attn_qkv.weight", names(hf + "attn.c_attn.weight"), {3 * hidden, hidden}, true, T);
        p.add(g + "attn_qkv.bias", names(hf + "attn.c_attn.bias"), {3 * hidden});
        p.add(g + "attn_output.weight", names(hf + "attn.c_proj.weight"), {hidden, hidden}, true, T);
        p.add(g + "attn_output.bias", names(hf + "attn.c_proj.bias"), {hidden});
        p.add(g + "ffn_norm.weight", names(hf + "ln_2.weight"), {hidden});
        p.add(g + "ffn_norm.bias", names(hf + "ln_2.bias"), {hidden});
        p.add(g + "ffn_up.weight", names(hf + "mlp.c_fc.weight"), {ffn, hidden}, true, T);
        p.add(g + "ffn_up.bias", names(hf + "mlp.c_fc.bias"), {ffn});
        p.add(g + "ffn_down.weight", names(hf + "mlp.c_proj.weight"), {hidden, ffn}, true, T);
        p.add(g + "ffn_down.bias", names(hf + "mlp.c_proj.bias"), {hidden});
    }
    p.checkAllUsed({".attn.bias", ".attn.masked_bias"});
}

// `count` elements from element `first` of a source tensor, as float32, into dst (tight loops per dtype).
void convertElements(const unsigned char* p, SafetensorsDtype dt, int64_t first, int64_t count, float* dst) {
    if (dt == SafetensorsDtype::F32) {
        std::memcpy(dst, p + 4 * first, static_cast<size_t>(count) * 4);
        return;
    }
    const unsigned char* src = p + 2 * first;
    if (dt == SafetensorsDtype::BF16) {
        for (int64_t i = 0; i < count; ++i) {
            uint16_t h;
            std::memcpy(&h, src + 2 * i, 2);
            const uint32_t bits = static_cast<uint32_t>(h) << 16;
            std::memcpy(dst + i, &bits, 4);
        }
        return;
    }
    for (int64_t i = 0; i < count; ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = halfToFloat(h);
    }
}

}  // namespace

GgufModel planGgufModel(const fs::path& dir, const nlohmann::json& config, const ModelWeights& weights) {
    const ConfigKeys c(config, (dir / "config.json").string());
    GgufModel m;
    const std::string type = c.text("model_type", "");
    Planner p(weights, m);
    if (type == "gpt2") {
        m.arch = "gpt2";
        planGpt2(c, m, p);
    } else if (isDecoderFamily(type)) {
        try {
            planDescribedDecoder(c, HfConfig(config, c.source()), m, p);
        } catch (const ConfigError&) {
            throw;
        } catch (const FormatError& e) {
            if (std::string(e.what()).find(": key \"") != std::string::npos) throw ConfigError(e.what());
            throw;
        }
    } else {
        c.fail("model_type", "\"" + type + "\": GGUF export writes " + supportedModelTypesText() + " models");
    }
    std::stable_sort(m.tensors.begin(), m.tensors.end(), [](const PlannedTensor& a, const PlannedTensor& b) {
        const int la = layerOf(a.name), lb = layerOf(b.name);
        return la != lb ? la < lb : a.name < b.name;
    });
    return m;
}

std::vector<float> tensorValues(const PlannedTensor& t, const ModelWeights& weights, int threads) {
    if (t.source.empty()) return t.values;
    const WeightTensor& w = weights.tensors.at(t.source);
    const auto* bytes = static_cast<const unsigned char*>(w.file->data(*w.entry));
    const int64_t n = w.entry->numel();
    const SafetensorsDtype dt = w.entry->dtype;
    std::vector<float> out(static_cast<size_t>(n));
    const std::vector<int64_t>& shape = w.entry->shape;
    const int64_t rows = shape.empty() ? 1 : shape[0];
    const int64_t cols = rows ? n / rows : 0;
    if (t.rearrange == Rearrange::Transpose) {  // stored (rows, cols) -> (cols, rows), in tiles of 64 x 64
        std::vector<float> stored(static_cast<size_t>(n));
        parallelRanges(rows, threads, 4096, [&](int64_t first, int64_t last) {
            convertElements(bytes, dt, first * cols, (last - first) * cols, stored.data() + first * cols);
        });
        parallelRanges((cols + 63) / 64, threads, 64, [&](int64_t firstTile, int64_t lastTile) {
            for (int64_t c0 = firstTile * 64; c0 < std::min(cols, lastTile * 64); c0 += 64)
                for (int64_t r0 = 0; r0 < rows; r0 += 64)
                    for (int64_t c = c0; c < std::min(cols, c0 + 64); ++c)
                        for (int64_t r = r0; r < std::min(rows, r0 + 64); ++r)
                            out[static_cast<size_t>(c * rows + r)] = stored[static_cast<size_t>(r * cols + c)];
        });
    } else {
        // PermuteHeads: per head of hd rows, new row h*hd + 2i + j = old row h*hd + j*(hd/2) + i (HF's rotate-half
        // halves -> llama.cpp's adjacent pairs); otherwise row r is row r
        const int64_t hd = t.rearrange == Rearrange::PermuteHeads ? rows / t.heads : 0;
        const auto sourceRow = [&](int64_t to) {
            if (!hd) return to;
            const int64_t h = to / hd, within = to % hd;
            return h * hd + (within % 2) * (hd / 2) + within / 2;
        };
        parallelRanges(rows, threads, 4096, [&](int64_t first, int64_t last) {
            if (!hd) {
                convertElements(bytes, dt, first * cols, (last - first) * cols, out.data() + first * cols);
                return;
            }
            for (int64_t to = first; to < last; ++to)
                convertElements(bytes, dt, sourceRow(to) * cols, cols, out.data() + to * cols);
        });
    }
    w.file->releasePages(*w.entry);
    if (t.rearrange == Rearrange::AddOne)
        for (float& v : out) v += 1.0f;
    return out;
}

}  // namespace fts::gguf
