// The single-rank training loop (see trainer.h). Reads top to bottom: set-up (device, tokenizer, data,
// model, optimizer, resume), then per step: eval / checkpoint / log blocks gated by their intervals,
// then the training section (accumulate micro-batches, clip, schedule, AdamW).
#include "core/train/trainer.h"

#include <torch/torch.h>
#include <torch/version.h>
#include <ATen/autocast_mode.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include <unistd.h>

#include "core/data/block_sampler.h"
#include "core/dist/communicator.h"
#include "core/data/tokenizer.h"
#include "core/model/language_model.h"
#include "core/model/lora.h"
#include "core/optim/adamw.h"
#include "core/optim/loss_scaler.h"
#include "core/optim/lr_schedule.h"
#include "core/train/checkpoint.h"
#include "core/train/host_allocator.h"
#include "core/train/run_model.h"
#include "core/train/step_engine.h"
#include "core/train/telemetry.h"
#include "core/train/training_data.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

torch::Device chooseDevice(const std::string& spec, int rank) {
    if (spec == "cpu") return torch::kCPU;
    if (spec == "auto") {
        if (torch::cuda::is_available()) return torch::Device(torch::kCUDA, rank % int(torch::cuda::device_count()));
        return torch::kCPU;
    }
    if (!torch::cuda::is_available())
        throw ConfigError("training.device: \"" + spec + "\" asks for CUDA, but LibTorch sees no CUDA device here");
    if (spec == "cuda") return torch::Device(torch::kCUDA, rank % int(torch::cuda::device_count()));
    int index = std::stoi(spec.substr(5));
    if (index >= int(torch::cuda::device_count()))
        throw ConfigError("training.device: \"" + spec + "\" but only " +
                          std::to_string(torch::cuda::device_count()) + " CUDA devices are visible");
    return torch::Device(torch::kCUDA, index);
}

// bf16 autocast for the forward pass on the training device, restored on scope exit.
class AutocastScope {
public:
    AutocastScope(bool enabled, torch::Device device) : m_enabled(enabled), m_type(device.type()) {
        if (!m_enabled) return;
        m_prevEnabled = at::autocast::is_autocast_enabled(m_type);
        m_prevDtype = at::autocast::get_autocast_dtype(m_type);
        at::autocast::set_autocast_dtype(m_type, at::kBFloat16);
        at::autocast::set_autocast_enabled(m_type, true);
    }
    ~AutocastScope() {
        if (!m_enabled) return;
        at::autocast::set_autocast_enabled(m_type, m_prevEnabled);
        at::autocast::set_autocast_dtype(m_type, m_prevDtype);
        at::autocast::clear_cache();
    }

private:
    bool m_enabled;
    c10::DeviceType m_type;
    bool m_prevEnabled = false;
    at::ScalarType m_prevDtype = at::kBFloat16;
};

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
    if (device.is_cuda())
        out.emplace_back("cuda", at::globalContext().defaultGenerator(device).get_state());
    return out;
}

// Flat views for one collective over many tensors (same dtype).
std::vector<torch::Tensor> flattenAll(const std::vector<torch::Tensor>& ts) {
    std::vector<torch::Tensor> out;
    for (const auto& t : ts) out.push_back(t.detach().reshape({-1}));
    return out;
}
void unflattenInto(const torch::Tensor& flat, const std::vector<torch::Tensor>& ts) {
    int64_t off = 0;
    for (const auto& t : ts) {
        t.detach().copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
        off += t.numel();
    }
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
        at::Generator gen = name == "cpu" ? at::detail::getDefaultCPUGenerator() : at::globalContext().defaultGenerator(device);
        std::lock_guard<std::mutex> lock(gen.mutex());
        gen.set_state(t);
    }
}

nlohmann::json versionsJson(torch::Device device) {
    nlohmann::json v{{"fts", FTS_VERSION}, {"torch", TORCH_VERSION}};
    v["device"] = device.str();
    v["cuda_available"] = torch::cuda::is_available();
    return v;
}

}  // namespace

