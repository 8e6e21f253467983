// Parameter tensors of GPT-2, BERT and every decoder family of core/arch from config.json, following transformers'
// configuration classes for defaults (absent key -> the class default; null -> the class's None rule for fields
// typed Optional, an error otherwise, as the model loader in core/model does) and its modeling files for which
// tensors exist (biases, norms, tied heads counted once).
#include "core/config/model_shape.h"

#include "core/arch/decoder_arch.h"
#include "core/config/issue_kinds.h"
#include "core/config/message_templates.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts {

namespace {

using nlohmann::json;

// Typed reads of config.json with errors naming the file and the key.
class Reader {
public:
    static constexpr int64_t kMaxDimension = int64_t(1) << 24;  // vocab, widths, positions, heads
    static constexpr int64_t kMaxLayers = int64_t(1) << 14;

    Reader(const json& j, std::string source) : m_j(j), m_source(std::move(source)) {}

    [[noreturn]] void fail(const std::string& key, const std::string& what) const {
        throw ConfigError(fillTemplate(msg::kModelConfigKey, {m_source, key, what}));
    }
    const json* find(const std::string& key) const {
        auto it = m_j.find(key);
        return it == m_j.end() ? nullptr : &*it;
    }
    bool present(const std::string& key) const { return find(key) != nullptr; }
    bool isNull(const std::string& key) const { return present(key) && find(key)->is_null(); }

