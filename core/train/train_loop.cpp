// One rank's training run (see train_loop.h): the set-up in the constructor, then run() step by step.
#include "core/train/train_loop.h"

#include <torch/version.h>
#include <ATen/record_function.h>

#include <cmath>

#include <unistd.h>

#include "core/data/tokenizer.h"
#include "core/dist/communicator.h"
#include "core/model/language_model.h"
#include "core/model/lora.h"
#include "core/train/autocast_scope.h"
#include "core/train/classification_batches.h"
#include "core/train/host_allocator.h"
#include "core/train/run_model.h"
#include "core/train/telemetry.h"
#include "core/train/training_objective.h"
#include "core/train/training_samples.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

DistOptions distOptionsFor(const TrainOptions& opt, const torch::Device& device) {
    DistOptions d;
    d.host = opt.masterAddr;
    d.port = opt.masterPort;
    d.listenFd = opt.storeFd;
    d.storeHostedElsewhere = opt.storeHostedByLauncher;
    d.localAddr = opt.localAddr;
    d.rank = opt.rank;
    d.worldSize = opt.worldSize;
    d.token = opt.runToken;
    d.timeout = std::chrono::milliseconds(opt.collectiveTimeoutMs);
    d.backend = backendForDevice(device);
    return d;
}

nlohmann::json versionsJson(torch::Device device) {
    nlohmann::json v{{"fts", FTS_VERSION}, {"torch", TORCH_VERSION}};
    v["device"] = device.str();
    v["cuda_available"] = torch::cuda::is_available();
    return v;
}

// The named values worth storing: Pearson's r of a constant side (NaN) or a KTO label no rank saw are left out.
MetricsEvent finiteMetrics(int64_t step, const NamedValues& values) {
    MetricsEvent e{step, {}};
    for (const auto& [name, value] : values)
        if (std::isfinite(value)) e.values[name] = value;
    return e;
}

}  // namespace

// ---- set-up -------------------------------------------------------------------------------------

TrainLoop::TrainLoop(const TrainConfig& cfg, torch::Device device, const TrainOptions& opt, EventSink& events,
                     const std::atomic<bool>& stopRequested, RunPosition& where)
    : m_cfg(cfg),
      m_opt(opt),
      m_events(events),
      m_stopRequested(stopRequested),
      m_where(where),
      m_device(device),
      m_leader(opt.rank == 0),
      m_lastLoss(std::nan("")) {
    const TrainingSection& tr = m_cfg.training;
    installHostCachingAllocator();  // steps reuse their host blocks instead of faulting fresh pages in each time
    torch::manual_seed(tr.seed);

    // the ranks meet (world size 1: a communicator of identities)
    m_comm = connectRanks(distOptionsFor(opt, device));

    // tokenizer and data: LM blocks, cached instruction sequences, pairs or labelled rows (training_data.h)
    m_tokenizerPath = m_cfg.model.tokenizer.empty() ? m_cfg.model.path / "tokenizer.json" : m_cfg.model.tokenizer;
    m_tokenizer = Tokenizer::fromFile(m_tokenizerPath);
    m_data = loadTrainingData(m_cfg, *m_tokenizer, events, m_leader);
    const int64_t stepsPerEpoch = std::max<int64_t>(1, m_data->numTrain() / m_cfg.deepspeed.trainBatchSize);
    m_totalSteps =
        tr.maxSteps > 0 ? tr.maxSteps : std::max<int64_t>(1, int64_t(std::ceil(tr.epochs * double(stepsPerEpoch))));
    m_schedule = resolveScheduleForRun(m_cfg.deepspeed.scheduler, m_totalSteps);  // "auto" step counts

    m_resumeDir =
        resumeFolder(tr.outputDir, opt.resume, opt.resumeFrom, [&](const fs::path& damaged, const std::string& why) {
            if (m_leader)
                events.log("warn",
                           damaged.string() + " is damaged (" + why + "): resuming from the checkpoint before it");
        });
    loadModel(m_tokenizerPath, m_tokenizer->vocabSize());
    resume();

    m_objective = makeTrainingObjective(
        ObjectiveSetup{m_cfg, *m_model, *m_data, device, m_cfg.deepspeed.microBatchPerGpu,
                       [this](bool on) { on ? m_engine->beginForwardOnly() : m_engine->endForwardOnly(); }, *m_comm,
                       !m_resumeDir.empty(), events, m_leader});
    releaseHostCache();  // set-up is done: what loading and partitioning freed goes back to the system

    if (m_leader)
        events.publishEvent(
            StartEvent{opt.worldSize, m_at.step, m_totalSteps, device.str(), m_model->info().numParameters,
                       m_data->numTrain(), m_data->numEval(), m_data->summary(),
                       m_cfg.deepspeed.trainBatchSize * m_cfg.data.maxLength, versionsJson(device)},
            opt.rank);
}

