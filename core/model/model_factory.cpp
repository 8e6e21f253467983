// Builds models from Hugging Face folders: the model_type registry, checkpoint discovery (single file or
// sharded index), validation of the weights against config.json, seeded init, and saving back to HF layout.
// Invariant: a model is returned only when every parameter was found with its expected shape.
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <set>

#include "core/model/activation_checkpoint.h"
#include "core/model/bert.h"
#include "core/model/gpt2.h"
#include "core/model/decoder.h"
#include "core/model/hf_model.h"
#include "core/model/lora.h"
#include "core/model/mxfp4.h"
#include "core/model/quant4bit.h"
#include "core/model/safetensors_torch.h"
#include "core/weights/model_weights.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/shape_text.h"

namespace fts {
namespace fs = std::filesystem;

// ---- registry --------------------------------------------------------------------------------------------

namespace {

struct ArchitectureEntry {
    std::string_view modelType;
    std::unique_ptr<HfModel> (*build)(const HfConfig&, const ModelLoadOptions&);
};
// The architectures with their own code (model_type as config.json spells it); every decoder family of
// core/arch/decoder_family.cpp builds through buildDecoder.
constexpr ArchitectureEntry kArchitectures[] = {
    {"gpt2", &buildGpt2},
    {"bert", &buildBert},
};

std::string joined(const std::vector<std::string>& items, const std::string& sep) {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
    return s;
}

}  // namespace

std::vector<std::string> supportedModelTypes() {
    std::vector<std::string> out{"gpt2"};
    for (const auto& f : decoderFamilies()) out.emplace_back(f.modelType);
    out.emplace_back("bert");
    return out;
}

std::unique_ptr<HfModel> buildModelFromConfig(const HfConfig& config, const ModelLoadOptions& opts) {
    const std::string supported = joined(supportedModelTypes(), ", ");
    if (!config.has({"model_type"})) config.fail("model_type", "missing (supported model types: " + supported + ")");
    const std::string type = config.requireString({"model_type"});
    for (const auto& a : kArchitectures)
        if (a.modelType == type) return a.build(config, opts);
    if (isDecoderFamily(type)) return buildDecoder(config, opts);
    config.fail("model_type", "unsupported model type \"" + type + "\" (supported: " + supported + ")");
}

// ---- HfModel ---------------------------------------------------------------------------------------------

bool HfModel::isIgnoredCheckpointTensor(const std::string&) const { return false; }

torch::Tensor HfModel::runBlock(const std::function<torch::Tensor(const torch::Tensor&)>& block, const torch::Tensor& h,
                                size_t firstParam, size_t count) const {
    if (m_blockRunner) return m_blockRunner(block, h, firstParam, count);
    if (!m_activationCheckpointing) return block(h);
    std::vector<torch::Tensor> params;
    for (size_t k = firstParam; k < firstParam + count && k < m_params.size(); ++k) {
        if (!quantized(k)) params.push_back(m_params[k].tensor);  // a 4-bit weight is frozen: no gradient to replay
        if (k < m_lora.size() &&
            m_lora[k]) {  // adapters are read by the block too: their gradients come from the replay
            params.push_back(m_lora[k]->a);
            params.push_back(m_lora[k]->b);
        }
    }
    return checkpointedBlock(block, h, params);
}

void HfModel::setParameters(std::vector<torch::Tensor> tensors, bool partitioned) {
    if (tensors.size() != m_specs.size())
        throw Error(m_info.architecture + ": expected " + std::to_string(m_specs.size()) + " parameters, got " +
                    std::to_string(tensors.size()));
    m_params.clear();
    m_params.reserve(tensors.size());
    int64_t count = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
        torch::Tensor t = tensors[i].detach();
        if (!partitioned && !t.sizes().equals(m_specs[i].shape))
            throw Error(m_specs[i].name + ": expected shape " + shapeText(m_specs[i].shape) + ", got " +
                        shapeText(t.sizes().vec()));
        t.requires_grad_(true);
        int64_t numel = 1;
        for (int64_t d : m_specs[i].shape) numel *= d;
        count += numel;
        m_params.push_back({m_specs[i].name, std::move(t)});
    }
    m_info.numParameters = count;
}

