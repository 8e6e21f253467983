// One rank's training loop (see trainer.h). Reads top to bottom: set-up (device, ranks, tokenizer, data, model,
// step engine, resume), then per step: the training section (micro-batches, backward, the engine's step), then the
// log / eval / checkpoint blocks gated by their intervals. What the ZeRO stage and offload change is the plan's
// (core/zero/zero_plan.h); loss scaling, reduction, clipping and the optimizer state are the step engine's
// (core/zero/step_engine.h); checkpoints are core/checkpoint's.
#include "core/train/trainer.h"

#include <torch/torch.h>
#include <torch/version.h>
#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>

#include <unistd.h>

#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#endif

#include "core/data/block_sampler.h"
#include "core/dist/communicator.h"
#include "core/data/tokenizer.h"
#include "core/model/language_model.h"
#include "core/model/lora.h"
#include "core/optim/adamw.h"
#include "core/config/lr_schedule.h"
#include "core/checkpoint/checkpoint.h"
#include "core/train/classification_batches.h"
#include "core/train/classification_metrics.h"
#include "core/train/host_allocator.h"
#include "core/train/out_of_memory.h"
#include "core/train/preference_objective.h"
#include "core/train/run_model.h"
#include "core/train/step_profiler.h"
#include "core/train/step_timer.h"
#include "core/train/telemetry.h"
#include "core/train/training_samples.h"
#include "core/train/training_data.h"
#include "core/util/error.h"
#include "core/zero/step_engine.h"
#include "core/zero/zero_plan.h"

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
        throw ConfigError("training.device: \"" + spec + "\" but only " + std::to_string(torch::cuda::device_count()) +
                          " CUDA devices are visible");
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

nlohmann::json versionsJson(torch::Device device) {
    nlohmann::json v{{"fts", FTS_VERSION}, {"torch", TORCH_VERSION}};
    v["device"] = device.str();
    v["cuda_available"] = torch::cuda::is_available();
    return v;
}

}  // namespace

// training.bf16 "auto": bf16 where the device computes it natively (CUDA, compute capability 8.0 or newer).
static bool deviceRunsBf16(torch::Device device) {
#if __has_include(<cuda_runtime_api.h>)
    if (!device.is_cuda()) return false;
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device.index()) != cudaSuccess) return false;
    return major >= 8;
#else
    (void)device;
    return false;
#endif
}