    // A positive integer up to `limit`; absent -> fallback; null -> nullFallback (the config class's None rule).
    // The limit keeps sizes (and their products, the tensors' element counts) far from int64 overflow and a
    // hostile config from asking for billions of tensors: no real model comes near it.
    int64_t positive(const std::string& key, int64_t fallback, std::optional<int64_t> nullFallback = {},
                     int64_t limit = kMaxDimension) const {
        const json* v = find(key);
        if (!v) return fallback;
        if (v->is_null()) {
            if (nullFallback) return *nullFallback;
            fail(key, fillTemplate(msg::kNullNotAllowed, {"a positive integer"}));
        }
        int64_t n = 0;
        if (v->is_number_unsigned()) {
            n = v->get<uint64_t>() > uint64_t(limit) ? limit + 1 : int64_t(v->get<uint64_t>());
        } else if (v->is_number_integer()) {
            n = v->get<int64_t>();
        } else if (v->is_number_float()) {
            const double d = v->get<double>();
            if (!(d == std::floor(d))) fail(key, expectedMessage("a positive integer", v->dump()));
            n = d > double(limit) ? limit + 1 : d < 0 ? -1 : int64_t(d);
        } else {
            fail(key, expectedMessage("a positive integer", v->dump()));
        }
        if (n <= 0) fail(key, expectedMessage("a positive integer", v->dump()));
        if (n > limit) fail(key, expectedMessage(fillTemplate(msg::kPositiveUpTo, {std::to_string(limit)}), v->dump()));
        return n;
    }
    // A null is refused for every key read below (transformers 5.23's strict validation of non-Optional fields).
    void notNull(const std::string& key, const std::string& expected) const {
        if (isNull(key)) fail(key, fillTemplate(msg::kNullNotAllowed, {expected}));
    }
    bool boolean(const std::string& key, bool fallback) const {
        notNull(key, "true or false");
        const json* v = find(key);
        if (!v) return fallback;
        if (!v->is_boolean()) fail(key, expectedMessage("true or false", v->dump()));
        return v->get<bool>();
    }
    double probability(const std::string& key, double fallback) const {
        notNull(key, "a dropout probability in [0, 1)");
        const json* v = find(key);
        if (!v) return fallback;
        if (!v->is_number()) fail(key, expectedMessage("a dropout probability in [0, 1)", v->dump()));
        const double p = v->get<double>();
        if (!(p >= 0 && p < 1)) fail(key, expectedMessage("a dropout probability in [0, 1)", v->dump()));
        return p;
    }
    std::string string(const std::string& key, const std::string& fallback) const {
        notNull(key, "a string");
        const json* v = find(key);
        if (!v) return fallback;
        if (!v->is_string()) fail(key, expectedMessage("a string", v->dump()));
        return v->get<std::string>();
    }
    std::string firstArchitecture() const {
        const json* v = find("architectures");
        if (!v || !v->is_array() || v->empty() || !(*v)[0].is_string()) return "";
        return (*v)[0].get<std::string>();
    }
    const json& raw() const { return m_j; }
    const std::string& source() const { return m_source; }

private:
    const json& m_j;
    std::string m_source;
};

// Collects tensors in checkpoint order.
class TensorList {
public:
    explicit TensorList(ModelShape& s) : m_s(s) {}
    void add(const std::string& name, int64_t numel, int layer = -1) {
        m_s.tensors.push_back({name, numel, layer, "", 0, 0});
    }
    // A linear layer: weight (out x in) and, when `bias`, a bias (out).
    void linear(const std::string& prefix, int64_t in, int64_t out, bool bias, int layer = -1) {
        const auto dot = prefix.rfind('.');
        const std::string module = dot == std::string::npos ? prefix : prefix.substr(dot + 1);
        m_s.tensors.push_back({prefix + ".weight", in * out, layer, module, in, out});
        if (bias) add(prefix + ".bias", out, layer);
    }
    void norm(const std::string& prefix, int64_t c, bool bias, int layer = -1) {
        add(prefix + ".weight", c, layer);
        if (bias) add(prefix + ".bias", c, layer);
    }

private:
    ModelShape& m_s;
};

void checkHeads(const Reader& r, const ModelShape& s, bool headDimGiven) {
    if (!headDimGiven && s.hiddenSize % s.numHeads != 0)
        r.fail("num_attention_heads",
               fillTemplate(msg::kHeadsDivide, {std::to_string(s.hiddenSize), std::to_string(s.numHeads)}));
    if (s.numHeads % s.numKvHeads != 0)
        r.fail("num_key_value_heads",
               fillTemplate(msg::kKvHeadsDivide, {std::to_string(s.numHeads), std::to_string(s.numKvHeads)}));
}

// GPT2Config's attribute_map: the common name (hidden_size, ...) overrides n_embd when both are present; a null
// in either is refused.
int64_t gpt2Field(const Reader& r, const std::string& alias, const std::string& key, int64_t fallback,
                  int64_t limit = Reader::kMaxDimension) {
    r.notNull(key, "a positive integer");
    return r.present(alias) ? r.positive(alias, fallback, {}, limit) : r.positive(key, fallback, {}, limit);
}

// Hyperparameters that do not change the shape: only their null rule is checked, as the loader refuses them.
void notNullKeys(const Reader& r, std::initializer_list<std::pair<const char*, const char*>> keys) {
    for (auto [key, expected] : keys) r.notNull(key, expected);
}

void readGpt2(const Reader& r, ModelShape& s) {
    s.architecture = "GPT2LMHeadModel";
    s.loraDefaultTargets = {"c_attn"};  // PEFT's default target_modules
    s.vocabSize = r.positive("vocab_size", 50257);
    s.maxPositions = gpt2Field(r, "max_position_embeddings", "n_positions", 1024);
    s.hiddenSize = gpt2Field(r, "hidden_size", "n_embd", 768);
    s.numLayers = gpt2Field(r, "num_hidden_layers", "n_layer", 12, Reader::kMaxLayers);
    s.numHeads = s.numKvHeads = gpt2Field(r, "num_attention_heads", "n_head", 12);
    notNullKeys(r, {{"layer_norm_epsilon", "a number"},
                    {"initializer_range", "a number"},
                    {"activation_function", "a string"},
                    {"scale_attn_weights", "true or false"},
                    {"scale_attn_by_inverse_layer_idx", "true or false"},
                    {"reorder_and_upcast_attn", "true or false"},
                    {"add_cross_attention", "true or false"}});
    s.intermediateSize = r.positive("n_inner", 4 * s.hiddenSize, 4 * s.hiddenSize);  // null -> 4 * n_embd
    s.headDim = s.hiddenSize / s.numHeads;
    checkHeads(r, s, false);
    s.tiedEmbeddings = r.boolean("tie_word_embeddings", true);
    s.attentionDropout = r.probability("attn_pdrop", 0.1);
    s.hiddenDropout = r.probability("resid_pdrop", 0.1);
    s.embeddingDropout = r.probability("embd_pdrop", 0.1);
    const int64_t C = s.hiddenSize, I = s.intermediateSize;
    TensorList t(s);
    t.add("transformer.wte.weight", s.vocabSize * C);
    t.add("transformer.wpe.weight", s.maxPositions * C);
    for (int i = 0; i < int(s.numLayers); ++i) {
        const std::string p = "transformer.h." + std::to_string(i) + ".";
        t.norm(p + "ln_1", C, true, i);
        t.linear(p + "attn.c_attn", C, 3 * C, true, i);  // HF Conv1D: weight stored (in, out); same count
        t.linear(p + "attn.c_proj", C, C, true, i);
        t.norm(p + "ln_2", C, true, i);
        t.linear(p + "mlp.c_fc", C, I, true, i);
        t.linear(p + "mlp.c_proj", I, C, true, i);
    }
    t.norm("transformer.ln_f", C, true);
    if (!s.tiedEmbeddings) t.linear("lm_head", C, s.vocabSize, false);
}

// Every decoder family through core/arch's one reader: the same keys, defaults and tensors the model builds.
void readDecoder(const Reader& r, ModelShape& s) {
    DecoderArch a;
    try {
        a = resolveDecoderArch(HfConfig(r.raw(), r.source()));  // a vision-language folder: its language model
    } catch (const FormatError& e) {  // "<file>: key "<key>": <what>", the message kind the studio translates
        throw ConfigError(e.what());
    }
    s.architecture = std::string(a.family->architecture);
    s.modelType = std::string(a.family->modelType);
    s.vocabSize = a.vocabSize;
    s.hiddenSize = a.hiddenSize;
    s.intermediateSize = a.intermediateSize;
    s.numLayers = a.numLayers;
    s.numHeads = a.numHeads;
    s.numKvHeads = a.numKvHeads;
    s.headDim = a.headDim;
    s.maxPositions = a.maxPositions;
    s.tiedEmbeddings = a.tieWordEmbeddings;
    s.attentionDropout = a.attentionDropout;
    s.hiddenDropout = a.residualDropout;
    s.slidingWindow = a.largestWindow();
    s.layerWindows = a.window;
    s.finalSoftcap = a.finalSoftcap > 0;
    s.attentionSoftcap = a.attnSoftcap > 0;
    s.family = a.family;
    s.attentionSinks = a.family->attentionSinks;
    if (a.moe.experts > 0) {
        s.experts = a.moe.experts;
        s.expertsPerToken = a.moe.topK;
        s.expertIntermediate = a.moe.intermediate;
        for (bool sparse : a.moe.sparseLayer) s.sparseLayers += sparse ? 1 : 0;
        s.normalizedTopK = a.moe.normalizeTopK && a.family->moe != MoeKind::GptOss;
        s.clampedExperts = a.family->moe == MoeKind::GptOss;
        s.routerLoss = a.moe.routerLogits;
    }
    s.loraDefaultTargets.assign(a.family->loraTargets.begin(), a.family->loraTargets.end());
    for (const ArchTensor& t : decoderTensors(a)) {
        int64_t numel = 1;
        for (int64_t d : t.shape) numel *= d;
        const bool expert = !t.bias && (t.role == TensorRole::ExpertsGateUp || t.role == TensorRole::ExpertsDown);
        const bool transposed = a.family->moe == MoeKind::GptOss;  // (experts, in, out)
        if (t.linear)
            s.tensors.push_back({t.name, numel, t.layer, t.module, t.shape[1], t.shape[0]});
        else if (expert)
            s.tensors.push_back({t.name, numel, t.layer, "", transposed ? t.shape[1] : t.shape[2],
                                 transposed ? t.shape[2] : t.shape[1], t.shape[0]});
        else
            s.tensors.push_back({t.name, numel, t.layer, "", 0, 0});
    }
}

void readBert(const Reader& r, ModelShape& s) {
    const std::string arch = r.firstArchitecture();
    const bool classifier = arch == "BertForSequenceClassification";
    if (!arch.empty() && !classifier && arch != "BertForMaskedLM" && arch != "BertForPreTraining" &&
        arch != "BertModel" && arch != "BertLMHeadModel")
        r.fail(
            "architectures",
            "\"" + arch + "\" is not supported for bert (supported: BertForSequenceClassification, BertForMaskedLM)");
    s.architecture = classifier ? "BertForSequenceClassification" : "BertForMaskedLM";
    s.loraDefaultTargets = {"query", "value"};  // PEFT's default target_modules
    s.causalLm = false;
    s.lmHead = !classifier;
    s.vocabSize = r.positive("vocab_size", 30522);
    s.hiddenSize = r.positive("hidden_size", 768);
    s.numLayers = r.positive("num_hidden_layers", 12, {}, Reader::kMaxLayers);
    s.numHeads = s.numKvHeads = r.positive("num_attention_heads", 12);
    s.intermediateSize = r.positive("intermediate_size", 3072);
    s.maxPositions = r.positive("max_position_embeddings", 512);
    const int64_t typeVocab = r.positive("type_vocab_size", 2);
    notNullKeys(r, {{"layer_norm_eps", "a number"},
                    {"initializer_range", "a number"},
                    {"hidden_act", "a string"},
                    {"is_decoder", "true or false"},
                    {"add_cross_attention", "true or false"}});
    s.headDim = s.hiddenSize / s.numHeads;
    checkHeads(r, s, false);
    s.tiedEmbeddings = !classifier && r.boolean("tie_word_embeddings", true);
    s.hiddenDropout = r.probability("hidden_dropout_prob", 0.1);
    s.attentionDropout = r.probability("attention_probs_dropout_prob", 0.1);
    if (classifier) {  // PretrainedConfig: num_labels = len(id2label), default 2
        const json* labels = r.find("id2label");
        s.numLabels = labels && labels->is_object() && !labels->empty() ? int64_t(labels->size()) : 2;
        s.numLabels = r.positive("num_labels", s.numLabels);
    }
    const int64_t C = s.hiddenSize, I = s.intermediateSize;
    TensorList t(s);
    t.add("bert.embeddings.word_embeddings.weight", s.vocabSize * C);
    t.add("bert.embeddings.position_embeddings.weight", s.maxPositions * C);
    t.add("bert.embeddings.token_type_embeddings.weight", typeVocab * C);
    t.norm("bert.embeddings.LayerNorm", C, true);
    for (int i = 0; i < int(s.numLayers); ++i) {
        const std::string p = "bert.encoder.layer." + std::to_string(i) + ".";
        t.linear(p + "attention.self.query", C, C, true, i);
        t.linear(p + "attention.self.key", C, C, true, i);
        t.linear(p + "attention.self.value", C, C, true, i);
        t.linear(p + "attention.output.dense", C, C, true, i);
        t.norm(p + "attention.output.LayerNorm", C, true, i);
        t.linear(p + "intermediate.dense", C, I, true, i);
        t.linear(p + "output.dense", I, C, true, i);
        t.norm(p + "output.LayerNorm", C, true, i);
    }
    if (classifier) {
        t.linear("bert.pooler.dense", C, C, true);
        t.linear("classifier", C, s.numLabels, true);
    } else {
        // transformers 5 ties decoder.weight to the word embeddings and decoder.bias to cls.predictions.bias
        // only with tie_word_embeddings; untied, the decoder has its own weight and bias.
        t.add("cls.predictions.bias", s.vocabSize);
        t.linear("cls.predictions.transform.dense", C, C, true);
        t.norm("cls.predictions.transform.LayerNorm", C, true);
        if (!s.tiedEmbeddings) t.linear("cls.predictions.decoder", C, s.vocabSize, true);
    }
}

}  // namespace

