// Full or LoRA model of a run (see run_model.h): loading for a fresh start or a resume, checkpoint contents,
// export of LoRA checkpoints (merged + adapter/, or the adapter alone).
#include "core/train/run_model.h"

#include "core/model/lora.h"
#include "core/train/training_data.h"
#include "core/zero/step_engine.h"
#include "core/train/zero3_checkpoint.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

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
    o.useRslora = l.useRslora;
    return o;
}

// The run's training config as stored in a checkpoint's trainer_state.json (null when absent).
nlohmann::json storedTrainConfig(const fs::path& checkpointDir) {
    std::error_code ec;
    if (!fs::is_regular_file(checkpointDir / "trainer_state.json", ec)) return nullptr;
    try {
        auto st = parseJson(readFile(checkpointDir / "trainer_state.json"));
        return st.contains("train_config") ? st["train_config"] : nlohmann::json(nullptr);
    } catch (const nlohmann::json::exception&) {
        return nullptr;
    }
}

void copyTokenizerFiles(const fs::path& from, const fs::path& to) {
    for (const char* f : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
        if (fs::exists(from / f)) writeFileAtomic(to / f, readFile(from / f));
}

}  // namespace

bool isLoraCheckpoint(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "adapter_config.json", ec) && !fs::exists(dir / "model.safetensors", ec);
}

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
        return loadPretrainedModel(cfg.model.path, opts);
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

void addModelToCheckpoint(LanguageModel& model, const TrainConfig& cfg, CheckpointContents& c) {
    if (!hasLora(model)) {
        for (auto& p : model.parameters()) c.modelTensors.emplace_back(p.name, p.tensor);
        return;
    }
    const std::string base = cfg.model.path.string();
    LanguageModel* m = &model;
    c.writeExtra = [m, base](const fs::path& dir) { saveLoraAdapter(*m, dir, base); };
}

void exportLoraCheckpoint(const fs::path& checkpointDir, const fs::path& outDir, torch::Dtype dtype) {
    readLoraAdapterConfig(checkpointDir);  // validates the adapter before anything is written
    const nlohmann::json cfg = parseJson(readFile(checkpointDir / "adapter_config.json"));
    const std::string base = cfg.value("base_model_name_or_path", nlohmann::json(nullptr)).is_string()
                                 ? cfg["base_model_name_or_path"].get<std::string>()
                                 : std::string();
    bool merge = true;
    const nlohmann::json tc = storedTrainConfig(checkpointDir);
    if (tc.is_object() && tc.contains("model") && tc["model"].is_object() && tc["model"].contains("lora") &&
        tc["model"]["lora"].is_object() && tc["model"]["lora"].contains("merge_on_export") &&
        tc["model"]["lora"]["merge_on_export"].is_boolean())
        merge = tc["model"]["lora"]["merge_on_export"].get<bool>();
    std::error_code ec;
    fs::create_directories(outDir, ec);
    const fs::path adapterOut = merge ? outDir / "adapter" : outDir;
    fs::create_directories(adapterOut, ec);
    for (const char* f : {"adapter_config.json", "adapter_model.safetensors"})
        writeFileAtomic(adapterOut / f, readFile(checkpointDir / f));
    copyTokenizerFiles(checkpointDir, adapterOut);
    if (!merge) return;
    // A folder with adapter_config.json at its top is taken for an adapter by transformers: drop one a previous
    // adapter-only export left here.
    for (const char* f : {"adapter_config.json", "adapter_model.safetensors"}) fs::remove(outDir / f, ec);
    if (base.empty() || !fs::is_directory(base, ec))
        throw IoError((checkpointDir / "adapter_config.json").string() + ": base_model_name_or_path \"" + base +
                      "\" is not a model folder; the merged export needs the base model the adapter was trained on");
    ModelLoadOptions o;
    auto model = loadPretrainedModel(base, o);
    loadLoraAdapter(*model, checkpointDir);
    mergeLora(*model);
    saveHfModel(*model, outDir, dtype);
    copyTokenizerFiles(checkpointDir, outDir);
}

RunModel prepareRunModel(const TrainConfig& cfg, const fs::path& resumeDir, torch::Device device, Communicator& comm,
                         int64_t vocabSize, const fs::path& tokenizerFile, const nlohmann::json& configPatch) {
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
    // fp16: fp16 parameters with fp32 masters in the step engine (DeepSpeed's fp16). bf16: under ZeRO 1/2 the
    // parameters are bf16 and the fp32 masters live in the optimizer partition (DeepSpeed's bf16 with ZeRO); at
    // stage 0 the parameters stay fp32 under bf16 autocast.
    if (cfg.deepspeed.fp16.enabled) loadOpts.dtype = torch::kFloat16;
    if (cfg.deepspeed.bf16 && cfg.deepspeed.zeroStage > 0) loadOpts.dtype = torch::kBFloat16;
    // ZeRO stage 3: every tensor is cut to this rank's part as soon as it is read (or drawn), so no rank holds the
    // whole model; every rank reads the same files (or draws with the same seed), so no broadcast is needed.
    std::vector<std::vector<int64_t>> fullShapes;
    if (cfg.deepspeed.zeroStage == 3 && !cfg.model.lora.enabled)
        loadOpts.partition = [&fullShapes, &cfg, rank = comm.rank(), world = comm.worldSize()](
                                 size_t i, const torch::Tensor& full) {
            if (fullShapes.size() <= i) fullShapes.resize(i + 1);
            fullShapes[i] = full.sizes().vec();
            return stage3RankPart(full, rank, world, cfg.deepspeed);
        };
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
    model->setActivationCheckpointing(cfg.model.activationCheckpointing);  // docs/models.md
    checkModelForData(cfg.data, *model);
    if (vocabSize > model->info().vocabSize)
        throw ConfigError(tokenizerFile.string() + ": the tokenizer has " + std::to_string(vocabSize) +
                          " tokens but the model's vocab_size is " + std::to_string(model->info().vocabSize));
    const std::vector<torch::Tensor> params = trainableTensors(*model);
    if (comm.worldSize() > 1 && fullShapes.empty()) {  // every rank starts from rank 0's weights, whatever it loaded
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
