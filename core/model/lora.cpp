// LoRA on HfModel (see lora.h): PEFT 0.21's target matching (check_target_module_exists, "all-linear", the per
// model_type defaults), init, forward, merge and adapter files. The adapters live in the HfModel, indexed by the
// base weight they modify; linearAt/conv1dAt (defined here) add them in every architecture's forward.
#include "core/model/lora.h"

#include "core/arch/decoder_family.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "core/model/dense.h"
#include "core/model/hf_model.h"
#include "core/model/quant4_linear.h"
#include "core/model/quant4bit.h"
#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/json_parse.h"
#include "core/util/user_regex.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "base_model.model.";

// PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING for GPT-2 and BERT; the decoder families carry theirs
// in core/arch/decoder_family.cpp (empty where PEFT has none: then the user names them).
const std::map<std::string, std::vector<std::string>> kDefaultTargets = {
    {"gpt2", {"c_attn"}},
    {"bert", {"query", "value"}},
};

std::vector<std::string> defaultTargets(const std::string& modelType) {
    if (auto it = kDefaultTargets.find(modelType); it != kDefaultTargets.end()) return it->second;
    if (const DecoderFamily* f = findDecoderFamily(modelType))
        return std::vector<std::string>(f->loraTargets.begin(), f->loraTargets.end());
    return {};
}

HfModel& hfModel(LanguageModel& model) {
    auto* hf = dynamic_cast<HfModel*>(&model);
    if (!hf) throw Error("LoRA: the model is not a Hugging Face architecture built by Finetune Studio");
    return *hf;
}

std::string moduleOf(const std::string& paramName) {
    const auto dot = paramName.rfind('.');
    return dot == std::string::npos ? std::string() : paramName.substr(0, dot);
}

bool endsWithDotted(const std::string& key, const std::string& name) {
    return key.size() > name.size() && key.ends_with(name) && key[key.size() - name.size() - 1] == '.';
}

// PEFT: a module belongs to modules_to_save when re.match(r"(^|.*\.)m($|\..*)", key).
bool inModulesToSave(const std::string& key, const std::vector<std::string>& modulesToSave) {
    for (const auto& m : modulesToSave) {
        if (key == m || endsWithDotted(key, m) || key.starts_with(m + ".") ||
            key.find("." + m + ".") != std::string::npos)
            return true;
    }
    return false;
}

// PEFT's INCLUDE_LINEAR_LAYERS_SHORTHAND, compared lower-cased.
bool isAllLinear(const LoraOptions& opts) {
    if (!opts.targetRegex) return false;
    std::string s = *opts.targetRegex;
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s == "all-linear";
}

std::string joined(const std::vector<std::string>& items) {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
    return s;
}

struct ModuleTable {
    std::vector<std::string> all;            // every module that holds parameters, and their parents
    std::map<std::string, size_t> weightOf;  // Linear/Conv1D module -> index of its weight parameter
    std::set<std::string> outputHeads;
};

ModuleTable moduleTable(const HfModel& model) {
    ModuleTable t;
    std::set<std::string> seen;
    const auto& specs = model.parameterSpecs();
    for (size_t i = 0; i < specs.size(); ++i) {
        const std::string module = moduleOf(specs[i].name);
        if (specs[i].layer != LayerKind::Other && specs[i].name.ends_with(".weight")) {
            t.weightOf[module] = i;
            if (specs[i].outputHead) t.outputHeads.insert(module);
        }
        // The module and every parent (transformer, transformer.h, transformer.h.0, ...): PEFT sees them all.
        for (std::string m = module; !m.empty(); m = moduleOf(m))
            if (seen.insert(m).second) t.all.push_back(m);
    }
    return t;
}

// PEFT's get_pattern_key: the first pattern that matches "(.*\.)?(<pattern>)" in full at the layer's key.
template <typename T>
std::optional<T> patternValue(const std::vector<std::pair<std::string, T>>& patterns, const std::string& key,
                              const std::string& keyPath, const char* what) {
    for (const auto& [pattern, value] : patterns) {
        std::regex re;
        try {
            re = compileUserRegex("(.*\\.)?(" + pattern + ")");
        } catch (const std::exception& e) {
            throw ConfigError(keyPath + "." + what + ": \"" + pattern + "\" is not a valid regular expression (" +
                              e.what() + ")");
        }
        if (std::regex_match(key, re)) return value;
    }
    return std::nullopt;
}