TrainLoop::~TrainLoop() = default;

// The model on the plan's step engine (run_model.h, step_engine.h). What the ZeRO stage and offload settings mean for
// this rank is the plan's; the run's key names its offload swap folders (the store's id, or this process outside
// the store). Stage 3 partitions the model's parameters in place and runs its blocks.
void TrainLoop::loadModel(const fs::path& tokenizerPath, int64_t vocabSize) {
    const std::string runKey =
        m_opt.runId > 0 ? "run" + std::to_string(m_opt.runId) : "pid" + std::to_string(::getpid());
    m_plan.emplace(m_cfg.deepspeed, m_cfg.model.lora.enabled, ZeroWorld{m_opt.rank, m_opt.worldSize, runKey});
    const ClassificationData* labelled = m_data->classification();  // the head's labels
    RunModel loaded = prepareRunModel(m_cfg, *m_plan, m_resumeDir, m_device, *m_comm, vocabSize, tokenizerPath,
                                      labelled ? classificationConfigPatch(*labelled) : nlohmann::json(nullptr));
    m_model = std::move(loaded.model);
    m_fullShapes = std::move(loaded.fullShapes);
    if (m_opt.worldSize > 1)
        torch::manual_seed(m_cfg.training.seed + uint64_t(m_opt.rank));  // dropout differs across ranks, as DeepSpeed
    // all parameters, or the LoRA adapters
    m_engine = makeStepEngine(trainableTensors(*m_model), *m_plan, *m_comm, m_model.get(), m_fullShapes);
    logModelNotes();
    const ModelStateBytes states = m_engine->modelState();
    m_events.publishEvent(
        ModelStatesEvent{m_plan->summary(), modelStateTable(states), ModelStateBytes::sum(states.parameters),
                         ModelStateBytes::sum(states.gradients), ModelStateBytes::sum(states.optimizer), states.buckets,
                         states.total(), states.hostOffload, states.nvmeOffload},
        m_opt.rank);
}

// The plan's notes, and what a 4-bit base is (QLoRA, docs/qlora.md), in the run's log.
void TrainLoop::logModelNotes() const {
    if (!m_leader) return;
    for (const std::string& note : m_plan->notes(m_device.is_cuda())) m_events.log("info", note);
    if (!hasQuantizedWeights(*m_model)) return;
    const QuantizationSection& q = m_cfg.model.quantization;
    m_events.log("info", q.enabled ? "model.quantization: the base's linear layers are held 4-bit (" + q.quantType +
                                         (q.doubleQuant ? ", double quantization" : "") + "), their products run in " +
                                         q.computeDtype + "; LoRA trains beside them"
                                   : "the model folder holds 4-bit weights (config.json's quantization_config): "
                                     "they stay 4-bit and frozen; LoRA trains beside them");
}

void TrainLoop::resume() {
    m_sampler.emplace(m_data->numTrain(), m_cfg.training.seed, m_opt.rank, m_opt.worldSize);
    if (m_resumeDir.empty()) return;
    m_at = resumeRun(runParts(), m_resumeDir, *m_sampler);
    m_events.log("info", "resumed from " + m_resumeDir.string() + " at step " + std::to_string(m_at.step));
}

RunParts TrainLoop::runParts() const {
    return RunParts{m_cfg,         *m_plan,  *m_comm,        *m_engine, *m_model, m_opt.runId, m_data->numTrain(),
                    m_data->key(), m_device, m_tokenizerPath};
}

// ---- the loop -----------------------------------------------------------------------------------