namespace {

// A float32 CPU tensor drawn by the spec's init rule on `gen`.
torch::Tensor initTensor(const ParamSpec& spec, at::Generator& gen) {
    torch::Tensor t = torch::empty(spec.shape, torch::kFloat32);
    switch (spec.init) {
        case ParamInit::Normal:
            t.normal_(0.0, spec.stddev, gen);
            break;
        case ParamInit::Zeros:
            t.zero_();
            break;
        case ParamInit::Ones:
            t.fill_(1.0);
            break;
    }
    return t;
}

// config.json with ModelLoadOptions::configPatch applied (its top-level keys replace config.json's; null removes).
HfConfig loadPatchedConfig(const fs::path& configJson, const ModelLoadOptions& opts) {
    HfConfig config = HfConfig::load(configJson);
    if (opts.configPatch.is_null() || opts.configPatch.empty()) return config;
    nlohmann::json j = config.json();
    for (const auto& [key, value] :
         opts.configPatch.items()) {  // top-level keys replaced whole (id2label is not merged)
        if (value.is_null())
            j.erase(key);
        else
            j[key] = value;
    }
    return HfConfig(std::move(j), configJson.string());
}

// transformers' rule for llm_int8_skip_modules (and the output head it adds): a module whose dotted name contains
// one of the names stays unquantized.
bool skippedModule(const std::string& paramName, const std::vector<std::string>& skip) {
    for (const auto& s : skip)
        if (!s.empty() && paramName.find(s) != std::string::npos) return true;
    return false;
}

// Whether the spec's weight is held 4-bit when model.quantization asks: the weights of Linear and Conv1D layers,
// not the output head's (lm_head, classifier: bitsandbytes' integration leaves them), not skipped ones.
bool quantizedOnLoad(const ParamSpec& spec, const Quant4LoadOptions& q) {
    return (spec.layer == LayerKind::Linear || spec.layer == LayerKind::Conv1D) && !spec.outputHead &&
           !skippedModule(spec.name, q.skipModules);
}

// The name suffixes transformers saves beside a 4-bit weight (quant4bit.h), and the quant_state key present.
const char* const kQuantSuffixes[] = {".absmax",
                                      ".quant_map",
                                      ".nested_absmax",
                                      ".nested_quant_map",
                                      ".quant_state.bitsandbytes__nf4",
                                      ".quant_state.bitsandbytes__fp4"};
bool savedQuantized(const ModelWeights& ck, const std::string& name) {
    return ck.tensors.count(name + ".quant_state.bitsandbytes__nf4") ||
           ck.tensors.count(name + ".quant_state.bitsandbytes__fp4");
}

// config.json's bnb_4bit_compute_dtype of a folder saved 4-bit (float32 when absent, as BitsAndBytesConfig).
torch::Dtype savedComputeDtype(const HfConfig& config) {
    const nlohmann::json& q = config.json().at("quantization_config");
    const std::string name = q.value("bnb_4bit_compute_dtype", std::string("float32"));
    if (name == "bfloat16") return torch::kBFloat16;
    if (name == "float16") return torch::kFloat16;
    return torch::kFloat32;
}

Quant4Weight onDevice(Quant4Weight q, const torch::Device& device) {
    q.packed = q.packed.to(device);
    q.absmax = q.absmax.to(device);
    if (q.nested()) {
        q.nestedAbsmax = q.nestedAbsmax.to(device);
        q.nestedCode = q.nestedCode.to(device);
    }
    return q;
}

void checkLoadOptions(const ModelLoadOptions& opts) {
    if (!c10::isFloatingType(opts.dtype))
        throw Error(std::string("model parameters need a floating-point dtype, got ") + c10::toString(opts.dtype));
}

}  // namespace

// ---- public entry points ---------------------------------------------------------------------------------

Quant4LoadOptions quant4LoadOptions(const std::string& quantType, bool doubleQuant, const std::string& computeDtype,
                                    std::vector<std::string> skipModules) {
    Quant4LoadOptions o;
    o.fp4 = quantType == "fp4";
    o.doubleQuant = doubleQuant;
    o.computeDtype = computeDtype == "bfloat16"  ? torch::kBFloat16
                     : computeDtype == "float16" ? torch::kFloat16
                                                 : torch::kFloat32;
    o.skipModules = std::move(skipModules);
    return o;
}