// A layer's rank and alpha: rank_pattern / alpha_pattern's for its key, else r and lora_alpha.
std::pair<int64_t, double> rankAndAlphaOf(const LoraOptions& opts, const std::string& key, const std::string& keyPath) {
    return {patternValue(opts.rankPattern, key, keyPath, "rank_pattern").value_or(opts.r),
            patternValue(opts.alphaPattern, key, keyPath, "alpha_pattern").value_or(opts.alpha)};
}

template <typename T>
nlohmann::json patternJson(const std::vector<std::pair<std::string, T>>& patterns) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [pattern, value] : patterns) j[pattern] = value;
    return j;
}

void checkPositive(const LoraOptions& opts, const std::string& keyPath) {
    if (opts.r <= 0) throw ConfigError(keyPath + ".r: must be a positive integer, found " + std::to_string(opts.r));
    if (!(opts.dropout >= 0.0 && opts.dropout < 1.0))
        throw ConfigError(keyPath + ".lora_dropout: must be in [0, 1), found " + std::to_string(opts.dropout));
}

}  // namespace

double LoraOptions::scaling() const { return scalingOf(r, alpha); }

double LoraOptions::scalingOf(int64_t rank, double layerAlpha) const {
    return useRslora ? layerAlpha / std::sqrt(double(rank)) : layerAlpha / double(rank);
}

torch::Tensor LoraLayer::delta(const torch::Tensor& x, bool training) const {
    const torch::Tensor in = (training && dropout > 0.0) ? torch::dropout(x, dropout, true) : x;
    return denseLinear(denseLinear(in, a), b) * scaling;
}

torch::Tensor LoraLayer::deltaWeight() const {
    if (experts > 0) {  // PEFT's ParamWrapper.get_delta_weight: per expert B_e @ A_e
        const int64_t r = a.size(0) / experts;
        const torch::Tensor a3 = a.to(torch::kFloat32).reshape({experts, r, a.size(1)});  // (e, r, in)
        const torch::Tensor b3 = b.to(torch::kFloat32).reshape({b.size(0), r, experts}).permute({2, 0, 1});
        const torch::Tensor d = torch::bmm(b3, a3) * scaling;  // (e, out, in)
        return transposed ? d.transpose(1, 2) : d;
    }
    torch::Tensor d = torch::matmul(b.to(torch::kFloat32), a.to(torch::kFloat32)) * scaling;  // (out, in)
    return fanInFanOut ? d.t().contiguous() : d;
}

// ---- HfModel hooks -----------------------------------------------------------------------------------------

void HfModel::setLora(std::vector<std::shared_ptr<LoraLayer>> byParam, std::shared_ptr<LoraOptions> options) {
    m_lora = std::move(byParam);
    m_loraOptions = std::move(options);
}

namespace {
// bitsandbytes' Linear4bit.forward: x and the bias in the compute dtype for the product, the result in x's dtype.
torch::Tensor quantizedLinear(const Quant4Weight& q, torch::Dtype computeDtype, const torch::Tensor& x,
                              const torch::Tensor& bias) {
    const torch::Tensor b = bias.defined() ? bias.to(computeDtype) : bias;
    return quant4Linear(x.to(computeDtype), q, b).to(x.scalar_type());
}
}  // namespace

torch::Tensor HfModel::linearAt(size_t weightIndex, const torch::Tensor& x, const torch::Tensor& bias) const {
    torch::Tensor y = quantized(weightIndex) ? quantizedLinear(*m_quant4[weightIndex], m_quantComputeDtype, x, bias)
                                             : denseLinear(x, m_params[weightIndex].tensor, bias);
    if (!m_adaptersOff && weightIndex < m_lora.size() && m_lora[weightIndex])
        y = y + m_lora[weightIndex]->delta(x, m_training);
    return y;
}

