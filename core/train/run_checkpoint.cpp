// A run's checkpoints: save and resume (see run_checkpoint.h).
#include "core/train/run_checkpoint.h"

#include <algorithm>
#include <mutex>

#include "core/model/language_model.h"
#include "core/train/checkpoint.h"
#include "core/train/run_model.h"
#include "core/train/training_data.h"
#include "core/util/checkpoint_checksums.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/owner_only.h"
#include "core/zero/step_engine.h"

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

}  // namespace

fs::path saveRunCheckpoint(const RunParts& run, const BlockSampler& sampler, const LoopCounters& counters) {
    const TrainConfig& cfg = run.cfg;
    const TrainOptions& opt = run.opt;
    Communicator& comm = run.comm;
    StepEngine& engine = run.engine;
    const int64_t atStep = counters.step;
    // Every rank's sampler position and RNG reach rank 0, which writes the one (replicated) checkpoint.
    auto samplerRows = torch::tensor({sampler.state().epoch, sampler.state().position}, torch::kInt64);
    auto samplerAll = torch::empty({2 * opt.worldSize}, torch::kInt64);
    comm.allGather(samplerAll, samplerRows);
    TensorList myRng = rngState(run.device);
    std::vector<TensorList> rngAll(size_t(opt.worldSize));
    for (auto& [name, t] : myRng) {
        auto all = torch::empty({t.numel() * opt.worldSize}, t.options());
        torch::Tensor flat = t.contiguous().view({-1});
        comm.allGather(all, flat);
        for (int r = 0; r < opt.worldSize; ++r)
            rngAll[size_t(r)].emplace_back(name, all.narrow(0, r * t.numel(), t.numel()).clone());
    }
    // ZeRO: every rank writes its own optimizer shard (atomically) where rank 0 moves it into the checkpoint.
    const fs::path shardDir = cfg.training.outputDir / "checkpoints" / (checkpointDirName(atStep) + ".tmp-shards");
    // Each shard's xxh3-64, computed as it was written, reaches rank 0 for the checkpoint's checksums.json.
    auto shardSums = torch::zeros({opt.worldSize}, torch::kInt64);
    if (engine.sharded()) {
        createOwnerOnlyDirectory(shardDir.parent_path());  // "checkpoints" may not exist yet on this host
        fs::create_directories(shardDir);
        const uint64_t sum = writeTensorFile(shardDir / optimizerShardName(opt.rank), engine.stateTensors());
        auto mine = torch::tensor({static_cast<int64_t>(sum)}, torch::kInt64);
        comm.allGather(shardSums, mine);
    }
    if (opt.rank != 0) {
        comm.barrier();  // rank 0 has written the checkpoint
        return {};
    }
    CheckpointContents c;
    c.hfConfig = run.model.info().hfConfig;
    nlohmann::json partition = engine.partition();  // null also for stage 3 with LoRA: the adapter is the checkpoint
    if (partition.is_null()) {
        addModelToCheckpoint(run.model, cfg, c);
    } else {  // stage 3: no model.safetensors; the weights are the ranks' master shards (zero3_checkpoint.h)
        partition["architecture"] = run.model.info().architecture;
        partition["model_type"] = run.model.info().modelType;
    }
    if (engine.sharded()) {
        for (int r = 0; r < opt.worldSize; ++r) {
            c.movedIn.push_back(shardDir / optimizerShardName(r));
            c.movedInChecksums[optimizerShardName(r)] = static_cast<uint64_t>(shardSums[r].item<int64_t>());
        }
    } else {
        c.optimizerTensors = engine.stateTensors();
    }
    for (int r = 0; r < opt.worldSize; ++r)
        for (auto& [name, t] : rngAll[size_t(r)])
            c.rngTensors.emplace_back(r == 0 ? name : name + "_rank" + std::to_string(r), t);
    c.trainerState = {{"format_version", 1},
                      {"step", atStep},
                      {"optimizer_step", engine.stepCount()},
                      {"skipped_steps", counters.skippedSteps},
                      {"loss_scaler", engine.lossScalerState()},
                      {"zero_stage", cfg.deepspeed.zeroStage},
                      {"tokens_seen", counters.tokensSeen},
                      {"train_blocks", run.data.numTrain()},
                      {"data_key", run.data.key()},
                      {"sampler", sampler.state().toJson()},
                      {"sampler_ranks", samplerRanksJson(samplerAll, opt.worldSize)},
                      {"run_id", opt.runId},
                      {"world_size", opt.worldSize},
                      {"seed", cfg.training.seed},
                      {"elapsed_s", counters.elapsedBefore},
                      {"train_config", cfg.raw}};
    if (!partition.is_null()) c.trainerState["zero3_partition"] = partition;
    c.tokenizerFiles = tokenizerFilesFor(run.tokenizerPath);
    fs::path dir = saveCheckpoint(cfg.training.outputDir, atStep, c, cfg.training.keepCheckpoints);
    if (engine.sharded()) fs::remove_all(shardDir);
    comm.barrier();
    return dir;
}