int64_t ModelShape::numParameters() const {
    int64_t n = 0;
    for (const auto& t : tensors) n += t.numel;
    return n;
}

int64_t ModelShape::layerParameters(int layer) const {
    int64_t n = 0;
    for (const auto& t : tensors)
        if (t.layer == layer) n += t.numel;
    return n;
}

int64_t ModelShape::largestLayerParameters() const {
    // One pass over the tensors (a config may declare many thousands of layers: per layer over all tensors was
    // quadratic, and fuzzing found a config.json with n_layer 8482 that took half a minute).
    std::vector<int64_t> perLayer(size_t(std::max<int64_t>(numLayers, 0)), 0);
    for (const auto& t : tensors)
        if (t.layer >= 0 && size_t(t.layer) < perLayer.size()) perLayer[size_t(t.layer)] += t.numel;
    int64_t best = 0;
    for (int64_t n : perLayer) best = std::max(best, n);
    return best;
}

int64_t ModelShape::largestModuleParameters() const {
    std::map<std::string, int64_t> modules;  // module path -> its direct parameters
    for (const auto& t : tensors) modules[t.name.substr(0, t.name.rfind('.'))] += t.numel;
    int64_t best = 0;
    for (const auto& [name, n] : modules) best = std::max(best, n);
    if (tiedEmbeddings && lmHead)  // the head module holds the embedding (and, for BERT, the prediction bias) again
        best = std::max(best, vocabSize * hiddenSize + (modelType == "bert" ? vocabSize : 0));
    return best;
}