torch::Tensor HfModel::adaptedTensor(size_t index) const {
    const torch::Tensor& w = m_params[index].tensor;
    if (m_adaptersOff || index >= m_lora.size() || !m_lora[index]) return w;
    return w + m_lora[index]->deltaWeight().to(w.scalar_type());
}

void HfModel::setQuant4(std::vector<std::shared_ptr<Quant4Weight>> byParam, torch::Dtype computeDtype) {
    m_quant4 = std::move(byParam);
    m_quantComputeDtype = computeDtype;
}

torch::Device HfModel::parameterDevice(size_t index) const {
    return quantized(index) ? m_quant4[index]->packed.device() : m_params.at(index).tensor.device();
}

void HfModel::replaceParameter(size_t index, torch::Tensor tensor) {
    if (index < m_quant4.size()) m_quant4[index].reset();
    m_params.at(index).tensor = std::move(tensor);
}

torch::Tensor HfModel::outputLayer(std::optional<size_t> weightIndex, const torch::Tensor& x,
                                   const torch::Tensor& weight, const torch::Tensor& bias) {
    const bool adapted = !m_adaptersOff && weightIndex && *weightIndex < m_lora.size() && m_lora[*weightIndex];
    if (m_deferHead && !adapted) {
        m_lastHead = OutputHead{weight, bias};
        return x;
    }
    m_lastHead.reset();
    return weightIndex ? linearAt(*weightIndex, x, bias) : denseLinear(x, weight, bias);
}

torch::Tensor HfModel::conv1dAt(size_t weightIndex, const torch::Tensor& x, const torch::Tensor& bias) const {
    // a quantized Conv1D weight is held (out, in), transposed as transformers quantizes it
    torch::Tensor y = quantized(weightIndex) ? quantizedLinear(*m_quant4[weightIndex], m_quantComputeDtype, x, bias)
                                             : denseConv1d(x, m_params[weightIndex].tensor, bias);
    if (!m_adaptersOff && weightIndex < m_lora.size() && m_lora[weightIndex])
        y = y + m_lora[weightIndex]->delta(x, m_training);
    return y;
}

// ---- targets -----------------------------------------------------------------------------------------------

// PEFT's target_parameters: the expert tensors whose "<module>.<parameter>" name is a target or ends with "." + one,
// by parameter index. ConfigError (naming keyPath.target_parameters) for a target that matches no parameter, or one
// that is not a mixture of experts' expert tensor.
std::vector<size_t> matchLoraParameters(const HfModel& hf, const LoraOptions& opts, const std::string& keyPath) {
    const std::string key = keyPath + ".target_parameters";
    const auto& specs = hf.parameterSpecs();
    std::vector<size_t> matched;
    std::set<std::string> hitTargets;
    for (size_t i = 0; i < specs.size(); ++i) {
        bool hit = false;
        for (const std::string& t : opts.targetParameters)
            if (specs[i].name == t || endsWithDotted(specs[i].name, t)) hit = true, hitTargets.insert(t);
        if (!hit) continue;
        if (!specs[i].expertTensor && !specs[i].routerWeight)
            throw ConfigError(key + ": \"" + specs[i].name +
                              "\" matches, but only a mixture of experts' expert tensors " +
                              "(mlp.experts.gate_up_proj, mlp.experts.down_proj) and router weights take an adapter " +
                              "this way; adapt Linear layers through target_modules");
        matched.push_back(i);
    }
    for (const std::string& t : opts.targetParameters)
        if (!hitTargets.count(t)) {
            std::set<std::string> names;
            for (const auto& s : specs)
                if (s.expertTensor) names.insert(s.name.substr(s.name.find(".mlp.") + 1));
            throw ConfigError(key + ": \"" + t + "\" matches no parameter of " + hf.info().architecture +
                              (names.empty()
                                   ? std::string(" (it has no expert tensors)")
                                   : " (its expert tensors are named: " + joined({names.begin(), names.end()}) + ")"));
        }
    return matched;
}