TrainOutcome TrainLoop::run() {
    const TrainingSection& tr = m_cfg.training;
    int64_t& step = m_at.step;
    m_swapBefore = m_engine->modelState();
    m_swapSince = Clock::now();
    m_swapStepBefore = step;
    m_model->setTraining(true);
    m_sessionStart = Clock::now();
    publishMemory();
    if (step == 0 && tr.evalInterval > 0) {  // a baseline before training (as HF's eval_on_start)
        m_lastEval = evaluate();
        publishEval(m_lastEval);
    }
    // Replies to training.sample_prompts. Every rank generates them (the same greedy tokens: ranks 1..N-1 would
    // otherwise wait at the next collective for longer than its timeout); rank 0 publishes them.
    m_samples = TrainingSamples::prepare(m_cfg, *m_tokenizer, *m_model, m_plan->runsSamples(), m_events, m_leader);
    if (m_samples && step == 0 && tr.sampleEvery() > 0) sample();
    m_timer.emplace(m_cfg.deepspeed.wallClockBreakdown, m_device);
    m_profiler.emplace(tr.profile, m_device,
                       m_opt.worldSize > 1 ? tr.outputDir / "profile" / ("rank" + std::to_string(m_opt.rank))
                                           : tr.outputDir / "profile");

    bool savedAtLastStep = false;
    while (step < m_totalSteps) {
        m_where.step = step + 1;
        if (ranksAgreeToStop()) return finish(TrainOutcome::Stopped, savedAtLastStep);
        const StepReport report = trainStep();
        const bool last = step == m_totalSteps;
        if (step % tr.logInterval == 0 || last) logStep(report);
        if ((tr.evalInterval > 0 && step % tr.evalInterval == 0) || last) {
            m_lastEval = evaluate();
            publishEval(m_lastEval);
        }
        if (m_samples && m_samples->due(step, last)) sample();
        savedAtLastStep = (tr.saveInterval > 0 && step % tr.saveInterval == 0) || last;
        if (savedAtLastStep) checkpoint();
    }
    return finish(TrainOutcome::Completed, savedAtLastStep);
}

// The ranks stop together: a stop seen by any rank stops all at this step.
bool TrainLoop::ranksAgreeToStop() {
    bool stopNow = m_stopRequested.load();
    if (m_opt.worldSize > 1) {
        auto flag = torch::full({1}, stopNow ? 1.0f : 0.0f);
        m_comm->allReduce(flag, ReduceKind::Max);
        stopNow = flag.item<float>() > 0.0f;
    }
    return stopNow;
}

// One optimizer step: gradient_accumulation_steps micro-batches of train_micro_batch_size_per_gpu sequences, forward
// and backward each, then the engine's step (clipping, the optimizer, fp16's overflow check).
TrainLoop::StepReport TrainLoop::trainStep() {
    const DeepSpeedConfig& ds = m_cfg.deepspeed;
    m_profiler->beforeStep(m_stepsRun);
    const auto t0 = Clock::now();
    StepReport report;
    report.lr = learningRateAt(m_schedule, ds.optimizer.lr, m_at.step - m_at.skippedSteps);
    StepBatches step = nextBatches();
    const double lossSum = forwardBackward(step);
    m_where.phase = StepPhase::Optimizer;
    m_timer->begin(StepSection::Optimizer);
    report.engine = [&] {
        RECORD_USER_SCOPE("fts::optimizer_step");
        return m_engine->step(report.lr, ds.gradientClipping);  // LossScaleError at the minimum scale
    }();
    m_timer->end(StepSection::Optimizer);
    m_timer->stepDone();
    report.gradNorm = report.engine.gradNorm;
    if (report.engine.overflow) {
        m_at.skippedSteps += 1;
        if (m_leader)
            m_events.log("info", "step " + std::to_string(m_at.step + 1) +
                                     ": fp16 gradients overflowed, step skipped; loss scale " +
                                     std::to_string(report.engine.lossScale) + " -> " +
                                     std::to_string(report.engine.nextScale));
    }
    m_at.step += 1;
    m_stepsRun += 1;
    if (auto written = m_profiler->afterStep(); written && m_leader) m_events.log("info", *written);
    m_at.tokensSeen += step.tokens;
    report.tokens = step.tokens;
    report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    report.loss = lossSum / double(std::max<int64_t>(step.lossTokens, 1));
    m_lastLoss = report.loss;
    if (!std::isfinite(report.loss) && !report.engine.overflow)
        throw Error("step " + std::to_string(m_at.step) + ": the loss is " + std::to_string(report.loss) +
                    "; lower deepspeed.optimizer.params.lr or enable deepspeed.gradient_clipping");
    return report;
}

// The step's micro-batches, read before any forward pass: the loss is normalised by the counted predictions of the
// whole accumulated batch on all ranks (transformers' num_items_in_batch), so masked tokens weigh nothing.
TrainLoop::StepBatches TrainLoop::nextBatches() {
    const int64_t micro = m_cfg.deepspeed.microBatchPerGpu;
    StepBatches step;
    for (int64_t a = 0; a < m_cfg.deepspeed.gradientAccumulationSteps; ++a) {
        std::vector<int64_t> idx(static_cast<size_t>(micro));
        for (auto& i : idx) i = m_sampler->next();
        step.batches.push_back(m_data->batch(false, idx, m_device));
        step.indices.push_back(std::move(idx));
        step.lossTokens += step.batches.back().lossTokens;
        step.tokens += step.batches.back().tokens;
    }
    if (m_opt.worldSize > 1) {
        auto counts = torch::tensor({step.lossTokens, step.tokens}, torch::kInt64);
        m_comm->allReduce(counts);
        step.lossTokens = counts[0].item<int64_t>();
        step.tokens = counts[1].item<int64_t>();
    }
    return step;
}