namespace {

// Where a parameter is in the checkpoint: one tensor, or the pieces it is stored in (ParamSpec::pieces); neither
// when it starts fresh.
struct TensorSource {
    const WeightTensor* whole = nullptr;
    std::vector<std::pair<const WeightTensor*, const StoredPiece*>> pieces;
    const WeightTensor *blocks = nullptr, *scales = nullptr;  // MXFP4 (ParamSpec::mxfp4)
    bool found() const { return whole || !pieces.empty() || blocks; }
};

// A spec that may be saved in MXFP4: its <name>_blocks and <name>_scales under any of its names. False when the
// checkpoint has neither.
bool matchMxfp4(const ParamSpec& spec, const std::vector<std::string>& names, const ModelWeights& ck,
                TensorSource& source, std::set<std::string>& used, std::vector<std::string>& problems) {
    for (const std::string& name : names) {
        const auto blocks = ck.tensors.find(name + "_blocks"), scales = ck.tensors.find(name + "_scales");
        if (blocks == ck.tensors.end() && scales == ck.tensors.end()) continue;
        if (blocks == ck.tensors.end() || scales == ck.tensors.end()) {
            problems.push_back("tensor '" + name + (blocks == ck.tensors.end() ? "_blocks" : "_scales") +
                               "' is missing (MXFP4 weights are saved as <name>_blocks and <name>_scales; " +
                               spec.shapeFrom + ")");
            return true;
        }
        source.blocks = &blocks->second;
        source.scales = &scales->second;
        used.insert(name + "_blocks");
        used.insert(name + "_scales");
        return true;
    }
    return false;
}

// A spec the checkpoint holds in pieces: every piece found with the shape of its rows, else the problems. Returns
// false when the checkpoint has none of the pieces (the spec is then simply missing).
bool matchPieces(const ParamSpec& spec, const ModelWeights& ck, TensorSource& source, std::set<std::string>& used,
                 std::vector<std::string>& problems) {
    std::vector<std::string> missing;
    for (const StoredPiece& piece : spec.pieces) {
        auto it = ck.tensors.find(piece.name);
        if (it == ck.tensors.end()) {
            missing.push_back(piece.name);
            continue;
        }
        source.pieces.emplace_back(&it->second, &piece);
    }
    if (source.pieces.empty()) return false;
    if (!missing.empty()) {
        problems.push_back("tensor '" + spec.name + "' (" + spec.shapeFrom + ") is stored in pieces, " +
                           std::to_string(missing.size()) + " of them missing: '" + missing.front() + "'" +
                           (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) + " more" : ""));
        source.pieces.clear();
        return true;
    }
    for (const auto& [t, piece] : source.pieces) {
        used.insert(piece->name);
        const std::vector<int64_t> want{piece->rows, spec.shape.back()};
        if (t->entry->shape != want)
            problems.push_back("tensor '" + piece->name + "': expected shape " + shapeText(want) + " (a piece of " +
                               spec.name + ", " + spec.shapeFrom + " from config.json), found " +
                               shapeText(t->entry->shape) + " in " + t->file->path().string());
        else if (!c10::isFloatingType(toTorchDtype(t->entry->dtype)))
            problems.push_back("tensor '" + piece->name + "': dtype " + std::string(dtypeName(t->entry->dtype)) +
                               " in " + t->file->path().string() + " is not a floating-point type");
    }
    return true;
}