std::vector<std::string> matchLoraTargets(LanguageModel& model, const LoraOptions& opts, const std::string& keyPath) {
    HfModel& hf = hfModel(model);
    const ModuleTable table = moduleTable(hf);
    const std::string key = keyPath + ".target_modules";
    std::vector<std::string> matched;
    if (opts.noTargetModules) return matched;  // target_parameters alone
    if (isAllLinear(opts)) {
        for (const auto& m : table.all)
            if (table.weightOf.count(m) && !table.outputHeads.count(m) && !inModulesToSave(m, opts.modulesToSave))
                matched.push_back(m);
    } else {
        std::vector<std::string> names = opts.targetModules;
        std::optional<std::regex> re;
        if (opts.targetRegex) {
            try {
                re.emplace(compileUserRegex(*opts.targetRegex));
            } catch (const std::exception& e) {
                throw ConfigError(key + ": \"" + *opts.targetRegex + "\" is not a valid regular expression (" +
                                  e.what() + ")");
            }
        } else if (names.empty()) {
            names = defaultTargets(hf.info().modelType);
            if (names.empty())
                throw ConfigError(key + ": no default target modules for model_type \"" + hf.info().modelType +
                                  "\" (PEFT has none either); list them, e.g. [\"qkv_proj\", \"o_proj\"], or "
                                  "\"all-linear\"");
        }
        for (const auto& m : table.all) {
            if (inModulesToSave(m, opts.modulesToSave)) continue;
            bool hit = false;
            if (re) {
                hit = std::regex_match(m, *re);
            } else {
                for (const auto& n : names) hit = hit || m == n || endsWithDotted(m, n);
            }
            if (!hit) continue;
            if (!table.weightOf.count(m))
                throw ConfigError(
                    key + ": module \"" + m + "\" of " + hf.info().architecture +
                    " matches, but it is not a Linear or Conv1D layer (embeddings, norms and whole blocks "
                    "cannot take a LoRA adapter here); name the projections inside it instead");
            matched.push_back(m);
        }
    }
    if (matched.empty()) {
        std::set<std::string> leaves;
        for (const auto& [m, i] : table.weightOf) leaves.insert(m.substr(m.rfind('.') + 1));
        throw ConfigError(
            key + ": no module of " + hf.info().architecture + " matches " +
            (opts.targetRegex ? "\"" + *opts.targetRegex + "\"" : "[" + joined(opts.targetModules) + "]") +
            " (its Linear/Conv1D layers are named: " + joined({leaves.begin(), leaves.end()}) +
            "; a tied output head is not a layer of its own)");
    }
    return matched;
}

// ---- attach / merge ----------------------------------------------------------------------------------------