// Forward and backward of each micro-batch; the engine accumulates (and on the last, reduces) the gradients.
// Returns the loss summed over the ranks (the logged loss is it over the global count).
double TrainLoop::forwardBackward(StepBatches& step) {
    double lossSum = 0.0;
    for (size_t a = 0; a < step.batches.size(); ++a) {
        TrainBatch& batch = step.batches[a];
        m_engine->beginMicroStep(a + 1 == step.batches.size());
        m_where.phase = StepPhase::Forward;
        torch::Tensor loss;
        m_timer->begin(StepSection::Forward);
        {
            RECORD_USER_SCOPE("fts::forward");
            AutocastScope autocast(m_plan->bf16Autocast(), m_device);
            loss = m_objective->trainingLoss(*m_model, batch, step.indices[a]);
        }
        m_timer->end(StepSection::Forward);
        m_where.phase = StepPhase::Backward;
        m_timer->begin(StepSection::Backward);
        {
            RECORD_USER_SCOPE("fts::backward");
            m_engine->backward(loss, step.lossTokens);  // a part of the step's loss (fp16: times the loss scale)
            m_engine->endMicroStep();
        }
        m_timer->end(StepSection::Backward);
        lossSum += loss.item<double>();
        batch = TrainBatch();  // its activations' inputs go before the next micro-batch
    }
    if (m_opt.worldSize > 1) {
        auto l = torch::full({1}, lossSum, torch::kFloat64);
        m_comm->allReduce(l);
        lossSum = l.item<double>();
    }
    return lossSum;
}

// The log block: the step's figures, the objective's metrics since the last log, the loss scale (fp16), the section
// times (wall_clock_breakdown), the swap traffic (NVMe offload) and the device's memory.
void TrainLoop::logStep(const StepReport& report) {
    const int64_t step = m_at.step;
    const SamplerState position = m_sampler->state();
    if (m_leader)
        m_events.publishEvent(
            MetricsEvent{step,
                         {{"loss", report.loss},
                          {"lr", report.lr},
                          {"grad_norm", report.gradNorm},
                          {"tokens_per_s", double(report.tokens) / std::max(report.seconds, 1e-9)},
                          {"tokens_seen", double(m_at.tokensSeen)},
                          {"elapsed_s", elapsedSeconds()},  // the compare page's wall-time axis
                          {"epoch", double(position.epoch) + double(position.position) / double(m_data->numTrain())}}});
    if (const NamedValues m = m_objective->takeTrainingMetrics(); m_leader && !m.empty())
        if (const MetricsEvent e = finiteMetrics(step, m); !e.values.empty()) m_events.publishEvent(e);
    if (m_leader && m_plan->lossScaling())  // the scale this step's backward used (the GUI plots it)
        m_events.publishEvent(MetricsEvent{step, {{"loss_scale", report.engine.lossScale}}});
    if (auto sections = m_timer->take(); m_leader && !sections.empty())  // ms per step since the last log
        m_events.publishEvent(MetricsEvent{step, {sections.begin(), sections.end()}});
    if (m_leader) publishSwap();
    publishMemory();
}

// The objective's eval metrics over the eval split (every rank evaluates all of it; training.eval_batches caps the
// micro-batches), in eval mode without gradients; stage 3 gathers the parameters outside the blocks.
NamedValues TrainLoop::evaluate() {
    const int64_t n = m_data->numEval(), micro = m_cfg.deepspeed.microBatchPerGpu;
    if (n == 0) return {};
    m_where.phase = StepPhase::Eval;
    torch::NoGradGuard noGrad;
    m_model->setTraining(false);
    AutocastScope autocast(m_plan->bf16Autocast(), m_device);
    m_engine->beginForwardOnly();
    int64_t batches = 0;
    for (int64_t begin = 0; begin < n; begin += micro, ++batches) {
        if (m_cfg.training.evalBatches > 0 && batches >= m_cfg.training.evalBatches) break;
        std::vector<int64_t> idx;
        for (int64_t i = begin; i < std::min(n, begin + micro); ++i) idx.push_back(i);
        m_objective->evaluateBatch(*m_model, m_data->batch(true, idx, m_device), idx);
    }
    m_engine->endForwardOnly();
    m_model->setTraining(true);
    return m_objective->takeEvalMetrics();
}

