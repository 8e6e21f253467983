// A run's checkpoints: save and resume (see checkpoint.h). The ZeRO layout comes from the run's plan; a LoRA model
// enters as its PEFT adapter.
#include <torch/torch.h>

#include <algorithm>
#include <mutex>

#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/checkpoint_folder.h"
#include "core/data/block_sampler.h"
#include "core/dist/communicator.h"
#include "core/model/language_model.h"
#include "core/model/lora.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/owner_only.h"
#include "core/zero/step_engine.h"
#include "core/zero/zero_plan.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> tokenizerFilesFor(const fs::path& tokenizerJson) {
    std::vector<fs::path> files{tokenizerJson};
    for (const char* extra : {"tokenizer_config.json", "special_tokens_map.json"}) {
        fs::path p = tokenizerJson.parent_path() / extra;
        if (fs::exists(p)) files.push_back(p);
    }
    return files;
}

TensorList rngState(torch::Device device) {
    TensorList out;
    out.emplace_back("cpu", at::detail::getDefaultCPUGenerator().get_state());
    if (device.is_cuda()) out.emplace_back("cuda", at::globalContext().defaultGenerator(device).get_state());
    return out;
}

nlohmann::json samplerRanksJson(const torch::Tensor& all, int worldSize) {
    nlohmann::json rows = nlohmann::json::array();
    auto a = all.accessor<int64_t, 1>();
    for (int r = 0; r < worldSize; ++r) rows.push_back({a[2 * r], a[2 * r + 1]});
    return rows;
}

// Restores this rank's generators: "<gen>_rank<r>" for rank r > 0, "<gen>" for rank 0 (and old checkpoints).
void restoreRngState(const TensorList& tensors, torch::Device device, int rank) {
    const std::string suffix = rank == 0 ? "" : "_rank" + std::to_string(rank);
    bool haveRank = false;
    for (const auto& [n, t] : tensors) haveRank |= !suffix.empty() && n.size() > suffix.size() && n.ends_with(suffix);
    for (const auto& [stored, t] : tensors) {
        std::string name = stored;
        if (haveRank) {
            if (!name.ends_with(suffix)) continue;
            name = name.substr(0, name.size() - suffix.size());
        } else if (name.find("_rank") != std::string::npos) {
            continue;
        }
        if (name != "cpu" && !(name == "cuda" && device.is_cuda())) continue;
        // A Generator is a shared handle: setting the state on a copy sets the process-wide generator.
        at::Generator gen =
            name == "cpu" ? at::detail::getDefaultCPUGenerator() : at::globalContext().defaultGenerator(device);
        std::lock_guard<std::mutex> lock(gen.mutex());
        gen.set_state(t);
    }
}

// The model part of a checkpoint: HF tensors, or (LoRA) the adapter files in PEFT's format, written into the folder
// being built (base_model_name_or_path: the base folder the run loaded).
void addModelToCheckpoint(LanguageModel& model, const TrainConfig& cfg, CheckpointContents& c) {
    if (!hasLora(model)) {
        for (auto& p : model.parameters()) c.modelTensors.emplace_back(p.name, p.tensor);
        return;
    }
    const std::string base = cfg.model.path.string();
    LanguageModel* m = &model;
    c.writeExtra = [m, base](const fs::path& dir) { saveLoraAdapter(*m, dir, base); };
}

}  // namespace