void attachLora(LanguageModel& model, const LoraOptions& optsIn, uint64_t seed, const std::string& keyPath) {
    HfModel& hf = hfModel(model);
    if (hf.loraOptions()) throw Error("LoRA: the model already has adapters attached");
    auto opts = std::make_shared<LoraOptions>(optsIn);
    checkPositive(*opts, keyPath);
    if (hf.info().task == ModelTask::SequenceClassification)  // PeftModelForSequenceClassification does the same
        for (const char* head : {"classifier", "score"})
            if (std::find(opts->modulesToSave.begin(), opts->modulesToSave.end(), head) == opts->modulesToSave.end())
                opts->modulesToSave.push_back(head);
    if (!opts->targetParameters.empty() && opts->dropout > 0)
        throw ConfigError(keyPath +
                          ".lora_dropout: must be 0 with target_parameters (as PEFT: an expert tensor's "
                          "adapter is added to the tensor, so its input cannot be dropped for it alone)");
    const std::vector<std::string> targets = matchLoraTargets(model, *opts, keyPath);
    const std::vector<size_t> parameterTargets = matchLoraParameters(hf, *opts, keyPath);
    const ModuleTable table = moduleTable(hf);
    auto& params = hf.parameters();
    const auto& specs = hf.parameterSpecs();

    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    std::vector<std::shared_ptr<LoraLayer>> byParam(params.size());
    torch::NoGradGuard noGrad;
    for (const std::string& module : targets) {
        const size_t wi = table.weightOf.at(module);
        const torch::Tensor& w = params[wi].tensor;
        auto layer = std::make_shared<LoraLayer>();
        layer->module = module;
        layer->weightIndex = wi;
        layer->fanInFanOut = specs[wi].layer == LayerKind::Conv1D;
        const auto [rank, alpha] = rankAndAlphaOf(*opts, module, keyPath);
        layer->scaling = opts->scalingOf(rank, alpha);
        layer->dropout = opts->dropout;
        const int64_t in = layer->fanInFanOut ? w.size(0) : w.size(1);
        const int64_t out = layer->fanInFanOut ? w.size(1) : w.size(0);
        // nn.init.kaiming_uniform_(a=sqrt(5)) on (r, in): gain sqrt(2 / (1 + 5)), bound = gain * sqrt(3 / in) = 1 / sqrt(in).
        const double bound = 1.0 / std::sqrt(double(in));
        const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(hf.parameterDevice(wi));
        layer->a =
            torch::empty({rank, in}, torch::kFloat32).uniform_(-bound, bound, gen).to(options).requires_grad_(true);
        layer->b = torch::zeros({out, rank}, options).requires_grad_(true);
        byParam[wi] = std::move(layer);
    }
    // Expert tensors (PEFT's ParamWrapper): per expert an r x in A and an out x r B, PEFT's layouts; a module with
    // several adapted tensors nests its wrappers in parameter order, the first innermost ("base_layer." each).
    for (size_t k = 0; k < parameterTargets.size(); ++k) {
        const size_t wi = parameterTargets[k];
        const ParamSpec& spec = specs[wi];
        auto layer = std::make_shared<LoraLayer>();
        layer->module = moduleOf(spec.name);
        layer->weightIndex = wi;
        const auto [rank, alpha] = rankAndAlphaOf(*opts, spec.name, keyPath);
        layer->scaling = opts->scalingOf(rank, alpha);
        layer->experts = spec.expertTensor ? spec.shape[0] : 0;  // a router weight: a 2-D (out, in) parameter
        layer->transposed = spec.expertsTransposed;
        for (size_t later = k + 1; later < parameterTargets.size(); ++later)
            if (moduleOf(specs[parameterTargets[later]].name) == layer->module) layer->keyInfix += "base_layer.";
        const int64_t in = !spec.expertTensor ? spec.shape[1] : layer->transposed ? spec.shape[1] : spec.shape[2];
        const int64_t out = !spec.expertTensor ? spec.shape[0] : layer->transposed ? spec.shape[2] : spec.shape[1];
        const double bound = 1.0 / std::sqrt(double(in));
        const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(hf.parameterDevice(wi));
        const int64_t rows = rank * std::max<int64_t>(layer->experts, 1);
        layer->a =
            torch::empty({rows, in}, torch::kFloat32).uniform_(-bound, bound, gen).to(options).requires_grad_(true);
        layer->b = torch::zeros({out, rows}, options).requires_grad_(true);
        byParam[wi] = std::move(layer);
    }
    for (auto& p : params) p.tensor.requires_grad_(inModulesToSave(moduleOf(p.name), opts->modulesToSave));
    hf.setLora(std::move(byParam), std::move(opts));
}

bool hasLora(LanguageModel& model) {
    auto* hf = dynamic_cast<HfModel*>(&model);
    return hf && hf->loraOptions();
}

void trainBaseModulesInFloat32(LanguageModel& model) {
    HfModel& hf = hfModel(model);
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < hf.parameters().size(); ++i) {
        const torch::Tensor& t = hf.parameters()[i].tensor;
        if (t.requires_grad() && t.scalar_type() != torch::kFloat32)
            hf.replaceParameter(i, t.detach().to(torch::kFloat32).requires_grad_(true));
    }
}

bool hasQuantizedWeights(LanguageModel& model) {
    auto* hf = dynamic_cast<HfModel*>(&model);
    if (!hf) return false;
    for (const auto& q : hf->quant4ByParam())
        if (q) return true;
    return false;
}

const LoraOptions* loraOptions(LanguageModel& model) {
    auto* hf = dynamic_cast<HfModel*>(&model);
    return hf ? hf->loraOptions().get() : nullptr;
}