// Every parameter spec matched to a checkpoint tensor (its name, an alias, or its pieces), in the specs' order; empty
// where a spec may start fresh (noted in the model's load warnings). All problems are collected before failing: a
// missing tensor, a shape or dtype unlike config.json's, and (strict) a tensor the model does not use.
std::vector<TensorSource> matchCheckpointTensors(HfModel& model, const ModelWeights& ck, bool folderQuantized,
                                                 const ModelLoadOptions& opts, const fs::path& dir) {
    std::vector<std::string> problems;
    std::vector<TensorSource> sources;
    std::set<std::string> used;
    for (const ParamSpec& spec : model.parameterSpecs()) {
        const WeightTensor* found = nullptr;
        std::string foundName;
        std::vector<std::string> candidates{spec.name};
        candidates.insert(candidates.end(), spec.aliases.begin(), spec.aliases.end());
        for (const std::string& name : candidates) {
            auto it = ck.tensors.find(name);
            if (it != ck.tensors.end()) {
                found = &it->second;
                foundName = name;
                break;
            }
        }
        sources.push_back({found, {}});
        if (!found && !spec.pieces.empty() && matchPieces(spec, ck, sources.back(), used, problems)) continue;
        if (!found && spec.mxfp4 && matchMxfp4(spec, candidates, ck, sources.back(), used, problems)) continue;
        if (!found && spec.initIfMissing) {
            model.mutableInfo().loadWarnings.push_back("tensor '" + spec.name +
                                                       "' is not in the checkpoint: newly initialised");
            continue;
        }
        if (!found) {
            problems.push_back(
                "tensor '" + spec.name + "' is missing (expected shape " + shapeText(spec.shape) + " = " +
                spec.shapeFrom +
                (spec.pieces.empty() ? "" : ", or in pieces such as '" + spec.pieces.front().name + "'") + ")");
            continue;
        }
        used.insert(foundName);
        if (folderQuantized && savedQuantized(ck, foundName)) {  // the packed codes: checked when they are read
            for (const char* suffix : kQuantSuffixes) used.insert(foundName + suffix);
            continue;
        }
        const TensorEntry& e = *found->entry;
        if (e.shape != spec.shape)
            problems.push_back("tensor '" + foundName + "': expected shape " + shapeText(spec.shape) + " (" +
                               spec.shapeFrom + " from config.json), found " + shapeText(e.shape) + " in " +
                               found->file->path().string());
        else if (!c10::isFloatingType(toTorchDtype(e.dtype)))
            problems.push_back("tensor '" + foundName + "': dtype " + std::string(dtypeName(e.dtype)) + " in " +
                               found->file->path().string() + " is not a floating-point type");
    }
    ModelInfo& info = model.mutableInfo();
    for (const auto& [name, t] : ck.tensors) {
        if (used.count(name) || model.isIgnoredCheckpointTensor(name)) continue;
        std::string msg =
            "tensor '" + name + "' in " + t.file->path().string() + " is not used by " + info.architecture;
        if (opts.strict)
            problems.push_back(msg);
        else
            info.loadWarnings.push_back(msg + " (ignored)");
    }
    if (!problems.empty())
        throw FormatError(dir.string() + ": the weights in " + ck.description + " do not match " +
                          (dir / "config.json").string() + " (model_type \"" + info.modelType + "\"):\n  - " +
                          joined(problems, "\n  - "));
    return sources;
}

// A parameter read in the run's dtype on the load's device: its tensor, or its pieces put in place.
torch::Tensor readParameter(const TensorSource& src, const ParamSpec& spec, const ModelLoadOptions& opts) {
    if (src.whole) return loadTensorReleasing(src.whole->file, *src.whole->entry, opts.dtype, opts.device);
    if (src.blocks) {
        const std::string name = src.blocks->entry->name.substr(0, src.blocks->entry->name.size() - 7);  // _blocks
        torch::Tensor t = dequantizeMxfp4(tensorView(src.blocks->file, *src.blocks->entry),
                                          tensorView(src.scales->file, *src.scales->entry), opts.dtype, name);
        if (!t.sizes().equals(spec.shape))
            throw FormatError(src.blocks->file->path().string() + ": tensor '" + name + "' (MXFP4) dequantizes to " +
                              shapeText(t.sizes().vec()) + ", expected " + shapeText(spec.shape) + " (" +
                              spec.shapeFrom + " from config.json)");
        return t.to(opts.device);
    }
    torch::Tensor t = torch::empty(spec.shape, torch::TensorOptions().dtype(opts.dtype).device(opts.device));
    for (const auto& [w, piece] : src.pieces)
        t.select(0, piece->expert)
            .narrow(0, piece->row, piece->rows)
            .copy_(loadTensorReleasing(w->file, *w->entry, opts.dtype, opts.device));
    return t;
}