fs::path saveRunCheckpoint(const RunParts& run, const BlockSampler& sampler, const LoopCounters& counters) {
    const TrainConfig& cfg = run.cfg;
    Communicator& comm = run.comm;
    const int rank = comm.rank(), worldSize = comm.worldSize();
    StepEngine& engine = run.engine;
    const int64_t atStep = counters.step;
    // Every rank's sampler position and RNG reach rank 0, which writes the one (replicated) checkpoint.
    auto samplerRows = torch::tensor({sampler.state().epoch, sampler.state().position}, torch::kInt64);
    auto samplerAll = torch::empty({2 * worldSize}, torch::kInt64);
    comm.allGather(samplerAll, samplerRows);
    TensorList myRng = rngState(run.device);
    std::vector<TensorList> rngAll(static_cast<size_t>(worldSize));
    for (auto& [name, t] : myRng) {
        auto all = torch::empty({t.numel() * worldSize}, t.options());
        torch::Tensor flat = t.contiguous().view({-1});
        comm.allGather(all, flat);
        for (int r = 0; r < worldSize; ++r)
            rngAll[size_t(r)].emplace_back(name, all.narrow(0, r * t.numel(), t.numel()).clone());
    }
    // ZeRO: every rank writes its own optimizer shard (atomically) where rank 0 moves it into the checkpoint.
    const fs::path shardDir = cfg.training.outputDir / "checkpoints" / (checkpointDirName(atStep) + ".tmp-shards");
    // Each shard's xxh3-64, computed as it was written, reaches rank 0 for the checkpoint's checksums.json.
    auto shardSums = torch::zeros({worldSize}, torch::kInt64);
    if (run.plan.shardedCheckpoints()) {
        createOwnerOnlyDirectory(shardDir.parent_path());  // "checkpoints" may not exist yet on this host
        fs::create_directories(shardDir);
        const uint64_t sum = writeTensorFile(shardDir / optimizerShardName(rank), engine.stateTensors());
        auto mine = torch::tensor({static_cast<int64_t>(sum)}, torch::kInt64);
        comm.allGather(shardSums, mine);
    }
    if (rank != 0) {
        comm.barrier();  // rank 0 has written the checkpoint
        return {};
    }
    CheckpointContents c;
    c.hfConfig = run.model.info().hfConfig;
    nlohmann::json partition;  // null unless the weights are the ranks' master shards
    if (run.plan.checkpointHoldsModel()) {
        addModelToCheckpoint(run.model, cfg, c);  // the weights, or the LoRA adapter (also at stage 3)
    } else {  // stage 3: no model.safetensors; the weights are the ranks' master shards (core/zero/zero3_export.h)
        partition = engine.partition();
        partition["architecture"] = run.model.info().architecture;
        partition["model_type"] = run.model.info().modelType;
    }
    if (run.plan.shardedCheckpoints()) {
        for (int r = 0; r < worldSize; ++r) {
            c.movedIn.push_back(shardDir / optimizerShardName(r));
            c.movedInChecksums[optimizerShardName(r)] = static_cast<uint64_t>(shardSums[r].item<int64_t>());
        }
    } else {
        c.optimizerTensors = engine.stateTensors();
    }
    for (int r = 0; r < worldSize; ++r)
        for (auto& [name, t] : rngAll[size_t(r)])
            c.rngTensors.emplace_back(r == 0 ? name : name + "_rank" + std::to_string(r), t);
    c.trainerState = {{"format_version", 1},
                      {"step", atStep},
                      {"optimizer_step", engine.stepCount()},
                      {"skipped_steps", counters.skippedSteps},
                      {"loss_scaler", engine.lossScalerState()},
                      {"zero_stage", run.plan.stage()},
                      {"tokens_seen", counters.tokensSeen},
                      {"train_blocks", run.trainSequences},
                      {"data_key", run.dataKey},
                      {"sampler", sampler.state().toJson()},
                      {"sampler_ranks", samplerRanksJson(samplerAll, worldSize)},
                      {"run_id", run.runId},
                      {"world_size", worldSize},
                      {"seed", cfg.training.seed},
                      {"elapsed_s", counters.elapsedBefore},
                      {"train_config", cfg.raw}};
    if (!partition.is_null()) c.trainerState["zero3_partition"] = partition;
    c.tokenizerFiles = tokenizerFilesFor(run.tokenizerPath);
    fs::path dir = saveCheckpoint(cfg.training.outputDir, atStep, c, cfg.training.keepCheckpoints);
    if (run.plan.shardedCheckpoints()) fs::remove_all(shardDir);
    comm.barrier();
    return dir;
}