std::vector<torch::Tensor> trainableTensors(LanguageModel& model) {
    std::vector<torch::Tensor> out;
    auto* hf = dynamic_cast<HfModel*>(&model);
    auto& params = model.parameters();
    for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].tensor.requires_grad()) out.push_back(params[i].tensor);
        if (hf && i < hf->loraByParam().size() && hf->loraByParam()[i]) {
            out.push_back(hf->loraByParam()[i]->a);
            out.push_back(hf->loraByParam()[i]->b);
        }
    }
    return out;
}

std::vector<NamedTensor> loraStateTensors(LanguageModel& model) {
    HfModel& hf = hfModel(model);
    if (!hf.loraOptions()) throw Error("LoRA: the model has no adapters");
    std::vector<NamedTensor> out;
    auto& params = hf.parameters();
    for (size_t i = 0; i < params.size(); ++i) {
        if (inModulesToSave(moduleOf(params[i].name), hf.loraOptions()->modulesToSave))
            out.push_back({kPrefix + params[i].name, params[i].tensor});
        if (i < hf.loraByParam().size() && hf.loraByParam()[i]) {
            const LoraLayer& l = *hf.loraByParam()[i];
            out.push_back({kPrefix + l.module + "." + l.keyInfix + "lora_A.weight", l.a});
            out.push_back({kPrefix + l.module + "." + l.keyInfix + "lora_B.weight", l.b});
        }
    }
    return out;
}

void mergeLora(LanguageModel& model) {
    HfModel& hf = hfModel(model);
    if (!hf.loraOptions()) return;
    torch::NoGradGuard noGrad;
    auto& params = hf.parameters();
    for (const auto& layer : hf.loraByParam())
        if (layer) {
            const size_t i = layer->weightIndex;
            if (hf.quantized(i)) {  // the 4-bit weight dequantized (in the dtype it was quantized from) + the delta
                const Quant4Weight& q = *hf.quant4ByParam()[i];
                torch::Tensor w = dequantize4bitOnDevice(q, q.dtype);
                if (layer->fanInFanOut) w = w.t().contiguous();
                hf.replaceParameter(i, w.add_(layer->deltaWeight().to(w.scalar_type())));
                continue;
            }
            torch::Tensor& w = params[i].tensor;
            w.add_(layer->deltaWeight().to(w.scalar_type()));
        }
    hf.setLora({}, nullptr);
    // 4-bit weights without an adapter become plain tensors too (Conv1D ones back in their (in, out) layout)
    for (size_t i = 0; i < params.size(); ++i)
        if (hf.quantized(i)) {
            const Quant4Weight& q = *hf.quant4ByParam()[i];
            torch::Tensor w = dequantize4bitOnDevice(q, q.dtype);
            hf.replaceParameter(i, hf.parameterSpecs()[i].layer == LayerKind::Conv1D ? w.t().contiguous() : w);
        }
    for (auto& p : params) p.tensor.requires_grad_(true);
}

// ---- PEFT files --------------------------------------------------------------------------------------------

