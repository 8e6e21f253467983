// ZeRO stage 3 (DeepSpeed's stage3 semantics): every parameter is split into N equal chunks (padded), rank r keeps
// chunk r of each at rest (its parameter shard, gradient shard, fp32 master and AdamW moments: 16 bytes per owned
// element in mixed precision); the model's parameter slots hold empty placeholders. A block's parameters are
// all-gathered just before its forward (the next blocks prefetched within stage3_prefetch_bucket_size and
// stage3_max_live_parameters) and freed after it; backward gathers them again and recomputes the block (as
// activation checkpointing does), then reduce-scatters the block's gradients to their owners in reduce_bucket_size
// buckets. Parameters outside the blocks (embeddings, final norm, heads) are gathered for a whole micro-step.
// Parameters of at most stage3_param_persistence_threshold elements stay whole on every rank (still updated from
// their sharded masters). Invariant: the update equals AdamW on the rank-averaged, accumulated gradient clipped by
// the global norm, as stage 0 on one rank computes it.
#pragma once
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/train_config.h"
#include "core/dist/communicator.h"
#include "core/offload/param_shard_store.h"
#include "core/optim/adamw.h"
#include "core/zero/model_state.h"
#include "core/zero/zero_optimizer.h"

namespace fts {

struct Zero3Options {
    int64_t reduceBucketElems = 500000000;     // reduce_bucket_size
    int64_t allgatherBucketElems = 500000000;  // allgather_bucket_size (persistent parameters after the step)
    bool reduceScatter = true;                 // reduce_scatter (false: all-reduce each bucket, keep this rank's part)
    int64_t prefetchBucketElems = 50000000;    // stage3_prefetch_bucket_size
    int64_t persistenceThreshold = 100000;     // stage3_param_persistence_threshold
    int64_t maxLiveElems = 1000000000;         // stage3_max_live_parameters
    PartitionPlacement placement;              // offload_optimizer: where the masters and moments rest
    ParamStorePlacement paramPlacement;        // offload_param: where the parameter shard rests between uses
    // Frozen (LoRA's base model): the parameters are partitioned, gathered and released as usual, but nothing is
    // trained here: no gradient shard, no optimizer state. Backward recomputes each block and lets autograd
    // accumulate into the leaves it uses (the adapters, trained by another engine), as reentrant checkpointing does.
    bool frozen = false;
};

// One parameter's place in the stage-3 partition: rank q owns flat elements [q*chunk, min((q+1)*chunk, numel)).
struct Zero3Param {
    std::string name;
    std::vector<int64_t> shape;
    int64_t numel = 0;
    int64_t chunk = 0;   // ceil(numel / N)
    int64_t offset = 0;  // where this rank's chunk starts in the flat shard (the same on every rank)
    bool persistent = false;
};

class Zero3Optimizer {
public:
    using BlockFn = std::function<torch::Tensor(const torch::Tensor&)>;

    // slots: the model's parameter tensors in parameters() order, full and identical on every rank; they are
    // replaced by placeholders (persistent ones stay). names: their HF names. blocks: (first slot, count) of each
    // block in forward order. Every parameter is trained (one dtype: float32, bfloat16 or float16).
    // fullShapes non-empty: the slots already hold rankPart() of each parameter (a streamed load) of these shapes.
    Zero3Optimizer(std::vector<torch::Tensor*> slots, std::vector<std::string> names,
                   std::vector<std::pair<size_t, size_t>> blocks, const OptimizerConfig& cfg, Communicator& comm,
                   const Zero3Options& options, const std::vector<std::vector<int64_t>>& fullShapes = {});

    // What rank `rank` of `world` keeps of a full parameter: the whole tensor when it has at most
    // persistenceThreshold elements, else its chunk (ceil(numel / world) elements, zero-padded), as a new tensor.
    static torch::Tensor rankPart(const torch::Tensor& full, int rank, int world, int64_t persistenceThreshold);
    ~Zero3Optimizer();
    Zero3Optimizer(const Zero3Optimizer&) = delete;
    Zero3Optimizer& operator=(const Zero3Optimizer&) = delete;