// A weight the folder holds 4-bit (bitsandbytes' packed codes and quant_state), on the load's device.
Quant4Weight readSavedQuant4(const WeightTensor& src, const ParamSpec& spec, const ModelWeights& ck,
                             const ModelLoadOptions& opts) {
    const std::string file = src.file->path().string();
    std::optional<Quant4Weight> q = readQuant4Weight(
        src.entry->name,
        [&](const std::string& name) {
            auto it = ck.tensors.find(name);
            return it == ck.tensors.end() ? torch::Tensor() : tensorView(it->second.file, *it->second.entry).clone();
        },
        file);
    if (!q) throw FormatError(file + ": tensor '" + src.entry->name + "' has no 4-bit quant_state");
    // transformers holds a quantized Conv1D weight (in, out) transposed, as the Linear it becomes
    std::vector<int64_t> want = spec.shape;
    if (spec.layer == LayerKind::Conv1D && want.size() == 2) std::swap(want[0], want[1]);
    if (q->shape != want)
        throw FormatError(file + ": tensor '" + src.entry->name + "' holds a 4-bit weight of shape " +
                          shapeText(q->shape) + ", expected " + shapeText(want) + " (" + spec.shapeFrom +
                          " from config.json)");
    return onDevice(std::move(*q), opts.device);
}

// A weight quantized as it loads (model.quantization): read in the run's dtype on the CPU, quantized, only the 4-bit
// form kept, one weight at a time.
Quant4Weight quantizeOnLoad(const WeightTensor& src, const ParamSpec& spec, const ModelLoadOptions& opts) {
    torch::Tensor w = loadTensorReleasing(src.file, *src.entry, opts.dtype, torch::kCPU);
    if (spec.layer == LayerKind::Conv1D) w = w.t().contiguous();
    return onDevice(
        quantize4bit(w, opts.quantize4bit->fp4 ? Quant4Type::Fp4 : Quant4Type::Nf4, 64, opts.quantize4bit->doubleQuant),
        opts.device);
}

}  // namespace

std::unique_ptr<LanguageModel> loadPretrainedModel(const fs::path& dir, const ModelLoadOptions& opts) {
    checkLoadOptions(opts);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw IoError(dir.string() + ": not a directory (expected a Hugging Face model folder)");
    const HfConfig config = loadPatchedConfig(dir / "config.json", opts);
    std::unique_ptr<HfModel> model = buildModelFromConfig(config, opts);
    const ModelWeights ck = openModelWeights(dir);
    // 4-bit weights: those the folder holds 4-bit (config.json's quantization_config, checked by HfConfig::load),
    // and with model.quantization those quantized as they load.
    const bool folderQuantized = savedFourBit(config.json());
    const std::vector<TensorSource> sources = matchCheckpointTensors(*model, ck, folderQuantized, opts, dir);

    std::vector<torch::Tensor> tensors;
    tensors.reserve(sources.size());
    std::vector<std::shared_ptr<Quant4Weight>> quant(sources.size());
    {
        torch::NoGradGuard noGrad;
        auto gen = at::make_generator<at::CPUGeneratorImpl>(opts.initSeed);
        const auto& specs = model->parameterSpecs();
        for (size_t i = 0; i < sources.size(); ++i) {
            const WeightTensor* src = sources[i].whole;  // a tensor stored whole (4-bit ones are)
            const ParamSpec& spec = specs[i];
            const bool savedFourBit = src && folderQuantized && savedQuantized(ck, src->entry->name);
            if (savedFourBit || (src && opts.quantize4bit && quantizedOnLoad(spec, *opts.quantize4bit))) {
                quant[i] = std::make_shared<Quant4Weight>(savedFourBit ? readSavedQuant4(*src, spec, ck, opts)
                                                                       : quantizeOnLoad(*src, spec, opts));
                // its entry in parameters(): its shape, no memory
                tensors.push_back(
                    torch::empty(spec.shape, torch::TensorOptions().dtype(opts.dtype).device(torch::kMeta)));
                continue;
            }
            // Converted chunk by chunk; the mapped source pages leave the resident set as they are copied.
            torch::Tensor t =
                sources[i].found()
                    ? readParameter(sources[i], spec, opts)
                    : initTensor(spec, gen).to(torch::TensorOptions().dtype(opts.dtype).device(opts.device));
            tensors.push_back(opts.partition ? opts.partition(i, t) : t);  // stage 3: only this rank's part is kept
        }
    }
    const bool anyQuantized = std::any_of(quant.begin(), quant.end(), [](const auto& q) { return q != nullptr; });
    if (anyQuantized && opts.partition)
        throw ConfigError(dir.string() +
                          ": 4-bit weights cannot be partitioned by ZeRO stage 3 in this version; use "
                          "stage 0-2 (deepspeed.zero_optimization.stage)");
    model->setParameters(std::move(tensors), bool(opts.partition));
    if (anyQuantized)
        model->setQuant4(std::move(quant),
                         opts.quantize4bit ? opts.quantize4bit->computeDtype : savedComputeDtype(config));
    return model;
}

