// Stage 0 and ZeRO 1/2/3 step engines (see step_engine.h).
#include "core/zero/step_engine.h"

#include <algorithm>
#include <cmath>

#include "core/model/language_model.h"
#include "core/optim/adamw.h"
#include "core/util/error.h"
#include "core/zero/zero3_optimizer.h"
#include "core/zero/zero_optimizer.h"

namespace fts {

void StepEngine::backward(const torch::Tensor& lossSum, int64_t globalCount) {
    // Each rank's share is multiplied by the world size because the engines average the ranks' gradients.
    const double weight = double(m_worldSize) / double(std::max<int64_t>(globalCount, 1));
    if (m_fp16)
        (lossSum * weight * m_scaler.scale()).backward();
    else
        (lossSum * weight).backward();
}

StepResult StepEngine::step(double lr, double maxNorm) {
    const double scale = m_scaler.scale();
    StepResult r = reduceAndStep(lr, maxNorm, scale);
    m_scaler.update(r.overflow);  // DeepSpeed's update_scale after every step, skipped or not
    r.lossScale = scale;
    r.nextScale = m_scaler.scale();
    return r;
}

namespace {

// Replicated AdamW; with N > 1 ranks the gradients are averaged with one all-reduce over a flat copy. Parameters
// in fp16/bf16 get fp32 master copies (the update runs on the masters, then they are copied into the parameters).
std::vector<torch::Tensor> fp32Masters(const std::vector<torch::Tensor>& params) {
    bool allFp32 = true;
    for (const auto& p : params) allFp32 = allFp32 && p.scalar_type() == torch::kFloat32;
    std::vector<torch::Tensor> masters;
    if (allFp32) return masters;
    for (const auto& p : params) masters.push_back(p.detach().to(torch::kFloat32).clone().requires_grad_(true));
    return masters;
}

class Stage0Engine : public StepEngine {
public:
    Stage0Engine(std::vector<torch::Tensor> params, const OptimizerConfig& cfg, Communicator& comm,
                 const Fp16Config& fp16)
        : StepEngine(fp16, comm.worldSize()),
          m_params(std::move(params)),
          m_masters(fp32Masters(m_params)),
          m_adam(m_masters.empty() ? m_params : m_masters, cfg),
          m_comm(comm) {}
    void beginMicroStep(bool) override {}
    void endMicroStep() override {}
    StepResult reduceAndStep(double lr, double maxNorm, double lossScale) override {
        torch::NoGradGuard ng;
        if (m_comm.worldSize() > 1) {
            std::vector<torch::Tensor> grads;
            for (auto& p : m_params) {
                if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
                grads.push_back(p.grad().reshape({-1}));
            }
            torch::Tensor flat = torch::cat(grads);
            m_comm.allReduce(flat);
            flat.div_(double(m_comm.worldSize()));
            int64_t off = 0;
            for (auto& p : m_params) {
                p.grad().copy_(flat.narrow(0, off, p.numel()).view(p.sizes()));
                off += p.numel();
            }
        }
        std::vector<torch::Tensor>& target = m_masters.empty() ? m_params : m_masters;
        for (size_t i = 0; i < m_masters.size(); ++i)
            m_masters[i].mutable_grad() =
                m_params[i].grad().defined() ? m_params[i].grad().to(torch::kFloat32) : torch::Tensor();
        if (lossScale != 1.0)
            for (auto& p : target)
                if (p.grad().defined()) p.grad().div_(lossScale);
        StepResult r;
        r.gradNorm = clipGradNorm(target, maxNorm);
        r.overflow = !std::isfinite(r.gradNorm);
        if (!r.overflow) {
            m_adam.step(lr);
            for (size_t i = 0; i < m_masters.size(); ++i) m_params[i].detach().copy_(m_masters[i]);
        }
        m_adam.zeroGrad();
        for (auto& p : m_params) p.mutable_grad() = torch::Tensor();
        return r;
    }
    int64_t stepCount() const override { return m_adam.stepCount(); }
    ModelStateBytes modelState() const override {
        ModelStateBytes m;
        for (const auto& p : m_params) {
            m.parameters[dtypeName(p.scalar_type())] += p.nbytes();
            m.gradients[dtypeName(p.scalar_type())] += p.nbytes();  // held from backward to the step
        }
        for (const auto& t : m_masters) m.optimizer["float32"] += t.nbytes();
        m.optimizer["float32"] += m_adam.stateBytes();
        return m;
    }
    std::vector<std::pair<std::string, torch::Tensor>> stateTensors() const override {
        auto out = m_adam.stateTensors();
        for (size_t i = 0; i < m_masters.size(); ++i) out.emplace_back("master." + std::to_string(i), m_masters[i]);
        return out;
    }
    void loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                   const std::string& what) override {
        torch::NoGradGuard ng;
        std::vector<std::pair<std::string, torch::Tensor>> adam;
        size_t masters = 0;
        for (const auto& [name, t] : tensors) {
            if (name.rfind("master.", 0) != 0) {
                adam.emplace_back(name, t);
                continue;
            }
            const size_t i = std::stoul(name.substr(7));
            if (i >= m_masters.size() || !m_masters[i].sizes().equals(t.sizes()))
                throw FormatError(what + ": tensor '" + name + "' does not match this model's fp32 master copies");
            m_masters[i].copy_(t);
            m_params[i].detach().copy_(t);
            ++masters;
        }
        if (masters != m_masters.size())
            throw FormatError(what + ": found " + std::to_string(masters) + " fp32 master tensors, expected " +
                              std::to_string(m_masters.size()) + " (was the checkpoint made with the same precision?)");
        m_adam.loadState(adam, step);
    }

private:
    std::vector<torch::Tensor> m_params;
    std::vector<torch::Tensor> m_masters;  // fp32 copies when the parameters are fp16/bf16; else empty
    AdamW m_adam;
    Communicator& m_comm;
};

// Stages 1-3: the sharded optimizer owns gradients, masters and state; this forwards the engine interface to it
// (ZeroOptimizer and Zero3Optimizer share these members).
template <class Sharded>
class ShardedEngine : public StepEngine {
public:
    template <class... Args>
    explicit ShardedEngine(const Fp16Config& fp16, int worldSize, Args&&... args)
        : StepEngine(fp16, worldSize), m_zero(std::forward<Args>(args)...) {}
    void beginMicroStep(bool last) override { m_zero.beginMicroStep(last); }
    void endMicroStep() override { m_zero.endMicroStep(); }
    StepResult reduceAndStep(double lr, double maxNorm, double lossScale) override {
        GradientStats st = m_zero.prepareGradients(maxNorm, lossScale);
        if (!st.overflow) m_zero.step(lr);
        m_zero.zeroGrad();
        return {st.norm, st.overflow};
    }
    int64_t stepCount() const override { return m_zero.stepCount(); }
    ModelStateBytes modelState() const override { return m_zero.modelState(); }
    std::vector<std::pair<std::string, torch::Tensor>> stateTensors() const override { return m_zero.shardTensors(); }
    void loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                   const std::string& what) override {
        m_zero.loadShard(tensors, step, what);
    }

protected:
    Sharded m_zero;
};