static TrainOutcome train(const TrainConfig& givenCfg, const TrainOptions& opt, EventSink& events,
                          const std::atomic<bool>& stopRequested, RunPosition& where) {
    const torch::Device device = chooseDevice(givenCfg.training.device, opt.localRank >= 0 ? opt.localRank : opt.rank);
    TrainConfig cfg = givenCfg;  // what waited for the device: training.bf16 "auto"
    if (cfg.deepspeed.bf16Auto) cfg.deepspeed.bf16 = deviceRunsBf16(device);
    where.device = device;
    where.config = cfg;
    const auto& ds = cfg.deepspeed;
    const auto& tr = cfg.training;

    installHostCachingAllocator();  // steps reuse their host blocks instead of faulting fresh pages in each time
    torch::manual_seed(tr.seed);

    // ---- the ranks meet (world size 1: a communicator of identities) ------------------------------
    DistOptions distOpts;
    distOpts.host = opt.masterAddr;
    distOpts.port = opt.masterPort;
    distOpts.listenFd = opt.storeFd;
    distOpts.storeHostedElsewhere = opt.storeHostedByLauncher;
    distOpts.localAddr = opt.localAddr;
    distOpts.rank = opt.rank;
    distOpts.worldSize = opt.worldSize;
    distOpts.token = opt.runToken;
    distOpts.timeout = std::chrono::milliseconds(opt.collectiveTimeoutMs);
    distOpts.backend = backendForDevice(device);
    std::unique_ptr<Communicator> comm = connectRanks(distOpts);
    const bool leader = opt.rank == 0;

    // ---- tokenizer and data -------------------------------------------------------------------
    const fs::path tokenizerPath =
        cfg.model.tokenizer.empty() ? cfg.model.path / "tokenizer.json" : cfg.model.tokenizer;
    auto tokenizer = Tokenizer::fromFile(tokenizerPath);
    // LM blocks or cached instruction sequences (training_data.h); batches are a function of the indices.
    std::unique_ptr<TrainingData> data = loadTrainingData(cfg, *tokenizer, events, leader);
    const int64_t micro = ds.microBatchPerGpu, accum = ds.gradientAccumulationSteps;
    const int64_t globalBatch = ds.trainBatchSize;
    const int64_t stepsPerEpoch = std::max<int64_t>(1, data->numTrain() / globalBatch);
    const int64_t totalSteps =
        tr.maxSteps > 0 ? tr.maxSteps : std::max<int64_t>(1, int64_t(std::ceil(tr.epochs * double(stepsPerEpoch))));
    const SchedulerConfig schedule = resolveScheduleForRun(ds.scheduler, totalSteps);  // "auto" step counts

    // ---- model (run_model.h) -----------------------------------------------------------------
    const fs::path resumeDir =
        resumeFolder(tr.outputDir, opt.resume, opt.resumeFrom, [&](const fs::path& damaged, const std::string& why) {
            if (leader)
                events.log("warn",
                           damaged.string() + " is damaged (" + why + "): resuming from the checkpoint before it");
        });
    // What the ZeRO stage and offload settings mean for this rank (zero_plan.h). The run's key names its offload
    // swap folders: the store's id, or this process for runs outside the store.
    const std::string runKey = opt.runId > 0 ? "run" + std::to_string(opt.runId) : "pid" + std::to_string(::getpid());
    const ZeroPlan plan(ds, cfg.model.lora.enabled, ZeroWorld{opt.rank, opt.worldSize, runKey});
    const ClassificationData* labelled = data->classification();  // classification rows: labels for config and eval
    RunModel loaded = prepareRunModel(cfg, plan, resumeDir, device, *comm, tokenizer->vocabSize(), tokenizerPath,
                                      labelled ? classificationConfigPatch(*labelled) : nlohmann::json(nullptr));
    std::unique_ptr<LanguageModel> model = std::move(loaded.model);
    std::vector<torch::Tensor> params = trainableTensors(*model);  // all parameters, or the LoRA adapters
    if (opt.worldSize > 1)
        torch::manual_seed(tr.seed + uint64_t(opt.rank));  // dropout differs across ranks, as in DeepSpeed
    // The plan's engine (step_engine.h); stage 3 partitions the model's parameters in place and runs its blocks.
    std::unique_ptr<StepEngine> optimizer = makeStepEngine(params, plan, *comm, model.get(), loaded.fullShapes);
    if (leader)
        for (const std::string& note : plan.notes(device.is_cuda())) events.log("info", note);
    if (leader && hasQuantizedWeights(*model)) {  // QLoRA (docs/qlora.md): say what the base is
        const QuantizationSection& q = cfg.model.quantization;
        events.log("info", q.enabled ? "model.quantization: the base's linear layers are held 4-bit (" + q.quantType +
                                           (q.doubleQuant ? ", double quantization" : "") +
                                           "), their products run in " + q.computeDtype + "; LoRA trains beside them"
                                     : "the model folder holds 4-bit weights (config.json's quantization_config): "
                                       "they stay 4-bit and frozen; LoRA trains beside them");
    }
    params.clear();
    const ModelStateBytes states = optimizer->modelState();
    events.publishEvent(
        ModelStatesEvent{plan.summary(), modelStateTable(states), ModelStateBytes::sum(states.parameters),
                         ModelStateBytes::sum(states.gradients), ModelStateBytes::sum(states.optimizer), states.buckets,
                         states.total(), states.hostOffload, states.nvmeOffload},
        opt.rank);

    // ---- resume -------------------------------------------------------------------------------
    BlockSampler sampler(data->numTrain(), tr.seed, opt.rank, opt.worldSize);
    const RunParts run{cfg,         plan,   *comm,        *optimizer, *model, opt.runId, data->numTrain(),
                       data->key(), device, tokenizerPath};
    LoopCounters at;  // step, tokens seen, skipped fp16 steps, earlier training time
    if (!resumeDir.empty()) {
        at = resumeRun(run, resumeDir, sampler);
        events.log("info", "resumed from " + resumeDir.string() + " at step " + std::to_string(at.step));
    }
    // Values averaged over the ranks (each rank saw its own pairs), as TRL gathers its metrics and KTO's KL.
    // A NaN (a KTO label a rank did not see) counts on no rank; a value no rank has stays NaN.
    auto meanOverRanks = [&](std::vector<double> v) {
        if (opt.worldSize <= 1 || v.empty()) return v;
        const auto n = int64_t(v.size());
        auto t = torch::zeros({2 * n}, torch::kFloat64);  // sums, then counts
        for (int64_t k = 0; k < n; ++k)
            if (std::isfinite(v[size_t(k)])) {
                t[k] = v[size_t(k)];
                t[n + k] = 1.0;
            }
        comm->allReduce(t);
        for (int64_t k = 0; k < n; ++k) {
            const double count = t[n + k].item<double>();
            v[size_t(k)] = count > 0 ? t[k].item<double>() / count : std::nan("");
        }
        return v;
    };
    auto metricsOverRanks = [&](std::map<std::string, double> m) {
        std::vector<double> v;
        for (const auto& [name, value] : m) v.push_back(value);
        v = meanOverRanks(std::move(v));
        size_t k = 0;
        for (auto& [name, value] : m) value = v[k++];
        return m;
    };
    // training.objective dpo / orpo / simpo / kto: the pairs' loss and the reference (preference_objective.h)
    std::unique_ptr<PreferenceObjective> preference;
    if (tr.preferenceObjective()) {
        preference = std::make_unique<PreferenceObjective>(
            cfg, *model, *data, device, micro,
            [&](bool on) { on ? optimizer->beginForwardOnly() : optimizer->endForwardOnly(); },
            [&](double v) { return meanOverRanks({v})[0]; }, !resumeDir.empty(), events, leader);
        if (leader)
            events.log("info",
                       "training.objective \"" + tr.objective + "\": the reference is " + preference->describe());
    }
    releaseHostCache();  // set-up is done: what loading and partitioning freed goes back to the system
    int64_t& step = at.step;

    if (leader)
        events.publishEvent(
            StartEvent{opt.worldSize, step, totalSteps, device.str(), model->info().numParameters, data->numTrain(),
                       data->numEval(), data->summary(), globalBatch * cfg.data.maxLength, versionsJson(device)},
            opt.rank);

    const int deviceIndex = device.is_cuda() ? device.index() : -1;
    auto publishMemory = [&](int64_t atStep) {
        MemorySample m = sampleMemory(deviceIndex);
        events.publishEvent(MemoryEvent{atStep, m.device, m.allocated, m.reserved, m.peak, m.capacity}, opt.rank);
    };

    // eval_loss: the summed loss of the eval sequences over their counted predictions (classification: the mean
    // over rows), plus accuracy / F1 or MSE / Pearson from the logits for classification (classification_metrics.h).
    using Metrics = std::map<std::string, double>;
    auto evaluate = [&]() -> Metrics {
        if (data->numEval() == 0) return {};
        where.phase = StepPhase::Eval;
        torch::NoGradGuard noGrad;
        model->setTraining(false);
        AutocastScope autocast(plan.bf16Autocast(), device);
        double sum = 0.0;
        int64_t counted = 0, batches = 0;
        std::vector<float> logitRows, targetRows;
        const int64_t n = data->numEval();
        optimizer->beginForwardOnly();  // stage 3: gathers the parameters outside the blocks
        for (int64_t begin = 0; begin < n; begin += micro) {
            if (tr.evalBatches > 0 && batches >= tr.evalBatches) break;
            std::vector<int64_t> idx;
            for (int64_t i = begin; i < std::min(n, begin + micro); ++i) idx.push_back(i);
            TrainBatch batch = data->batch(true, idx, device);
            if (preference) {  // pairs: the loss is a mean per micro-batch, as are TRL's eval metrics
                sum += preference->loss(*model, batch, idx, true).item<double>();
                counted += 1;
                batches += 1;
                continue;
            }
            if (!labelled) {  // language models: the loss alone (chunked unless model.chunked_loss is off)
                sum += forwardLossSum(*model, batch, cfg.model.chunkedLoss).item<double>();
                counted += batch.lossTokens;
                batches += 1;
                continue;
            }
            torch::Tensor logits = forwardBatch(*model, batch).to(torch::kFloat32);
            sum += batchLossSum(*model, logits, batch).item<double>();
            counted += batch.lossTokens;
            batches += 1;
            if (labelled) {
                auto append = [](std::vector<float>& to, const torch::Tensor& t) {
                    const torch::Tensor c = t.to(torch::kCPU, torch::kFloat32).contiguous();
                    to.insert(to.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
                };
                append(logitRows, logits);
                append(targetRows, batch.labels);
            }
        }
        optimizer->endForwardOnly();
        model->setTraining(true);
        Metrics out;
        if (counted > 0) out["eval_loss"] = sum / double(counted);
        if (preference)
            for (const auto& [name, value] : metricsOverRanks(preference->takeMetrics(true)))
                out["eval_" + name] = value;
        if (labelled)
            for (const auto& [name, value] :
                 classificationMetrics(labelled->kind, labelled->numLabels(), logitRows, targetRows))
                out["eval_" + name] = value;
        return out;
    };
    auto publishEval = [&](const Metrics& m) {
        MetricsEvent e{step, {}};
        for (const auto& [name, value] : m)
            if (std::isfinite(value)) e.values[name] = value;  // Pearson's r of a constant side is NaN: not stored
        if (leader && !e.values.empty()) events.publishEvent(e);
    };

    // Training time: the seconds before this process (from the checkpoint resumed) plus this process's since the
    // loop began, folded into `at` whenever a checkpoint is written, so a resumed run's clock goes on.
    Clock::time_point runStart = Clock::now();
    auto checkpoint = [&] {
        at.elapsedBefore += std::chrono::duration<double>(Clock::now() - runStart).count();
        runStart = Clock::now();
        where.phase = StepPhase::Checkpoint;
        const fs::path dir = saveRunCheckpoint(run, sampler, at);
        if (leader) events.publishEvent(CheckpointEvent{step, dir.string()});
    };

    // NVMe offload: this rank's swap traffic since the last log line, as throughput over that wall time and the
    // seconds per step the step waited for the disk (a slow disk shows as the reason for a slow step).
    ModelStateBytes swapBefore = optimizer->modelState();
    auto swapSince = Clock::now();
    int64_t swapStepBefore = step;
    auto publishSwap = [&](int64_t atStep) {
        const ModelStateBytes now = optimizer->modelState();
        const int64_t read = now.swapRead - swapBefore.swapRead, written = now.swapWritten - swapBefore.swapWritten;
        const double seconds = std::max(1e-9, std::chrono::duration<double>(Clock::now() - swapSince).count());
        const double steps = double(std::max<int64_t>(1, atStep - swapStepBefore));
        if (read + written > 0)
            events.publishEvent(
                MetricsEvent{atStep,
                             {{"swap_read_mb_s", double(read) / 1e6 / seconds},
                              {"swap_write_mb_s", double(written) / 1e6 / seconds},
                              {"swap_wait_s", (now.swapWaitSeconds - swapBefore.swapWaitSeconds) / steps}}});
        swapBefore = now;
        swapSince = Clock::now();
        swapStepBefore = atStep;
    };

    // ---- the loop -----------------------------------------------------------------------------
    model->setTraining(true);
    double lastLoss = std::nan("");
    Metrics lastEval;
    bool savedAtLastStep = false;
    TrainOutcome outcome = TrainOutcome::Completed;
    runStart = Clock::now();
    publishMemory(step);
    if (step == 0 && tr.evalInterval > 0) {  // a baseline before training (as HF's eval_on_start)
        lastEval = evaluate();
        publishEval(lastEval);
    }
    // Replies to training.sample_prompts. Every rank generates them (the same greedy tokens: ranks 1..N-1 would
    // otherwise wait at the next collective for longer than its timeout); rank 0 publishes them.
    const std::unique_ptr<TrainingSamples> samples =
        TrainingSamples::prepare(cfg, *tokenizer, *model, plan.runsSamples(), events, leader);
    auto sample = [&] {
        where.phase = StepPhase::Samples;
        AutocastScope autocast(plan.bf16Autocast(), device);
        samples->publish(*model, step, events, leader);
    };
    if (samples && step == 0 && tr.sampleEvery() > 0) sample();
    // deepspeed.wall_clock_breakdown: section times as metrics; training.profile: a kernel-by-kernel profile
    StepTimer timer(ds.wallClockBreakdown, device);
    StepProfiler profiler(
        tr.profile, device,
        opt.worldSize > 1 ? tr.outputDir / "profile" / ("rank" + std::to_string(opt.rank)) : tr.outputDir / "profile");
    int64_t stepsRun = 0;  // by this process (the profile's window counts from its start, resumed or not)
    while (step < totalSteps) {
        where.step = step + 1;
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
        profiler.beforeStep(stepsRun);
        auto t0 = Clock::now();
        const double lr = learningRateAt(schedule, ds.optimizer.lr, step - at.skippedSteps);
        // The step's micro-batches first: the loss is normalised by the counted predictions of the whole
        // accumulated batch on all ranks (transformers' num_items_in_batch), so masked tokens weigh nothing.
        std::vector<TrainBatch> batches;
        std::vector<std::vector<int64_t>> batchIndices;
        int64_t stepLossTokens = 0, stepTokens = 0;
        for (int64_t a = 0; a < accum; ++a) {
            std::vector<int64_t> idx(static_cast<size_t>(micro));
            for (auto& i : idx) i = sampler.next();
            batches.push_back(data->batch(false, idx, device));
            batchIndices.push_back(std::move(idx));
            stepLossTokens += batches.back().lossTokens;
            stepTokens += batches.back().tokens;
        }
        if (opt.worldSize > 1) {
            auto counts = torch::tensor({stepLossTokens, stepTokens}, torch::kInt64);
            comm->allReduce(counts);
            stepLossTokens = counts[0].item<int64_t>();
            stepTokens = counts[1].item<int64_t>();
        }
        double lossSum = 0.0;
        for (size_t a = 0; a < batches.size(); ++a) {
            TrainBatch& batch = batches[a];
            optimizer->beginMicroStep(a + 1 == batches.size());
            where.phase = StepPhase::Forward;
            torch::Tensor loss;
            timer.begin(StepSection::Forward);
            {
                RECORD_USER_SCOPE("fts::forward");
                AutocastScope autocast(plan.bf16Autocast(), device);
                loss = preference ? preference->loss(*model, batch, batchIndices[a], false)
                                  : forwardLossSum(*model, batch, cfg.model.chunkedLoss);
            }
            timer.end(StepSection::Forward);
            where.phase = StepPhase::Backward;
            timer.begin(StepSection::Backward);
            {
                RECORD_USER_SCOPE("fts::backward");
                optimizer->backward(loss, stepLossTokens);  // a part of the step's loss (fp16: times the loss scale)
                optimizer->endMicroStep();
            }
            timer.end(StepSection::Backward);
            lossSum += loss.item<double>();
            batch = TrainBatch();
        }
        if (opt.worldSize >
            1) {  // the logged loss: the ranks' summed loss over the global count (gradients: the step engine)
            auto l = torch::full({1}, lossSum, torch::kFloat64);
            comm->allReduce(l);
            lossSum = l.item<double>();
        }
        where.phase = StepPhase::Optimizer;
        timer.begin(StepSection::Optimizer);
        const StepResult stepped = [&] {
            RECORD_USER_SCOPE("fts::optimizer_step");
            return optimizer->step(lr, ds.gradientClipping);  // LossScaleError at the minimum scale
        }();
        timer.end(StepSection::Optimizer);
        timer.stepDone();
        const double gradNorm = stepped.gradNorm;
        if (stepped.overflow) {
            at.skippedSteps += 1;
            if (leader)
                events.log("info", "step " + std::to_string(step + 1) +
                                       ": fp16 gradients overflowed, step skipped; loss scale " +
                                       std::to_string(stepped.lossScale) + " -> " + std::to_string(stepped.nextScale));
        }
        step += 1;
        stepsRun += 1;
        if (auto written = profiler.afterStep(); written && leader) events.log("info", *written);
        at.tokensSeen += stepTokens;
        const double stepSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
        lastLoss = lossSum / double(std::max<int64_t>(stepLossTokens, 1));
        if (!std::isfinite(lastLoss) && !stepped.overflow)
            throw Error("step " + std::to_string(step) + ": the loss is " + std::to_string(lastLoss) +
                        "; lower deepspeed.optimizer.params.lr or enable deepspeed.gradient_clipping");
        const bool last = step == totalSteps;

        // log block
        if (step % tr.logInterval == 0 || last) {
            if (leader)
                events.publishEvent(MetricsEvent{
                    step,
                    {{"loss", lastLoss},
                     {"lr", lr},
                     {"grad_norm", gradNorm},
                     {"tokens_per_s", double(stepTokens) / std::max(stepSeconds, 1e-9)},
                     {"tokens_seen", double(at.tokensSeen)},
                     // training time so far, over resumes (the compare page's wall-time axis)
                     {"elapsed_s", at.elapsedBefore + std::chrono::duration<double>(Clock::now() - runStart).count()},
                     {"epoch",
                      double(sampler.state().epoch) + double(sampler.state().position) / double(data->numTrain())}}});
            if (preference)  // TRL's rewards/..., logps/..., logits/... of the steps since the last log
                if (const auto m = metricsOverRanks(preference->takeMetrics(false)); leader) {
                    MetricsEvent e{step, {}};
                    for (const auto& [name, value] : m)
                        if (std::isfinite(value)) e.values[name] = value;
                    if (!e.values.empty()) events.publishEvent(e);
                }
            if (leader && plan.lossScaling())  // the scale this step's backward used (the GUI plots it)
                events.publishEvent(MetricsEvent{step, {{"loss_scale", stepped.lossScale}}});
            if (auto sections = timer.take(); leader && !sections.empty())  // ms per step since the last log
                events.publishEvent(MetricsEvent{step, {sections.begin(), sections.end()}});
            if (leader) publishSwap(step);
            publishMemory(step);
        }
        // eval block
        if ((tr.evalInterval > 0 && step % tr.evalInterval == 0) || last) {
            lastEval = evaluate();
            publishEval(lastEval);
        }
        if (samples && samples->due(step, last)) sample();
        // checkpoint block
        savedAtLastStep = false;
        if ((tr.saveInterval > 0 && step % tr.saveInterval == 0) || last) {
            checkpoint();
            savedAtLastStep = true;
        }
    }
    if (auto written = profiler.finish(); written && leader) events.log("info", *written);
    if (outcome == TrainOutcome::Stopped && !savedAtLastStep && step > 0) {
        events.log("info", "stop requested: saving a checkpoint at step " + std::to_string(step));
        checkpoint();
    }

    // elapsed_s: the training time over every session of the run (the store's ended - started is the last one's)
    nlohmann::json final{
        {"steps", step},
        {"tokens_seen", at.tokensSeen},
        {"elapsed_s", at.elapsedBefore + std::chrono::duration<double>(Clock::now() - runStart).count()}};
    if (std::isfinite(lastLoss)) final["loss"] = lastLoss;
    for (const auto& [name, value] : lastEval)
        if (std::isfinite(value)) final[name] = value;
    if (outcome == TrainOutcome::Completed && leader) {
        where.phase = StepPhase::Export;
        const fs::path exportDir = tr.outputDir / "final";
        exportCheckpoint(latestCheckpoint(tr.outputDir), exportDir, "float32");
        final["export_dir"] = exportDir.string();
    }
    comm->barrier();  // rank 0's export is done before any rank reports the end
    events.publishEvent(EndEvent{outcome == TrainOutcome::Completed ? "completed" : "stopped", final}, opt.rank);
    return outcome;
}

TrainOutcome runTraining(const TrainConfig& cfg, const TrainOptions& opt, EventSink& events,
                         const std::atomic<bool>& stopRequested) {
    RunPosition where;
    where.config = cfg;
    try {
        return train(cfg, opt, events, stopRequested, where);
    } catch (const c10::OutOfMemoryError& e) {  // what a user can do about it, not LibTorch's paragraph
        throw Error(outOfMemoryMessage(opt.worldSize, where, e.what_without_backtrace()));
    } catch (const std::bad_alloc& e) {
        throw Error(outOfMemoryMessage(opt.worldSize, where, e.what()));
    } catch (const c10::Error& e) {  // LibTorch's own errors: keep the message, drop the C++ backtrace
        if (isOutOfMemory(e)) throw Error(outOfMemoryMessage(opt.worldSize, where, e.what_without_backtrace()));
        throw Error(e.what_without_backtrace());
    }
}

}  // namespace fts