    // The model's block runner (LanguageModel::setBlockRunner): gather, run, free; with grad mode on, backward
    // re-gathers, recomputes and hands the gradients to the reduce buckets.
    torch::Tensor runBlock(const BlockFn& block, const torch::Tensor& h, size_t first, size_t count);

    // A training micro-step: gathers the non-block parameters as fresh leaves before forward ...
    void beginMicroStep(bool lastMicroStep);
    // ... and after backward reduce-scatters their gradients, flushes the bucket and frees everything gathered.
    void endMicroStep();
    // A forward without gradients (evaluation): the non-block parameters gathered, then freed.
    void beginForwardOnly();
    void endForwardOnly();

    GradientStats prepareGradients(double maxNorm, double lossScale = 1.0);  // as ZeroOptimizer's
    void step(double lr);  // AdamW on the masters; the shards follow; persistent parameters are re-gathered
    void zeroGrad();

    int64_t stepCount() const { return m_state ? m_state->partition().stepCount() : 0; }
    bool frozen() const { return m_opt.frozen; }
    const ParamShardStore& parameterStore() const { return *m_store; }
    ModelStateBytes modelState() const;
    const std::vector<Zero3Param>& partition() const { return m_params; }
    int64_t shardElems() const { return m_shardElems; }
    // The partition as JSON (stored in checkpoints; the export consolidates the shards with it).
    nlohmann::json partitionJson() const;

    // Observations for tests.
    int64_t gathers() const { return m_gathers; }         // all-gather collectives issued for parameters
    int64_t peakLiveElems() const { return m_peakLive; }  // most non-persistent elements gathered at once
    int64_t reductions() const { return m_reductions; }

    std::vector<std::pair<std::string, torch::Tensor>> shardTensors() const;  // master, exp_avg, exp_avg_sq
    void loadShard(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                   const std::string& what);

    // For the autograd function of runBlock.
    void fetchBlock(size_t block, bool backward);
    void releaseBlock(size_t block);
    void addGradient(size_t param, const torch::Tensor& grad);
    const std::vector<size_t>& blockParams(size_t block) const { return m_blockParams[block]; }
    torch::Tensor& slot(size_t param) { return *m_slots[param]; }

private:
    void gather(const std::vector<size_t>& params);  // one all-gather for the listed parameters (not live ones)
    void release(size_t param);
    void releaseAll();
    void flushBucket();
    void refreshPersistent();
    torch::Tensor placeholder() const;
    int64_t blockElems(size_t block) const;
    void readAhead(size_t block, bool backward);  // offload_param nvme: the next blocks' shard ranges

    std::vector<torch::Tensor*> m_slots;
    std::vector<Zero3Param> m_params;
    std::vector<std::vector<size_t>> m_blockParams;  // non-persistent and persistent parameters of each block
    std::vector<int> m_blockOf;                      // block of each parameter, -1 outside the blocks
    std::vector<size_t> m_outside;                   // parameters outside every block
    std::vector<char> m_live;                        // gathered now (non-persistent)
    int64_t m_liveElems = 0, m_peakLive = 0;
    Communicator& m_comm;
    Zero3Options m_opt;
    torch::ScalarType m_dtype = torch::kFloat32;
    torch::Device m_device = torch::kCPU;
    int64_t m_shardElems = 0;
    std::unique_ptr<ParamShardStore> m_store;  // (S) this rank's chunk of every parameter, parameter dtype
    torch::Tensor m_gradShard;                 // (S) summed gradient of this rank's chunks
    std::vector<std::pair<size_t, torch::Tensor>> m_bucket;
    int64_t m_bucketFill = 0;
    bool m_inMicroStep = false;
    int64_t m_gathers = 0, m_reductions = 0;
    std::unique_ptr<PartitionStep> m_state;  // (S) fp32 masters and moments (device, host or NVMe); writes m_store
};

}  // namespace fts