using ZeroEngine = ShardedEngine<ZeroOptimizer>;

std::vector<torch::Tensor*> parameterSlots(LanguageModel& model) {
    std::vector<torch::Tensor*> slots;
    for (auto& p : model.parameters()) slots.push_back(&p.tensor);
    return slots;
}
std::vector<std::string> parameterNames(LanguageModel& model) {
    std::vector<std::string> names;
    for (auto& p : model.parameters()) names.push_back(p.name);
    return names;
}

class Stage3Engine : public ShardedEngine<Zero3Optimizer> {
public:
    Stage3Engine(LanguageModel& model, const OptimizerConfig& cfg, const Fp16Config& fp16, Communicator& comm,
                 const Zero3Options& o, const std::vector<std::vector<int64_t>>& fullShapes)
        : ShardedEngine(fp16, comm.worldSize(), parameterSlots(model), parameterNames(model),
                        model.blockParameterRanges(), cfg, comm, o, fullShapes),
          m_model(model) {
        m_model.setBlockRunner([this](const LanguageModel::BlockFn& block, const torch::Tensor& h, size_t first,
                                      size_t count) { return m_zero.runBlock(block, h, first, count); });
    }
    ~Stage3Engine() override { m_model.setBlockRunner(nullptr); }
    void beginForwardOnly() override { m_zero.beginForwardOnly(); }
    void endForwardOnly() override { m_zero.endForwardOnly(); }
    nlohmann::json partition() const override { return m_zero.partitionJson(); }

private:
    LanguageModel& m_model;
};