static TrainOutcome train(const TrainConfig& cfg, const TrainOptions& opt, EventSink& events,
                          const std::atomic<bool>& stopRequested) {
    const auto& ds = cfg.deepspeed;
    const auto& tr = cfg.training;

    const torch::Device device = chooseDevice(tr.device, opt.rank);
    installHostCachingAllocator();  // steps reuse their host blocks instead of faulting fresh pages in each time
    torch::manual_seed(tr.seed);

    // ---- the ranks meet (world size 1: a communicator of identities) ------------------------------
    DistOptions distOpts;
    distOpts.host = opt.masterAddr;
    distOpts.port = opt.masterPort;
    distOpts.listenFd = opt.storeFd;
    distOpts.rank = opt.rank;
    distOpts.worldSize = opt.worldSize;
    distOpts.token = opt.runToken;
    distOpts.timeout = std::chrono::milliseconds(opt.collectiveTimeoutMs);
    distOpts.backend = backendForDevice(device);
    std::unique_ptr<Communicator> comm = connectRanks(distOpts);
    const bool leader = opt.rank == 0;

    // ---- tokenizer and data -------------------------------------------------------------------
    const fs::path tokenizerPath = cfg.model.tokenizer.empty() ? cfg.model.path / "tokenizer.json" : cfg.model.tokenizer;
    auto tokenizer = Tokenizer::fromFile(tokenizerPath);
    // LM blocks or cached instruction sequences (training_data.h); batches are a function of the indices.
    std::unique_ptr<TrainingData> data = loadTrainingData(cfg, *tokenizer, events, leader);
    const int64_t micro = ds.microBatchPerGpu, accum = ds.gradientAccumulationSteps;
    const int64_t globalBatch = ds.trainBatchSize;
    const int64_t stepsPerEpoch = std::max<int64_t>(1, data->numTrain() / globalBatch);
    const int64_t totalSteps =
        tr.maxSteps > 0 ? tr.maxSteps : std::max<int64_t>(1, int64_t(std::ceil(tr.epochs * double(stepsPerEpoch))));

    // ---- model ------------------------------------------------------------------------------------
    ModelLoadOptions loadOpts;
    loadOpts.device = device;
    // fp16: fp16 parameters with fp32 masters in the step engine (DeepSpeed's fp16). bf16: under ZeRO 1/2 the
    // parameters are bf16 and the fp32 masters live in the optimizer partition (DeepSpeed's bf16 with ZeRO); at
    // stage 0 the parameters stay fp32 under bf16 autocast.
    if (ds.fp16.enabled) loadOpts.dtype = torch::kFloat16;
    if (ds.bf16 && ds.zeroStage > 0) loadOpts.dtype = torch::kBFloat16;
    // ZeRO stage 3: every tensor is cut to this rank's part as soon as it is read (or drawn), so no rank holds the
    // whole model; every rank reads the same files (or draws with the same seed), so no broadcast is needed.
    std::vector<std::vector<int64_t>> fullShapes;
    if (ds.zeroStage == 3 && !cfg.model.lora.enabled)
        loadOpts.partition = [&fullShapes, &ds, rank = opt.rank, world = opt.worldSize](size_t i, const torch::Tensor& full) {
            if (fullShapes.size() <= i) fullShapes.resize(i + 1);
            fullShapes[i] = full.sizes().vec();
            return stage3RankPart(full, rank, world, ds);
        };
    fs::path resumeDir = opt.resumeFrom;
    if (opt.resume && resumeDir.empty()) {
        resumeDir = latestCheckpoint(tr.outputDir);
        if (resumeDir.empty())
            throw IoError(tr.outputDir.string() + "/checkpoints: --resume given but there is no checkpoint to resume from");
    }
    // Full weights, or a frozen base + LoRA adapters (model.lora): run_model.h.
    std::unique_ptr<LanguageModel> model = loadRunModel(cfg, resumeDir, loadOpts, tr.seed);
    model->setActivationCheckpointing(cfg.model.activationCheckpointing);  // docs/models.md
    checkModelForData(cfg.data, *model);
    if (tokenizer->vocabSize() > model->info().vocabSize)
        throw ConfigError(tokenizerPath.string() + ": the tokenizer has " + std::to_string(tokenizer->vocabSize()) +
                          " tokens but the model's vocab_size is " + std::to_string(model->info().vocabSize));
    std::vector<torch::Tensor> params = trainableTensors(*model);  // all parameters, or the LoRA adapters
    if (opt.worldSize > 1 && fullShapes.empty()) {  // every rank starts from rank 0's weights, whatever it loaded
        torch::NoGradGuard noGrad;
        torch::Tensor flat = torch::cat(flattenAll(params));
        comm->broadcast(flat, 0);
        unflattenInto(flat, params);
    }
    if (opt.worldSize > 1) torch::manual_seed(tr.seed + uint64_t(opt.rank));  // dropout differs across ranks, as in DeepSpeed
    // ZeRO stage 0-3 (step_engine.h); stage 3 partitions the model's parameters in place and runs its blocks.
    // The run's key names its offload swap folder: the store's id, or this process for runs outside the store.
    const std::string runKey = opt.runId > 0 ? "run" + std::to_string(opt.runId) : "pid" + std::to_string(::getpid());
    std::unique_ptr<StepEngine> optimizer = makeStepEngine(params, ds, *comm, model.get(), fullShapes, runKey);
    if (ds.zero.offloadParam.device == OffloadDevice::Cpu && device.is_cpu() && leader)
        events.log("info", "offload_param cpu: on a CPU device the stage-3 parameter shards rest in host memory already");
    params.clear();
    events.log("info", "rank " + std::to_string(opt.rank) + " model states (ZeRO stage " + std::to_string(ds.zeroStage) +
                           ", bytes): " + optimizer->modelState().toJson().dump());

    // ---- resume -------------------------------------------------------------------------------
    BlockSampler sampler(data->numTrain(), tr.seed, opt.rank, opt.worldSize);
    int64_t step = 0, tokensSeen = 0;
    LossScaler scaler(ds.fp16);   // fp16: DeepSpeed's static or dynamic loss scale; otherwise 1
    int64_t skippedSteps = 0;     // fp16 overflows: the step and its scheduler step are skipped (as DeepSpeed)
    double elapsedBefore = 0.0;
    if (!resumeDir.empty()) {
        nlohmann::json st = readTrainerState(resumeDir);
        step = st.at("step").get<int64_t>();
        tokensSeen = st.value("tokens_seen", int64_t(0));
        skippedSteps = st.value("skipped_steps", int64_t(0));
        if (st.contains("loss_scaler")) scaler.restore(st["loss_scaler"]);
        elapsedBefore = st.value("elapsed_s", 0.0);
        if (st.at("train_blocks").get<int64_t>() != data->numTrain() || st.value("data_key", std::string()) != data->key())
            throw FormatError(resumeDir.string() + "/trainer_state.json: the checkpoint was made with " +
                              std::to_string(st.at("train_blocks").get<int64_t>()) + " training sequences (data " +
                              st.value("data_key", std::string("lm")) + ") but the data now gives " +
                              std::to_string(data->numTrain()) + " (data " + (data->key().empty() ? "lm" : data->key()) +
                              "); resume needs the same data, tokenizer and data settings");
        if (opt.worldSize != st.value("world_size", 1))
            throw FormatError(resumeDir.string() + "/trainer_state.json: the checkpoint was made by " +
                              std::to_string(st.value("world_size", 1)) + " ranks; resume it with the same number (now " +
                              std::to_string(opt.worldSize) + ")");
        nlohmann::json ss = st.at("sampler");
        if (st.contains("sampler_ranks")) {  // this rank's position; the identity is this rank's
            ss["rank"] = opt.rank;
            ss["epoch"] = st["sampler_ranks"].at(size_t(opt.rank)).at(0);
            ss["position"] = st["sampler_ranks"].at(size_t(opt.rank)).at(1);
        }
        sampler.restore(SamplerState::fromJson(ss));
        // Stage 0 keeps a replicated optimizer, stages 1 and 2 share one flat partition, stage 3 partitions each tensor.
        auto layoutOf = [](int stage) { return stage == 0 ? 0 : stage == 3 ? 3 : 1; };
        const int madeWith = st.value("zero_stage", 0);
        if (layoutOf(madeWith) != layoutOf(ds.zeroStage))
            throw FormatError(resumeDir.string() + "/trainer_state.json: the checkpoint was made with ZeRO stage " +
                              std::to_string(madeWith) + " but the config asks for stage " +
                              std::to_string(ds.zeroStage) + "; resume with stage " +
                              (madeWith == 0 ? "0" : madeWith == 3 ? "3" : "1 or 2 (the same partition)"));
        const fs::path optFile = resumeDir / (optimizer->sharded() ? optimizerShardName(opt.rank) : "optimizer.safetensors");
        optimizer->loadState(readTensorFile(optFile), st.at("optimizer_step").get<int64_t>(), optFile.string());
        restoreRngState(readTensorFile(resumeDir / "rng.safetensors"), device, opt.rank);
        events.log("info", "resumed from " + resumeDir.string() + " at step " + std::to_string(step));
    }
    releaseHostCache();  // set-up is done: what loading and partitioning freed goes back to the system

    if (leader)
    events.publish({{"event", "start"},
                 {"time", unixNow()},
                 {"rank", opt.rank},
                 {"world_size", opt.worldSize},
                 {"start_step", step},
                 {"total_steps", totalSteps},
                 {"device", device.str()},
                 {"parameters", model->info().numParameters},
                 {"train_sequences", data->numTrain()},
                 {"eval_sequences", data->numEval()},
                 {"data", data->summary()},
                 {"tokens_per_step", globalBatch * cfg.data.maxLength},
                 {"versions", versionsJson(device)}});

    const int deviceIndex = device.is_cuda() ? device.index() : -1;
    auto publishMemory = [&](int64_t atStep) {
        MemorySample m = sampleMemory(deviceIndex);
        events.publish({{"event", "memory"}, {"step", atStep}, {"rank", opt.rank}, {"device", m.device},
                     {"allocated", m.allocated}, {"reserved", m.reserved}, {"peak", m.peak}, {"capacity", m.capacity},
                     {"time", unixNow()}});
    };

    // Token-weighted: the summed loss of the eval sequences over their counted predictions.
    auto evaluate = [&]() -> double {
        if (data->numEval() == 0) return std::nan("");
        torch::NoGradGuard noGrad;
        model->setTraining(false);
        AutocastScope autocast(ds.bf16, device);
        double sum = 0.0;
        int64_t counted = 0, batches = 0;
        const int64_t n = data->numEval();
        optimizer->beginForwardOnly();  // stage 3: gathers the parameters outside the blocks
        for (int64_t begin = 0; begin < n; begin += micro) {
            if (tr.evalBatches > 0 && batches >= tr.evalBatches) break;
            std::vector<int64_t> idx;
            for (int64_t i = begin; i < std::min(n, begin + micro); ++i) idx.push_back(i);
            TrainBatch batch = data->batch(true, idx, device);
            torch::Tensor logits = forwardBatch(*model, batch);
            sum += batchLossSum(*model, logits.to(torch::kFloat32), batch).item<double>();
            counted += batch.lossTokens;
            batches += 1;
        }
        optimizer->endForwardOnly();
        model->setTraining(true);
        return counted > 0 ? sum / double(counted) : std::nan("");
    };

    auto checkpoint = [&](int64_t atStep) {
        // Every rank's sampler position and RNG reach rank 0, which writes the one (replicated) checkpoint.
        auto samplerRows = torch::tensor({sampler.state().epoch, sampler.state().position}, torch::kInt64);
        auto samplerAll = torch::empty({2 * opt.worldSize}, torch::kInt64);
        comm->allGather(samplerAll, samplerRows);
        TensorList myRng = rngState(device);
        std::vector<TensorList> rngAll(size_t(opt.worldSize));
        for (auto& [name, t] : myRng) {
            auto all = torch::empty({t.numel() * opt.worldSize}, t.options());
            torch::Tensor flat = t.contiguous().view({-1});
            comm->allGather(all, flat);
            for (int r = 0; r < opt.worldSize; ++r)
                rngAll[size_t(r)].emplace_back(name, all.narrow(0, r * t.numel(), t.numel()).clone());
        }
        // ZeRO: every rank writes its own optimizer shard (atomically) where rank 0 moves it into the checkpoint.
        const fs::path shardDir = tr.outputDir / "checkpoints" / (checkpointDirName(atStep) + ".tmp-shards");
        if (optimizer->sharded()) {
            fs::create_directories(shardDir);
            writeTensorFile(shardDir / optimizerShardName(opt.rank), optimizer->stateTensors());
            comm->barrier();
        }
        if (!leader) {
            comm->barrier();  // rank 0 has written the checkpoint
            return;
        }
        CheckpointContents c;
        c.hfConfig = model->info().hfConfig;
        nlohmann::json partition = optimizer->partition();
        if (partition.is_null()) {
            addModelToCheckpoint(*model, cfg, c);
        } else {  // stage 3: no model.safetensors; the weights are the ranks' master shards (zero3_checkpoint.h)
            partition["architecture"] = model->info().architecture;
            partition["model_type"] = model->info().modelType;
        }
        if (optimizer->sharded()) {
            for (int r = 0; r < opt.worldSize; ++r) c.movedIn.push_back(shardDir / optimizerShardName(r));
        } else {
            c.optimizerTensors = optimizer->stateTensors();
        }
        for (int r = 0; r < opt.worldSize; ++r)
            for (auto& [name, t] : rngAll[size_t(r)])
                c.rngTensors.emplace_back(r == 0 ? name : name + "_rank" + std::to_string(r), t);
        c.trainerState = {{"format_version", 1},
                          {"step", atStep},
                          {"optimizer_step", optimizer->stepCount()},
                          {"skipped_steps", skippedSteps},
                          {"loss_scaler", scaler.state()},
                          {"zero_stage", ds.zeroStage},
                          {"tokens_seen", tokensSeen},
                          {"train_blocks", data->numTrain()},
                          {"data_key", data->key()},
                          {"sampler", sampler.state().toJson()},
                          {"sampler_ranks", samplerRanksJson(samplerAll, opt.worldSize)},
                          {"run_id", opt.runId},
                          {"world_size", opt.worldSize},
                          {"seed", tr.seed},
                          {"elapsed_s", elapsedBefore},
                          {"train_config", cfg.raw}};
        if (!partition.is_null()) c.trainerState["zero3_partition"] = partition;
        c.tokenizerFiles = tokenizerFilesFor(tokenizerPath);
        fs::path dir = saveCheckpoint(tr.outputDir, atStep, c, tr.keepCheckpoints);
        if (optimizer->sharded()) fs::remove_all(shardDir);
        events.publish({{"event", "checkpoint"}, {"step", atStep}, {"path", dir.string()}, {"time", unixNow()}});
        comm->barrier();
    };

    // ---- the loop -----------------------------------------------------------------------------
    model->setTraining(true);
    double lastLoss = std::nan(""), lastEval = std::nan("");
    bool savedAtLastStep = false;
    TrainOutcome outcome = TrainOutcome::Completed;
    auto runStart = Clock::now();
    publishMemory(step);
    if (step == 0 && tr.evalInterval > 0) {  // a baseline before training (as HF's eval_on_start)
        lastEval = evaluate();
        if (std::isfinite(lastEval) && leader)
            events.publish({{"event", "metrics"}, {"step", 0}, {"time", unixNow()}, {"values", {{"eval_loss", lastEval}}}});
    }
    while (step < totalSteps) {
        bool stopNow = stopRequested.load();
        if (opt.worldSize > 1) {  // the ranks stop together: a stop seen by any rank stops all at this step
            auto flag = torch::full({1}, stopNow ? 1.0f : 0.0f);
            comm->allReduce(flag, ReduceKind::Max);
            stopNow = flag.item<float>() > 0.0f;
        }
        if (stopNow) {
            outcome = TrainOutcome::Stopped;
            break;
        }
        // training section: one optimizer step = `accum` micro-batches of `micro` sequences
        auto t0 = Clock::now();
        const double lr = learningRateAt(ds.scheduler, ds.optimizer.lr, step - skippedSteps);
        const double lossScale = scaler.scale();  // fp16 dynamic loss scale (1 otherwise)
        // The step's micro-batches first: the loss is normalised by the counted predictions of the whole
        // accumulated batch on all ranks (transformers' num_items_in_batch), so masked tokens weigh nothing.
        std::vector<TrainBatch> batches;
        int64_t stepLossTokens = 0, stepTokens = 0;
        for (int64_t a = 0; a < accum; ++a) {
            std::vector<int64_t> idx(static_cast<size_t>(micro));
            for (auto& i : idx) i = sampler.next();
            batches.push_back(data->batch(false, idx, device));
            stepLossTokens += batches.back().lossTokens;
            stepTokens += batches.back().tokens;
        }
        if (opt.worldSize > 1) {
            auto counts = torch::tensor({stepLossTokens, stepTokens}, torch::kInt64);
            comm->allReduce(counts);
            stepLossTokens = counts[0].item<int64_t>();
            stepTokens = counts[1].item<int64_t>();
        }
        // Each rank's share is multiplied by the world size because the step engine averages the gradients.
        const double tokenScale = double(opt.worldSize) / double(std::max<int64_t>(stepLossTokens, 1));
        double lossSum = 0.0;
        for (size_t a = 0; a < batches.size(); ++a) {
            TrainBatch& batch = batches[a];
            optimizer->beginMicroStep(a + 1 == batches.size());
            torch::Tensor loss;
            {
                AutocastScope autocast(ds.bf16, device);
                torch::Tensor logits = forwardBatch(*model, batch);  // (B, T, V)
                loss = batchLossSum(*model, logits.to(torch::kFloat32), batch);
            }
            if (ds.fp16.enabled)
                (loss * tokenScale * lossScale).backward();
            else
                (loss * tokenScale).backward();
            optimizer->endMicroStep();
            lossSum += loss.item<double>();
            batch = TrainBatch();
        }
        if (opt.worldSize > 1) {  // the logged loss: the ranks' summed loss over the global count (gradients: the step engine)
            auto l = torch::full({1}, lossSum, torch::kFloat64);
            comm->allReduce(l);
            lossSum = l.item<double>();
        }
        const StepResult stepped = optimizer->step(lr, ds.gradientClipping, lossScale);
        const double gradNorm = stepped.gradNorm;
        if (stepped.overflow) {
            skippedSteps += 1;
            scaler.update(true);  // throws LossScaleError at the minimum scale: the run stops
            if (leader)
                events.log("info", "step " + std::to_string(step + 1) + ": fp16 gradients overflowed, step skipped; loss scale " +
                                       std::to_string(lossScale) + " -> " + std::to_string(scaler.scale()));
        } else {
            scaler.update(false);
        }
        step += 1;
        tokensSeen += stepTokens;
        const double stepSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
        lastLoss = lossSum / double(std::max<int64_t>(stepLossTokens, 1));
        if (!std::isfinite(lastLoss) && !stepped.overflow)
            throw Error("step " + std::to_string(step) + ": the loss is " + std::to_string(lastLoss) +
                        "; lower deepspeed.optimizer.params.lr or enable deepspeed.gradient_clipping");
        const bool last = step == totalSteps;

        // log block
        if (step % tr.logInterval == 0 || last) {
            if (leader)
            events.publish({{"event", "metrics"},
                         {"step", step},
                         {"time", unixNow()},
                         {"values",
                          {{"loss", lastLoss},
                           {"lr", lr},
                           {"grad_norm", gradNorm},
                           {"tokens_per_s", double(stepTokens) / std::max(stepSeconds, 1e-9)},
                           {"tokens_seen", double(tokensSeen)},
                           {"epoch", double(sampler.state().epoch) +
                                         double(sampler.state().position) / double(data->numTrain())}}}});
            if (leader && ds.fp16.enabled)  // the scale this step's backward used (the GUI plots it)
                events.publish({{"event", "metrics"}, {"step", step}, {"time", unixNow()}, {"values", {{"loss_scale", lossScale}}}});
            publishMemory(step);
        }
        // eval block
        if ((tr.evalInterval > 0 && step % tr.evalInterval == 0) || last) {
            lastEval = evaluate();
            if (std::isfinite(lastEval) && leader)
                events.publish({{"event", "metrics"}, {"step", step}, {"time", unixNow()}, {"values", {{"eval_loss", lastEval}}}});
        }
        // checkpoint block
        savedAtLastStep = false;
        if ((tr.saveInterval > 0 && step % tr.saveInterval == 0) || last) {
            elapsedBefore += std::chrono::duration<double>(Clock::now() - runStart).count();
            runStart = Clock::now();
            checkpoint(step);
            savedAtLastStep = true;
        }
    }
    if (outcome == TrainOutcome::Stopped && !savedAtLastStep && step > 0) {
        events.log("info", "stop requested: saving a checkpoint at step " + std::to_string(step));
        checkpoint(step);
    }

    nlohmann::json final{{"steps", step}, {"tokens_seen", tokensSeen}};
    if (std::isfinite(lastLoss)) final["loss"] = lastLoss;
    if (std::isfinite(lastEval)) final["eval_loss"] = lastEval;
    if (outcome == TrainOutcome::Completed && leader) {
        const fs::path exportDir = tr.outputDir / "final";
        exportCheckpoint(latestCheckpoint(tr.outputDir), exportDir, "float32");
        final["export_dir"] = exportDir.string();
    }
    comm->barrier();  // rank 0's export is done before any rank reports the end
    events.publish({{"event", "end"},
                 {"rank", opt.rank},
                 {"status", outcome == TrainOutcome::Completed ? "completed" : "stopped"},
                 {"final", final},
                 {"time", unixNow()}});
    return outcome;
}

TrainOutcome runTraining(const TrainConfig& cfg, const TrainOptions& opt, EventSink& events,
                         const std::atomic<bool>& stopRequested) {
    try {
        return train(cfg, opt, events, stopRequested);
    } catch (const c10::Error& e) {  // LibTorch's own errors: keep the message, drop the C++ backtrace
        throw Error(e.what_without_backtrace());
    }
}

}  // namespace fts
