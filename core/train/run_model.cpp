// Full or LoRA model of a run (see run_model.h): loading for a fresh start or a resume.
#include "core/train/run_model.h"

#include "core/checkpoint/checkpoint.h"
#include "core/model/lora.h"
#include "core/train/training_data.h"
#include "core/util/error.h"
#include "core/zero/zero_plan.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

LoraOptions loraOptionsFrom(const LoraSection& l) {
    LoraOptions o;
    o.r = l.r;
    o.alpha = l.alpha;
    o.dropout = l.dropout;
    o.targetModules = l.targetModules;
    if (l.targetIsRegex) o.targetRegex = l.targetRegex;
    o.noTargetModules = l.noTargetModules;
    o.targetParameters = l.targetParameters;
    o.useRslora = l.useRslora;
    return o;
}

}  // namespace

std::unique_ptr<LanguageModel> loadRunModel(const TrainConfig& cfg, const fs::path& resumeDir,
                                            const ModelLoadOptions& opts, uint64_t seed) {
    const bool lora = cfg.model.lora.enabled;
    if (!resumeDir.empty() && isLoraCheckpoint(resumeDir) != lora)
        throw ConfigError(resumeDir.string() + ": this checkpoint " +
                          (lora ? "holds full model weights" : "holds a LoRA adapter") + ", but the config " +
                          (lora ? "has" : "has no") +
                          " model.lora section; resume with the config "
                          "the run was started with");
    if (!lora) {
        // A ZeRO stage 3 checkpoint holds no model.safetensors: the model comes from its source, the weights from the
        // ranks' master shards (the step engine's loadState).
        if (!resumeDir.empty() && !isZero3Checkpoint(resumeDir)) return loadPretrainedModel(resumeDir, opts);
        if (cfg.model.init == "random") return initModelFromConfig(cfg.model.path / "config.json", seed, opts);
        std::unique_ptr<LanguageModel> model = loadPretrainedModel(cfg.model.path, opts);
        if (hasQuantizedWeights(*model))
            throw ConfigError((cfg.model.path / "config.json").string() +
                              ": quantization_config: the folder holds 4-bit weights, which are frozen; train them "
                              "with model.lora (QLoRA), or start from the model's unquantized release");
        return model;
    }
    std::unique_ptr<LanguageModel> model = loadPretrainedModel(cfg.model.path, opts);
    const LoraSection& l = cfg.model.lora;
    if (!resumeDir.empty())
        loadLoraAdapter(*model, resumeDir, l.dropout);
    else if (!l.initFrom.empty())
        loadLoraAdapter(*model, l.initFrom, l.dropout);
    else
        attachLora(*model, loraOptionsFrom(l), seed);
    return model;
}

RunModel prepareRunModel(const TrainConfig& cfg, const ZeroPlan& plan, const fs::path& resumeDir, torch::Device device,
                         Communicator& comm, int64_t vocabSize, const fs::path& tokenizerFile,
                         const nlohmann::json& configPatch) {
    ModelLoadOptions loadOpts;
    loadOpts.device = device;
    if (cfg.data.classification()) {
        if (cfg.model.lora.enabled)
            throw ConfigError(
                "model.lora: LoRA with data.format \"classification\" is not supported (the fresh classifier "
                "head would have to train beside the adapters, PEFT's modules_to_save); fine-tune the full model");
        loadOpts.task = ModelTask::SequenceClassification;
        loadOpts.configPatch = configPatch;
        loadOpts.initSeed = cfg.training.seed;  // a classifier the checkpoint lacks (or re-sized) is drawn from it
    }
    // The precision's parameter dtype (ZeroPlan::modelDtype: fp16; bf16 under ZeRO 1-3; else fp32).
    static const torch::Dtype kDtype[] = {torch::kFloat32, torch::kBFloat16, torch::kFloat16};
    loadOpts.dtype = kDtype[int(plan.modelDtype())];
    // ZeRO stage 3: every tensor is cut to this rank's part as soon as it is read (or drawn), so no rank holds the
    // whole model; every rank reads the same files (or draws with the same seed), so no broadcast is needed.
    std::vector<std::vector<int64_t>> fullShapes;
    loadOpts.partition = plan.loadPartition(fullShapes);
    if (const QuantizationSection& q = cfg.model.quantization; q.enabled)  // QLoRA: the base held 4-bit
        loadOpts.quantize4bit = quant4LoadOptions(q.quantType, q.doubleQuant, q.computeDtype, q.skipModules);
    // Full weights, or a frozen base + LoRA adapters (model.lora).
    std::unique_ptr<LanguageModel> model;
    try {
        model = loadRunModel(cfg, resumeDir, loadOpts, cfg.training.seed);
    } catch (const FormatError& e) {
        const std::string what = e.what();
        if (!cfg.data.classification() || what.find("'classifier.") == std::string::npos) throw;
        const int64_t labels = configPatch.contains("id2label") ? int64_t(configPatch["id2label"].size()) : 0;
        throw FormatError(what + "\n  the data has " + std::to_string(labels) +
                          " label(s) (data.format \"classification\"), "
                          "the checkpoint's classifier another number: start from a model folder without a classifier "
                          "head (the base model) or one trained on the same labels");
    }
    // bf16 LoRA at stage 0 holds the frozen base in bf16 with no master copy: modules_to_save train in float32
    if (plan.lora() && plan.stage() == 0 && plan.modelDtype() == ParamDtype::BFloat16)
        trainBaseModulesInFloat32(*model);
    model->setActivationCheckpointing(cfg.model.activationCheckpointing);  // docs/models.md
    checkModelForData(cfg.data, *model);
    if (vocabSize > model->info().vocabSize)
        throw ConfigError(tokenizerFile.string() + ": the tokenizer has " + std::to_string(vocabSize) +
                          " tokens but the model's vocab_size is " + std::to_string(model->info().vocabSize));
    const std::vector<torch::Tensor> params = trainableTensors(*model);
    if (comm.worldSize() > 1 &&
        !plan.partitionsOnLoad()) {  // every rank starts from rank 0's weights, whatever it loaded
        torch::NoGradGuard noGrad;
        std::vector<torch::Tensor> flat;
        for (const auto& t : params) flat.push_back(t.detach().reshape({-1}));
        torch::Tensor all = torch::cat(flat);
        comm.broadcast(all, 0);
        int64_t off = 0;
        for (const auto& t : params) {
            t.detach().copy_(all.narrow(0, off, t.numel()).view(t.sizes()));
            off += t.numel();
        }
    }
    return {std::move(model), std::move(fullShapes)};
}

}  // namespace fts