std::unique_ptr<LanguageModel> initModelFromConfig(const fs::path& configJson, uint64_t seed,
                                                   const ModelLoadOptions& opts) {
    checkLoadOptions(opts);
    const HfConfig config = loadPatchedConfig(configJson, opts);
    std::unique_ptr<HfModel> model = buildModelFromConfig(config, opts);
    // Draws on a private CPU generator in float32, so the weights depend on the seed only (not device/dtype).
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    std::vector<torch::Tensor> tensors;
    torch::NoGradGuard noGrad;
    for (const ParamSpec& spec : model->parameterSpecs()) {
        torch::Tensor t = initTensor(spec, gen).to(torch::TensorOptions().dtype(opts.dtype).device(opts.device));
        tensors.push_back(opts.partition ? opts.partition(tensors.size(), t) : t);  // stage 3: only this rank's part
    }
    model->setParameters(std::move(tensors), bool(opts.partition));
    return model;
}

std::string torchDtypeConfigName(torch::Dtype dtype) {
    switch (dtype) {
        case torch::kFloat32:
            return "float32";
        case torch::kFloat16:
            return "float16";
        case torch::kBFloat16:
            return "bfloat16";
        case torch::kFloat64:
            return "float64";
        default:
            throw Error(std::string("saveHfModel: unsupported dtype ") + c10::toString(dtype) +
                        " (use float32, float16 or bfloat16)");
    }
}

namespace {

// The tensors as transformers saves them: a parameter with stored pieces (stacked experts) as those pieces.
std::vector<NamedTensor> storedTensors(LanguageModel& model) {
    const auto* hf = dynamic_cast<const HfModel*>(&model);
    std::vector<NamedTensor> out;
    const std::vector<NamedTensor>& params = model.parameters();
    for (size_t i = 0; i < params.size(); ++i) {
        const ParamSpec* spec = hf ? &hf->parameterSpecs().at(i) : nullptr;
        if (!spec || spec->pieces.empty()) {
            out.push_back(params[i]);
            continue;
        }
        const torch::Tensor t = params[i].tensor.detach();
        for (const StoredPiece& piece : spec->pieces)
            out.push_back({piece.name, t.select(0, piece.expert).narrow(0, piece.row, piece.rows).contiguous()});
    }
    return out;
}

}  // namespace

void saveHfModel(LanguageModel& model, const fs::path& dir, torch::Dtype dtype) {
    const std::string dtypeName = torchDtypeConfigName(dtype);
    const ModelInfo& info = model.info();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec)) throw IoError(dir.string() + ": cannot create the output folder");
    if (hasQuantizedWeights(model))
        throw Error("saveHfModel: the model holds 4-bit weights; merge or dequantize them first (mergeLora)");
    nlohmann::json config = info.hfConfig.is_object() ? info.hfConfig : nlohmann::json::object();
    config.erase("quantization_config");  // the weights written are plain floats (a 4-bit source was dequantized)
    config["torch_dtype"] = dtypeName;
    if (config.contains("dtype")) config["dtype"] = dtypeName;  // transformers 5 spells it "dtype"
    if (!info.architecture.empty()) config["architectures"] = nlohmann::json::array({info.architecture});
    if (!info.modelType.empty()) config["model_type"] = info.modelType;
    // Weights first: a folder whose config.json is new always has matching weights next to it.
    saveSafetensors(dir / "model.safetensors", storedTensors(model), {{"format", "pt"}}, dtype);
    writeFileAtomic(dir / "config.json", config.dump(2) + "\n");
}

}  // namespace fts
