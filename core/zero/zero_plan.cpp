// ZeroPlan (see zero_plan.h): the stage's rules, each written once.
#include "core/zero/zero_plan.h"

#include "core/util/error.h"
#include "core/zero/zero3_optimizer.h"

namespace fts {

const char* checkpointLayoutName(CheckpointLayout layout) {
    switch (layout) {
        case CheckpointLayout::FlatPartition:
            return "flat_partition";
        case CheckpointLayout::TensorPartition:
            return "tensor_partition";
        case CheckpointLayout::Replicated:
            break;
    }
    return "replicated";
}

ZeroPlan::ZeroPlan(const DeepSpeedConfig& ds, bool lora, ZeroWorld world)
    : m_ds(ds), m_world(std::move(world)), m_placement(ZeroPlacement::of(ds, lora)) {
    // The parser admits stages 0-3 only; a config built in code that says otherwise is a programming error.
    if (stage() < 0 || stage() > 3)
        throw ConfigError("deepspeed.zero_optimization.stage " + std::to_string(stage()) + ": expected 0-3");
}

namespace {

std::filesystem::path swapFolder(const std::filesystem::path& nvmePath, const ZeroWorld& w) {
    return nvmePath / w.runKey / ("rank" + std::to_string(w.rank));
}

}  // namespace

PartitionPlacement ZeroPlan::optimizerPlacement() const {
    PartitionPlacement p;
    p.subGroupElems = m_ds.zero.subGroupSize;
    p.where = optimizerState();
    if (p.where == StatePlacement::Device) return p;
    const OffloadOptimizerConfig& o = m_ds.zero.offloadOptimizer;
    p.pinMemory = o.pinMemory;
    p.bufferCount = int(std::max<int64_t>(1, o.bufferCount));
    p.pipelineRead = o.pipelineRead;
    p.pipelineWrite = o.pipelineWrite;
    if (p.where == StatePlacement::Nvme) p.swapDir = swapFolder(o.nvmePath, m_world);
    p.io = swapIoOptions(m_ds.aio);
    return p;
}

ParamStorePlacement ZeroPlan::parameterPlacement() const {
    ParamStorePlacement p;
    p.where = parameters();
    if (p.where == StatePlacement::Device) return p;
    const OffloadParamConfig& o = m_ds.zero.offloadParam;
    p.pinMemory = o.pinMemory;
    p.maxInCpu = o.maxInCpu;
    p.bufferCount = int(o.bufferCount);
    p.bufferElems = o.bufferSize;
    if (p.where == StatePlacement::Nvme) p.swapDir = swapFolder(o.nvmePath, m_world);
    p.io = swapIoOptions(m_ds.aio);
    return p;
}

ZeroPlan::LoadPartition ZeroPlan::loadPartition(std::vector<std::vector<int64_t>>& fullShapes) const {
    if (!partitionsOnLoad()) return nullptr;
    return [&fullShapes, rank = m_world.rank, world = m_world.size, threshold = m_ds.zero.paramPersistenceThreshold](
               size_t i, const torch::Tensor& full) {
        if (fullShapes.size() <= i) fullShapes.resize(i + 1);
        fullShapes[i] = full.sizes().vec();
        return Zero3Optimizer::rankPart(full, rank, world, threshold);
    };
}

CheckpointLayout ZeroPlan::layoutOfStage(int stage) {
    if (stage == 0) return CheckpointLayout::Replicated;
    if (stage == 3) return CheckpointLayout::TensorPartition;
    return CheckpointLayout::FlatPartition;
}

void ZeroPlan::checkResumable(int madeWith, const std::string& where) const {
    if (layoutOfStage(madeWith) == checkpointLayout()) return;
    throw FormatError(where + ": the checkpoint was made with ZeRO stage " + std::to_string(madeWith) +
                      " but the config asks for stage " + std::to_string(stage()) + "; resume with stage " +
                      (madeWith == 0   ? "0"
                       : madeWith == 3 ? "3"
                                       : "1 or 2 (the same partition)"));
}

std::vector<std::string> ZeroPlan::notes(bool cudaDevice) const {
    std::vector<std::string> out;
    if (parameters() == StatePlacement::Host && !cudaDevice)
        out.push_back("offload_param cpu: on a CPU device the stage-3 parameter shards rest in host memory already");
    return out;
}

std::string ZeroPlan::summary() const {
    static const char* const kWhere[] = {"on the device", "in host memory", "on NVMe"};
    auto where = [](StatePlacement p) { return kWhere[int(p)]; };
    std::string s = "ZeRO stage " + std::to_string(stage());
    const std::string ranks = " over " + std::to_string(m_world.size) + (m_world.size == 1 ? " rank" : " ranks");
    if (stage() == 1) s += " (optimizer state partitioned" + ranks + ")";
    if (stage() == 2) s += " (optimizer state and gradients partitioned" + ranks + ")";
    if (stage() == 3) s += " (parameters, gradients and optimizer state partitioned" + ranks + ")";
    s += std::string(", ") + paramDtypeName(modelDtype()) + " parameters";
    if (bf16Autocast()) s += " under bf16 autocast";
    if (lora()) s += " (LoRA adapters trained, the base frozen)";
    if (parameters() != StatePlacement::Device) s += std::string(", parameter shards ") + where(parameters());
    if (optimizerState() != StatePlacement::Device) s += std::string(", optimizer state ") + where(optimizerState());
    return s;
}

std::string optimizerShardName(int rank) { return "optimizer_rank" + std::to_string(rank) + ".safetensors"; }

}  // namespace fts