ModelShape modelShapeFromJson(const nlohmann::json& config, const std::string& source) {
    if (!config.is_object()) throw ConfigError(fillTemplate(msg::kModelConfigNotObject, {source}));
    Reader r(config, source);
    ModelShape s;
    if (!r.present("model_type"))
        r.fail("model_type", fillTemplate(msg::kModelTypeMissing, {supportedModelTypesText()}));
    s.modelType = r.string("model_type", "");
    if (s.modelType == "gpt2")
        readGpt2(r, s);
    else if (isDecoderFamily(s.modelType))
        readDecoder(r, s);
    else if (s.modelType == "bert")
        readBert(r, s);
    else
        r.fail("model_type", fillTemplate(msg::kModelTypeUnsupported, {s.modelType, supportedModelTypesText()}));
    return s;
}

ModelShape readModelShape(const std::filesystem::path& configJsonOrDir) {
    std::filesystem::path file = configJsonOrDir;
    if (std::filesystem::is_directory(file)) file /= "config.json";
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))  // a message of a kind the studio says in its own language
        throw IoError(notFoundMessage(file.string(), "a Hugging Face model folder needs config.json"));
    std::ifstream in(file, std::ios::binary);
    if (!in) throw IoError(fillTemplate(msg::kModelConfigUnreadable, {file.string()}));
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j;
    try {
        j = parseJson(ss.str());
    } catch (const nlohmann::json::parse_error& e) {
        throw ConfigError(fillTemplate(msg::kNotValidJson, {file.string(), e.what()}));
    }
    return modelShapeFromJson(j, file.string());
}

}  // namespace fts