LoraOptions readLoraAdapterConfig(const fs::path& adapterDir) {
    const fs::path file = adapterDir / "adapter_config.json";
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        throw IoError(file.string() + ": not found (expected a PEFT LoRA adapter folder)");
    nlohmann::json j;
    try {
        j = parseJson(readFile(file));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(file.string() + ": not valid JSON: " + e.what());
    }
    auto fail = [&](const std::string& key, const std::string& what) -> void {
        throw FormatError(file.string() + ": key \"" + key + "\": " + what);
    };
    if (!j.is_object()) throw FormatError(file.string() + ": expected a JSON object");
    auto present = [&](const char* key) { return j.contains(key) && !j[key].is_null(); };
    if (!j.contains("peft_type") || j["peft_type"] != "LORA")
        fail("peft_type", "expected \"LORA\", found " +
                              (j.contains("peft_type") ? jsonForMessage(j["peft_type"]) : std::string("nothing")));
    LoraOptions o;
    if (!j.contains("r") || !j["r"].is_number_integer() || j["r"].get<int64_t>() <= 0)
        fail("r", "expected a positive integer");
    o.r = j["r"].get<int64_t>();
    if (present("lora_alpha")) {
        if (!j["lora_alpha"].is_number()) fail("lora_alpha", "expected a number");
        o.alpha = j["lora_alpha"].get<double>();
    }
    if (present("lora_dropout")) {
        if (!j["lora_dropout"].is_number()) fail("lora_dropout", "expected a number");
        o.dropout = j["lora_dropout"].get<double>();
    }
    if (const auto rs = optionalField<bool>(j, "use_rslora", file.string())) o.useRslora = *rs;
    if (present("target_modules")) {
        const auto& t = j["target_modules"];
        if (t.is_string())
            o.targetRegex = t.get<std::string>();
        else if (t.is_array()) {
            for (const auto& n : t) {
                if (!n.is_string()) fail("target_modules", "expected module names (strings)");
                o.targetModules.push_back(n.get<std::string>());
            }
        } else {
            fail("target_modules", "expected a list of module names or a regular expression string");
        }
    }
    if (present("modules_to_save")) {
        if (!j["modules_to_save"].is_array()) fail("modules_to_save", "expected a list of module names");
        for (const auto& n : j["modules_to_save"]) {
            if (!n.is_string()) fail("modules_to_save", "expected module names (strings)");
            o.modulesToSave.push_back(n.get<std::string>());
        }
    }
    if (present("bias") && j["bias"] != "none")
        fail("bias", "only \"none\" is supported (found " + jsonForMessage(j["bias"]) + ")");
    for (const char* key : {"use_dora", "lora_bias", "use_qalora"})
        if (present(key) && j[key].is_boolean() && j[key].get<bool>()) fail(key, "is true, which is not supported");
    for (const char* key : {"rank_pattern", "alpha_pattern"}) {
        if (!present(key)) continue;
        if (!j[key].is_object()) fail(key, "expected an object of pattern -> number");
        for (const auto& [pattern, v] : j[key].items()) {
            const bool rank = std::string(key) == "rank_pattern";
            if (rank ? !(v.is_number_integer() && v.get<int64_t>() > 0) : !(v.is_number() && v.get<double>() > 0))
                fail(key, "\"" + pattern + "\": expected a positive " + (rank ? "integer" : "number") + ", found " +
                              jsonForMessage(v));
            if (rank)
                o.rankPattern.emplace_back(pattern, v.get<int64_t>());
            else
                o.alphaPattern.emplace_back(pattern, v.get<double>());
        }
    }
    if (present("target_parameters")) {
        if (!j["target_parameters"].is_array()) fail("target_parameters", "expected a list of parameter names");
        for (const auto& n : j["target_parameters"]) {
            if (!n.is_string()) fail("target_parameters", "expected parameter names (strings)");
            o.targetParameters.push_back(n.get<std::string>());
        }
        if (j.contains("target_modules") && j["target_modules"].is_array() && j["target_modules"].empty())
            o.noTargetModules = !o.targetParameters.empty();
    }
    for (const char* key : {"layers_to_transform", "layers_pattern", "layer_replication", "exclude_modules",
                            "trainable_token_indices", "alora_invocation_tokens"})
        if (present(key) && !(j[key].is_array() && j[key].empty()) &&
            !(j[key].is_string() && j[key].get<std::string>().empty()))
            fail(key, "is set (" + j[key].dump() + "), which is not supported (expected null)");
    return o;
}