// ZeRO stage 3 with LoRA: the frozen base is partitioned like any stage-3 parameter (gathered around each block,
// prefetched, offloadable) by a frozen Zero3Optimizer that runs the blocks; the adapters, small and whole on every
// rank, get their gradients from the blocks' recomputing backward and are reduced, clipped and stepped by a
// ZeroOptimizer whose gradient and optimizer-state partitions follow stage 2's (DeepSpeed 0.19.8 would partition
// adapters above stage3_param_persistence_threshold too; they are kept whole here, which only costs their bytes).
class Stage3LoraEngine : public ShardedEngine<ZeroOptimizer> {
public:
    Stage3LoraEngine(LanguageModel& model, std::vector<torch::Tensor> adapters, const OptimizerConfig& cfg,
                     const Fp16Config& fp16, Communicator& comm, const ZeroOptions& adapterOptions,
                     const Zero3Options& baseOptions)
        : ShardedEngine(fp16, comm.worldSize(), std::move(adapters), cfg, comm, adapterOptions),
          m_model(model),
          m_base(parameterSlots(model), parameterNames(model), model.blockParameterRanges(), cfg, comm, baseOptions) {
        m_model.setBlockRunner([this](const LanguageModel::BlockFn& block, const torch::Tensor& h, size_t first,
                                      size_t count) { return m_base.runBlock(block, h, first, count); });
    }
    ~Stage3LoraEngine() override { m_model.setBlockRunner(nullptr); }
    void beginMicroStep(bool last) override {
        m_base.beginMicroStep(last);
        m_zero.beginMicroStep(last);
    }
    void endMicroStep() override {
        m_base.endMicroStep();
        m_zero.endMicroStep();
    }
    void beginForwardOnly() override { m_base.beginForwardOnly(); }
    void endForwardOnly() override { m_base.endForwardOnly(); }
    ModelStateBytes modelState() const override {
        ModelStateBytes m = m_zero.modelState();
        const ModelStateBytes base = m_base.modelState();
        for (const auto& [dt, b] : base.parameters) m.parameters[dt] += b;
        m.hostOffload += base.hostOffload;
        m.nvmeOffload += base.nvmeOffload;
        m.swapRead += base.swapRead;
        m.swapWritten += base.swapWritten;
        m.swapWaitSeconds += base.swapWaitSeconds;
        return m;
    }

private:
    LanguageModel& m_model;
    Zero3Optimizer m_base;
};

}  // namespace

std::unique_ptr<StepEngine> makeStepEngine(std::vector<torch::Tensor> params, const ZeroPlan& plan, Communicator& comm,
                                           LanguageModel* model,
                                           const std::vector<std::vector<int64_t>>& partitionedShapes) {
    const DeepSpeedConfig& ds = plan.deepspeed();
    if (plan.stage() == 0) return std::make_unique<Stage0Engine>(std::move(params), ds.optimizer, comm, ds.fp16);
    ZeroOptions o;  // stages 1 and 2, and LoRA's adapters at stage 3 (as stage 2)
    o.stage = plan.partitionsGradients() ? 2 : 1;
    o.reduceBucketElems = ds.zero.reduceBucketSize;
    o.allgatherBucketElems = ds.zero.allgatherBucketSize;
    o.contiguousGradients = ds.zero.contiguousGradients;
    o.reduceScatter = ds.zero.reduceScatter;
    o.placement = plan.optimizerPlacement();
    if (!plan.partitionsParameters())
        return std::make_unique<ZeroEngine>(ds.fp16, comm.worldSize(), std::move(params), ds.optimizer, comm, o);
    if (!model) throw Error("ZeRO stage 3 needs the model (it partitions the model's parameters)");
    Zero3Options z;
    z.reduceBucketElems = ds.zero.reduceBucketSize;
    z.allgatherBucketElems = ds.zero.allgatherBucketSize;
    z.reduceScatter = ds.zero.reduceScatter;
    z.prefetchBucketElems = ds.zero.prefetchBucketSize;
    z.persistenceThreshold = ds.zero.paramPersistenceThreshold;
    z.maxLiveElems = ds.zero.maxLiveParameters;
    z.placement = o.placement;
    z.paramPlacement = plan.parameterPlacement();
    if (plan.lora()) {  // model.lora: the base partitioned and frozen, the adapters trained beside it
        z.frozen = true;
        return std::make_unique<Stage3LoraEngine>(*model, std::move(params), ds.optimizer, ds.fp16, comm, o, z);
    }
    return std::make_unique<Stage3Engine>(*model, ds.optimizer, ds.fp16, comm, z, partitionedShapes);
}

}  // namespace fts
