// One rank's optimizer partition: the fp32 master copy and both Adam moments of `elements` parameters, with a
// placement: on the training device (no offload; LibTorch's AdamW), in host memory (ZeRO-Offload: the step runs on
// the CPU with the fused CPU-Adam, which reads the gradient in its own dtype and writes the parameter copy in the same
// pass), or in a swap file on NVMe (ZeRO-Infinity: the same CPU step per sub-group, each sub-group read into one of
// buffer_count host buffers ahead of its turn and written back behind it). The step walks the partition in
// sub_group_size pieces. Checkpoint tensors have the same names in every placement ("master", "exp_avg.0",
// "exp_avg_sq.0"), so an offloaded run resumes without offload and the other way round.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/train_config.h"
#include "core/config/zero_placement.h"  // StatePlacement
#include "core/offload/param_sink.h"
#include "core/offload/swap_file.h"
#include "core/optim/adamw.h"

namespace fts {

struct PartitionPlacement {
    StatePlacement where = StatePlacement::Device;
    int64_t subGroupElems = 1000000000;  // zero_optimization.sub_group_size
    bool pinMemory = true;               // host buffers page-locked (only when training on CUDA)
    int bufferCount = 4;                 // nvme: sub-groups held in host buffers at once
    bool pipelineRead = true;            // nvme: prefetch the next sub-group
    bool pipelineWrite = true;           // nvme: write back behind the next sub-group's step
    std::filesystem::path swapDir;       // nvme: this rank's folder (created, removed at the end when empty)
    SwapIoOptions io;
    int cpuThreads = 0;  // CPU-Adam threads (0: LibTorch's intra-op thread count)
};

// The top-level "aio" block as the swapper's I/O options.
SwapIoOptions swapIoOptions(const AioConfig& aio);

// Bytes of optimizer state by where they rest.
struct PartitionBytes {
    int64_t device = 0, host = 0, nvme = 0;
};

class OptimizerPartition {
public:
    // initial: this rank's starting values (elements, any float dtype, on the training device).
    OptimizerPartition(const torch::Tensor& initial, const OptimizerConfig& cfg, const PartitionPlacement& placement);
    ~OptimizerPartition();
    OptimizerPartition(const OptimizerPartition&) = delete;
    OptimizerPartition& operator=(const OptimizerPartition&) = delete;

    StatePlacement placement() const { return m_place.where; }
    bool offloaded() const { return m_place.where != StatePlacement::Device; }
    int64_t elements() const { return m_elements; }
    int64_t stepCount() const { return m_step; }

    // Device placement: the master (a leaf whose .grad() the engines set) and the AdamW step over it.
    torch::Tensor& deviceMaster();
    const torch::Tensor& deviceMaster() const;
    void stepDevice(double lr);

    // Offloaded placements: one Adam step with gradient grad * gradScale (grad: elements, float32/bfloat16/float16,
    // on the training device); the updated parameters go to paramOut (elements, float32/bfloat16/float16, on the
    // training device) when it is defined.
    void stepOffloaded(const torch::Tensor& grad, double gradScale, double lr, const torch::Tensor& paramOut);
    // The same with the updated parameters written through `out` (null: not written), one sub-group at a time.
    void stepOffloaded(const torch::Tensor& grad, double gradScale, double lr, ParamSink* out);
    // The master converted into paramOut (after a load), or written through `out` one sub-group at a time.
    void copyMasterTo(const torch::Tensor& paramOut);
    void copyMasterTo(ParamSink& out);

    // Checkpoint tensors: "master", "exp_avg.0", "exp_avg_sq.0" (CPU copies when offloaded).
    std::vector<std::pair<std::string, torch::Tensor>> stateTensors() const;
    // Restores them: every tensor must have elements() elements (FormatError naming `what` and `partition` else).
    void loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                   const std::string& partition, const std::string& what);

    PartitionBytes bytes() const;
    // NVMe: bytes moved through the swap file so far (0 otherwise).
    int64_t swapBytesRead() const;
    int64_t swapBytesWritten() const;
    double swapWaitSeconds() const;

private:
    struct Swap;
    void forEachSwapGroup(bool readFirst, bool writeBack,
                          const std::function<void(int64_t group, float* master, float* m, float* v)>& fn) const;

    PartitionPlacement m_place;
    OptimizerConfig m_cfg;
    torch::Device m_device;
    int64_t m_elements = 0;
    int64_t m_step = 0;
    // Device: m_master + m_adam. Host: m_master, m_expAvg, m_expAvgSq on the CPU. Nvme: m_swap.
    torch::Tensor m_master, m_expAvg, m_expAvgSq;
    std::unique_ptr<AdamW> m_adam;
    std::unique_ptr<Swap> m_swap;
    torch::Tensor m_gradStage, m_outStage;  // CUDA training: host staging of one sub-group (pinned), kept across steps
};

}  // namespace fts