LoopCounters resumeRun(const RunParts& run, const fs::path& resumeDir, BlockSampler& sampler) {
    const TrainOptions& opt = run.opt;
    const int stage = run.cfg.deepspeed.zeroStage;
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
    const int64_t trainBlocks = requiredField<int64_t>(st, "train_blocks", where);
    const std::string dataKey = optionalField<std::string>(st, "data_key", where).value_or("");
    if (trainBlocks != run.data.numTrain() || dataKey != run.data.key())
        throw FormatError(where + ": the checkpoint was made with " + std::to_string(trainBlocks) +
                          " training sequences (data " + (dataKey.empty() ? "lm" : dataKey) +
                          ") but the data now gives " + std::to_string(run.data.numTrain()) + " (data " +
                          (run.data.key().empty() ? "lm" : run.data.key()) +
                          "); resume needs the same data, tokenizer and data settings");
    const int madeBy = optionalField<int>(st, "world_size", where).value_or(1);
    if (opt.worldSize != madeBy)
        throw FormatError(where + ": the checkpoint was made by " + std::to_string(madeBy) +
                          " ranks; resume it with the same number (now " + std::to_string(opt.worldSize) + ")");
    if (!st["sampler"].is_object()) throw FormatError(where + ": key \"sampler\" must be a JSON object");
    nlohmann::json ss = st["sampler"];
    if (st.contains("sampler_ranks")) {  // this rank's position; the identity is this rank's
        const nlohmann::json& ranks = st["sampler_ranks"];
        const bool ok =
            ranks.is_array() && ranks.size() == size_t(opt.worldSize) &&
            std::all_of(ranks.begin(), ranks.end(), [](const nlohmann::json& p) {
                return p.is_array() && p.size() == 2 && jsonHolds<int64_t>(p[0]) && jsonHolds<int64_t>(p[1]);
            });
        if (!ok)
            throw FormatError(where + ": key \"sampler_ranks\" must list [epoch, position] for each of the " +
                              std::to_string(opt.worldSize) + " ranks, found " + jsonForMessage(ranks));
        ss["rank"] = opt.rank;
        ss["epoch"] = ranks[size_t(opt.rank)][0];
        ss["position"] = ranks[size_t(opt.rank)][1];
    }
    try {
        sampler.restore(SamplerState::fromJson(ss));
    } catch (const FormatError& e) {
        throw FormatError(where + ": " + e.what());
    }
    // Stage 0 keeps a replicated optimizer, stages 1 and 2 share one flat partition, stage 3 partitions each tensor.
    auto layoutOf = [](int s) { return s == 0 ? 0 : s == 3 ? 3 : 1; };
    const int madeWith = optionalField<int>(st, "zero_stage", where).value_or(0);
    if (layoutOf(madeWith) != layoutOf(stage))
        throw FormatError(where + ": the checkpoint was made with ZeRO stage " + std::to_string(madeWith) +
                          " but the config asks for stage " + std::to_string(stage) + "; resume with stage " +
                          (madeWith == 0   ? "0"
                           : madeWith == 3 ? "3"
                                           : "1 or 2 (the same partition)"));
    const fs::path optFile =
        resumeDir / (run.engine.sharded() ? optimizerShardName(opt.rank) : "optimizer.safetensors");
    run.engine.loadState(readTensorFile(optFile), requiredField<int64_t>(st, "optimizer_step", where),
                         optFile.string());
    restoreRngState(readTensorFile(resumeDir / "rng.safetensors"), run.device, opt.rank);
    return out;
}

fs::path resumeFolder(const TrainConfig& cfg, const TrainOptions& opt,
                      const std::function<void(const fs::path&, const std::string&)>& skippedDamaged) {
    fs::path dir = opt.resumeFrom;
    if (!dir.empty()) {  // the folder the user named: damaged is an error, not a reason to pick another
        if (const std::vector<std::string> damage = checkpointDamage(dir); !damage.empty()) {
            std::string text;
            for (const std::string& d : damage) text += "\n  - " + d;
            throw FormatError(dir.string() +
                              ": the checkpoint is damaged (its files do not match checksums.json):" + text);
        }
        return dir;
    }
    if (!opt.resume) return dir;
    if (latestCheckpoint(cfg.training.outputDir).empty())
        throw IoError(cfg.training.outputDir.string() +
                      "/checkpoints: --resume given but there is no checkpoint to resume from");
    std::string damaged;
    dir = newestIntactCheckpoint(cfg.training.outputDir, [&](const fs::path& d, const std::string& why) {
        damaged += "\n  - " + d.string() + ": " + why;
        if (skippedDamaged) skippedDamaged(d, why);
    });
    if (dir.empty())
        throw FormatError(cfg.training.outputDir.string() + "/checkpoints: every checkpoint is damaged:" + damaged);
    return dir;
}

}  // namespace fts