void loadLoraAdapter(LanguageModel& model, const fs::path& adapterDir, std::optional<double> dropout) {
    LoraOptions opts = readLoraAdapterConfig(adapterDir);
    if (dropout) opts.dropout = *dropout;
    const fs::path weights = adapterDir / "adapter_model.safetensors";
    std::error_code ec;
    if (!fs::is_regular_file(weights, ec)) {
        if (fs::exists(adapterDir / "adapter_model.bin", ec))
            throw FormatError(adapterDir.string() +
                              ": has adapter_model.bin but only adapter_model.safetensors is supported");
        throw IoError(weights.string() + ": not found");
    }
    attachLora(model, opts, 0, (adapterDir / "adapter_config.json").string() + ": lora");
    std::map<std::string, torch::Tensor> stored = loadSafetensors(weights);
    std::vector<std::string> problems;
    torch::NoGradGuard noGrad;
    for (NamedTensor& t : loraStateTensors(model)) {
        auto it = stored.find(t.name);
        if (it == stored.end()) {
            problems.push_back("tensor '" + t.name + "' is missing (expected shape " + c10::str(t.tensor.sizes()) +
                               ")");
            continue;
        }
        if (!it->second.sizes().equals(t.tensor.sizes()))
            problems.push_back("tensor '" + t.name + "': expected shape " + c10::str(t.tensor.sizes()) + ", found " +
                               c10::str(it->second.sizes()));
        else if (!it->second.is_floating_point())
            problems.push_back("tensor '" + t.name + "': not a floating-point tensor");
        else
            t.tensor.copy_(it->second);
        stored.erase(it);
    }
    for (const auto& [name, t] : stored)
        problems.push_back("tensor '" + name + "' does not belong to any adapted module");
    if (!problems.empty()) {
        std::string msg = weights.string() + ": the adapter does not fit " + model.info().architecture + ":";
        for (const auto& p : problems) msg += "\n  - " + p;
        throw FormatError(msg);
    }
}

void saveLoraAdapter(LanguageModel& model, const fs::path& dir, const std::string& baseModelNameOrPath) {
    HfModel& hf = hfModel(model);
    const LoraOptions* o = hf.loraOptions().get();
    if (!o) throw Error("LoRA: the model has no adapters to save");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec)) throw IoError(dir.string() + ": cannot create the adapter folder");
    bool fanInFanOut = false;
    for (const auto& l : hf.loraByParam()) fanInFanOut = fanInFanOut || (l && l->fanInFanOut);
    nlohmann::json targets;
    if (o->targetRegex && !isAllLinear(*o)) {
        targets = *o->targetRegex;
    } else if (o->targetModules.empty()) {  // PEFT writes the resolved list (defaults, or every module for all-linear)
        std::vector<std::string> names;
        if (isAllLinear(*o)) {
            for (const auto& l : hf.loraByParam())
                if (l && l->experts == 0) names.push_back(l->module);
        } else if (o->noTargetModules) {
        } else {
            names = defaultTargets(hf.info().modelType);
        }
        targets = names;
    } else {
        targets = o->targetModules;
    }
    const ModelTask task = hf.info().task;
    nlohmann::json config = {
        {"peft_type", "LORA"},
        {"task_type", task == ModelTask::CausalLM                 ? nlohmann::json("CAUSAL_LM")
                      : task == ModelTask::SequenceClassification ? nlohmann::json("SEQ_CLS")
                                                                  : nlohmann::json(nullptr)},
        {"base_model_name_or_path",
         baseModelNameOrPath.empty() ? nlohmann::json(nullptr) : nlohmann::json(baseModelNameOrPath)},
        {"revision", nullptr},
        {"inference_mode", true},
        {"r", o->r},
        {"lora_alpha", o->alpha},
        {"lora_dropout", o->dropout},
        {"target_modules", targets},
        {"target_parameters",
         o->targetParameters.empty() ? nlohmann::json(nullptr) : nlohmann::json(o->targetParameters)},
        {"exclude_modules", nullptr},
        {"bias", "none"},
        {"fan_in_fan_out", fanInFanOut},
        {"use_rslora", o->useRslora},
        {"use_dora", false},
        {"init_lora_weights", true},
        {"modules_to_save", o->modulesToSave.empty() ? nlohmann::json(nullptr) : nlohmann::json(o->modulesToSave)},
        {"layers_to_transform", nullptr},
        {"layers_pattern", nullptr},
        {"rank_pattern", patternJson(o->rankPattern)},
        {"alpha_pattern", patternJson(o->alphaPattern)},
        {"lora_bias", false},
    };
    // Float32 as PEFT keeps trainable adapter weights; weights first, so a config always has its tensors beside it.
    saveSafetensors(dir / "adapter_model.safetensors", loraStateTensors(model), {{"format", "pt"}}, torch::kFloat32);
    writeFileAtomic(dir / "adapter_config.json", config.dump(2) + "\n");
}

}  // namespace fts