LoopCounters resumeRun(const RunParts& run, const fs::path& resumeDir, BlockSampler& sampler) {
    const int rank = run.comm.rank(), worldSize = run.comm.worldSize();
    nlohmann::json st = readTrainerState(resumeDir);
    const std::string where = (resumeDir / "trainer_state.json").string();
    LoopCounters out;
    out.step = requiredField<int64_t>(st, "step", where);
    out.tokensSeen = optionalField<int64_t>(st, "tokens_seen", where).value_or(0);
    out.skippedSteps = optionalField<int64_t>(st, "skipped_steps", where).value_or(0);
    out.elapsedBefore = optionalField<double>(st, "elapsed_s", where).value_or(0.0);
    if (st.contains("loss_scaler")) {
        try {
            run.engine.restoreLossScaler(st["loss_scaler"]);
        } catch (const FormatError& e) {
            throw FormatError(where + ": " + e.what());
        }
    }
    // The world size first: the data's sequence count depends on it, and it is what the user changes.
    const int madeBy = optionalField<int>(st, "world_size", where).value_or(1);
    if (worldSize != madeBy)
        throw FormatError(where + ": the checkpoint was made by " + std::to_string(madeBy) +
                          " ranks; resume it with the same number (now " + std::to_string(worldSize) + ")");
    const int64_t trainBlocks = requiredField<int64_t>(st, "train_blocks", where);
    const std::string dataKey = optionalField<std::string>(st, "data_key", where).value_or("");
    if (trainBlocks != run.trainSequences || dataKey != run.dataKey) {
        // The seed splits the eval set off and orders the data: a different one is the likely cause.
        const auto seed = optionalField<int64_t>(st, "seed", where);
        const bool seedDiffers = seed && uint64_t(*seed) != run.cfg.training.seed;
        throw FormatError(where + ": the checkpoint was made with " + std::to_string(trainBlocks) +
                          " training sequences (data " + (dataKey.empty() ? "lm" : dataKey) +
                          ") but the data now gives " + std::to_string(run.trainSequences) + " (data " +
                          (run.dataKey.empty() ? "lm" : run.dataKey) +
                          "); resume needs the same data, tokenizer and data settings" +
                          (seedDiffers ? " and the same training.seed (the checkpoint's is " + std::to_string(*seed) +
                                             ", the config's " + std::to_string(run.cfg.training.seed) + ")"
                                       : std::string()));
    }
    if (!st["sampler"].is_object()) throw FormatError(where + ": key \"sampler\" must be a JSON object");
    nlohmann::json ss = st["sampler"];
    if (st.contains("sampler_ranks")) {  // this rank's position; the identity is this rank's
        const nlohmann::json& ranks = st["sampler_ranks"];
        const bool ok =
            ranks.is_array() && ranks.size() == size_t(worldSize) &&
            std::all_of(ranks.begin(), ranks.end(), [](const nlohmann::json& p) {
                return p.is_array() && p.size() == 2 && jsonHolds<int64_t>(p[0]) && jsonHolds<int64_t>(p[1]);
            });
        if (!ok)
            throw FormatError(where + ": key \"sampler_ranks\" must list [epoch, position] for each of the " +
                              std::to_string(worldSize) + " ranks, found " + jsonForMessage(ranks));
        ss["rank"] = rank;
        ss["epoch"] = ranks[size_t(rank)][0];
        ss["position"] = ranks[size_t(rank)][1];
    }
    try {
        sampler.restore(SamplerState::fromJson(ss));
    } catch (const FormatError& e) {
        throw FormatError(where + ": " + e.what());
    }
    run.plan.checkResumable(optionalField<int>(st, "zero_stage", where).value_or(0), where);
    const fs::path optFile =
        resumeDir / (run.plan.shardedCheckpoints() ? optimizerShardName(rank) : "optimizer.safetensors");
    run.engine.loadState(readTensorFile(optFile), requiredField<int64_t>(st, "optimizer_step", where),
                         optFile.string());
    restoreRngState(readTensorFile(resumeDir / "rng.safetensors"), run.device, rank);
    return out;
}

fs::path resumeFolder(const fs::path& outputDir, bool resume, const fs::path& resumeFrom,
                      const std::function<void(const fs::path&, const std::string&)>& skippedDamaged) {
    if (!resumeFrom.empty()) {  // the folder the user named: damaged is an error, not a reason to pick another
        verifyCheckpoint(resumeFrom);
        return resumeFrom;
    }
    if (!resume) return {};
    if (latestCheckpoint(outputDir).empty())
        throw IoError(outputDir.string() + "/checkpoints: --resume given but there is no checkpoint to resume from");
    std::string damaged;
    fs::path dir = newestIntactCheckpoint(outputDir, [&](const fs::path& d, const std::string& why) {
        damaged += "\n  - " + d.string() + ": " + why;
        if (skippedDamaged) skippedDamaged(d, why);
    });
    if (dir.empty()) throw FormatError(outputDir.string() + "/checkpoints: every checkpoint is damaged:" + damaged);
    return dir;
}

}  // namespace fts