void TrainLoop::publishEval(const NamedValues& metrics) const {
    const MetricsEvent e = finiteMetrics(m_at.step, metrics);
    if (m_leader && !e.values.empty()) m_events.publishEvent(e);
}

void TrainLoop::sample() {
    m_where.phase = StepPhase::Samples;
    AutocastScope autocast(m_plan->bf16Autocast(), m_device);
    m_samples->publish(*m_model, m_at.step, m_events, m_leader);
}

// The training time so far is folded into the counters a checkpoint carries, so a resumed run's clock goes on.
void TrainLoop::checkpoint() {
    m_at.elapsedBefore += std::chrono::duration<double>(Clock::now() - m_sessionStart).count();
    m_sessionStart = Clock::now();
    m_where.phase = StepPhase::Checkpoint;
    const fs::path dir = saveRunCheckpoint(runParts(), *m_sampler, m_at);
    if (m_leader) m_events.publishEvent(CheckpointEvent{m_at.step, dir.string()});
}

void TrainLoop::publishMemory() const {
    const MemorySample m = sampleMemory(m_device.is_cuda() ? m_device.index() : -1);
    m_events.publishEvent(MemoryEvent{m_at.step, m.device, m.allocated, m.reserved, m.peak, m.capacity}, m_opt.rank);
}

// NVMe offload: this rank's swap traffic since the last log line, as throughput over that wall time and the seconds
// per step the step waited for the disk (a slow disk shows as the reason for a slow step).
void TrainLoop::publishSwap() {
    const int64_t step = m_at.step;
    const ModelStateBytes now = m_engine->modelState();
    const int64_t read = now.swapRead - m_swapBefore.swapRead, written = now.swapWritten - m_swapBefore.swapWritten;
    const double seconds = std::max(1e-9, std::chrono::duration<double>(Clock::now() - m_swapSince).count());
    const double steps = double(std::max<int64_t>(1, step - m_swapStepBefore));
    if (read + written > 0)
        m_events.publishEvent(
            MetricsEvent{step,
                         {{"swap_read_mb_s", double(read) / 1e6 / seconds},
                          {"swap_write_mb_s", double(written) / 1e6 / seconds},
                          {"swap_wait_s", (now.swapWaitSeconds - m_swapBefore.swapWaitSeconds) / steps}}});
    m_swapBefore = now;
    m_swapSince = Clock::now();
    m_swapStepBefore = step;
}

// The seconds before this process (from the checkpoint resumed) plus this process's since the loop began.
double TrainLoop::elapsedSeconds() const {
    return m_at.elapsedBefore + std::chrono::duration<double>(Clock::now() - m_sessionStart).count();
}

// The run's end: a stopped run saves its step unless it just did; a completed one is exported by rank 0 (to
// output_dir/final); then every rank reports the end with the run's final figures.
TrainOutcome TrainLoop::finish(TrainOutcome outcome, bool savedAtLastStep) {
    const int64_t step = m_at.step;
    if (auto written = m_profiler->finish(); written && m_leader) m_events.log("info", *written);
    if (outcome == TrainOutcome::Stopped && !savedAtLastStep && step > 0) {
        m_events.log("info", "stop requested: saving a checkpoint at step " + std::to_string(step));
        checkpoint();
    }
    // elapsed_s: the training time over every session of the run (the store's ended - started is the last one's)
    nlohmann::json final{{"steps", step}, {"tokens_seen", m_at.tokensSeen}, {"elapsed_s", elapsedSeconds()}};
    if (std::isfinite(m_lastLoss)) final["loss"] = m_lastLoss;
    for (const auto& [name, value] : m_lastEval)
        if (std::isfinite(value)) final[name] = value;
    if (outcome == TrainOutcome::Completed && m_leader) {
        m_where.phase = StepPhase::Export;
        const fs::path exportDir = m_cfg.training.outputDir / "final";
        exportCheckpoint(latestCheckpoint(m_cfg.training.outputDir), exportDir, "float32");
        final["export_dir"] = exportDir.string();
    }
    m_comm->barrier();  // rank 0's export is done before any rank reports the end
    m_events.publishEvent(EndEvent{outcome == TrainOutcome::Completed ? "completed" : "stopped", final}, m_opt.rank);
    return outcome;
}

}  // namespace fts
