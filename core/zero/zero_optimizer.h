// ZeRO stages 1 and 2 (DeepSpeed's stage_1_and_2 semantics): all trainable parameters are viewed as one flat
// vector padded to a multiple of the world size N; rank r owns [r*chunk, (r+1)*chunk) and keeps the fp32 master
// copy and both AdamW moments of that chunk only. Stage 1 keeps full gradients (one flat buffer the parameters'
// .grad are views of) and reduces them to their owners in reduce_bucket_size buckets after the last micro-step's
// backward; stage 2 reduces gradients while backward runs (post-accumulate-grad hooks fill a bucket; a full bucket
// is reduced to the owners of its elements) on EVERY micro-step, accumulating the sums into this rank's gradient
// partition and freeing the full gradients. Invariant: the update equals AdamW on the rank-averaged (and
// accumulated) gradient clipped by the global norm; the parameters are replicated again after every step.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/train_config.h"
#include "core/dist/communicator.h"
#include "core/offload/optimizer_partition.h"
#include "core/zero/model_state.h"

namespace fts {

// The padded flat layout of `numel` elements over `world` ranks.
struct FlatLayout {
    int64_t numel = 0;  // real elements
    int64_t chunk = 0;  // elements per rank: ceil(numel / world)
    int world = 1;
    int64_t padded() const { return chunk * world; }
    int64_t offsetOf(int rank) const { return chunk * rank; }
};
FlatLayout makeFlatLayout(int64_t numel, int world);

// The dtype names of the model-state accounting (model_state.h): float32, bfloat16, float16, else LibTorch's name.
std::string dtypeName(torch::ScalarType t);

// DeepSpeed's zero_optimization keys this engine honours (sizes in elements, as DeepSpeed counts them).
struct ZeroOptions {
    int stage = 1;                             // 1 or 2
    int64_t reduceBucketElems = 500000000;     // reduce_bucket_size
    int64_t allgatherBucketElems = 500000000;  // allgather_bucket_size
    bool contiguousGradients = true;           // contiguous_gradients: copy gradients into the bucket buffer
    bool reduceScatter = true;                 // reduce_scatter: reduce to owners; false: all-reduce each bucket
    PartitionPlacement placement;              // offload_optimizer: where the master and moments rest
};

struct GradientStats {
    double norm = 0.0;      // global L2 norm of the unscaled, averaged gradient (before clipping)
    bool overflow = false;  // some rank's gradient holds inf/nan (fp16: the step must be skipped)
};

// The step's gradient of one rank's flat fp32 master partition, shared by stages 1-3: this rank's summed shard
// gradient (zero padding) averaged over the ranks and unscaled by lossScale, the global norm from every rank's
// squared norm, clipped by clip_grad_norm's rule, and set as master's .grad(). On overflow master gets no gradient.
GradientStats prepareShardGradients(const torch::Tensor& shardGrad, torch::Tensor& master, Communicator& comm,
                                    double maxNorm, double lossScale);

// The same statistics for an offloaded partition, without an fp32 copy of the gradient: `scale` is what the CPU-Adam
// multiplies the summed shard gradient by (1 / (ranks * lossScale), times the clip coefficient).
struct ShardGradientScale {
    GradientStats stats;
    double scale = 1.0;
};
ShardGradientScale shardGradientScale(const torch::Tensor& shardGrad, Communicator& comm, double maxNorm,
                                      double lossScale);

// The stages' common use of an OptimizerPartition at the accumulation boundary: prepare() reduces the statistics
// (and, on the device, sets the master's gradient), step() updates the partition and leaves the new parameter values
// in paramCopy (offloaded) or the device master.
class PartitionStep {
public:
    // params: where the updated parameter-dtype values go (stage 3: the parameter store), written by the fused CPU
    // step when offloaded and by publishParams() otherwise; null: a copy of its own (stages 1-2, whose gather reads
    // it through paramSlice).
    PartitionStep(const torch::Tensor& initial, const OptimizerConfig& cfg, const PartitionPlacement& placement,
                  torch::ScalarType paramDtype, ParamSink* params = nullptr);
    GradientStats prepare(const torch::Tensor& shardGrad, Communicator& comm, double maxNorm, double lossScale);
    void step(const torch::Tensor& shardGrad, double lr, const std::string& who);
    void clear();
    // The updated parameters, `len` elements from `offset`, in the parameter dtype (contiguous; own copy only).
    torch::Tensor paramSlice(int64_t offset, int64_t len) const;
    // After step() or load(): the device master's values written through the params sink (offloaded: done already).
    void publishParams();
    void load(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
              const std::string& partition, const std::string& what);
    OptimizerPartition& partition() { return m_part; }
    const OptimizerPartition& partition() const { return m_part; }
    // Adds the partition's bytes to m (device: optimizer["float32"] (+ the offloaded parameter copy); host / nvme).
    void addBytes(ModelStateBytes& m) const;

private:
    OptimizerPartition m_part;
    torch::ScalarType m_dtype;
    torch::Tensor m_paramCopy;  // offloaded without a sink: (elements) the parameter-dtype values, on the device
    std::unique_ptr<TensorSink> m_ownSink;  // over m_paramCopy
    ParamSink* m_sink = nullptr;            // where the parameter values go (m_ownSink or the caller's)
    double m_gradScale = 1.0;
    bool m_ready = false;  // offloaded: prepare() succeeded and step() may run
};

class ZeroOptimizer {
public:
    // params: the trainable parameters (one dtype; float32, bfloat16 or float16), identical on every rank.
    ZeroOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& cfg, Communicator& comm,
                  const ZeroOptions& options);
    ~ZeroOptimizer();
    ZeroOptimizer(const ZeroOptimizer&) = delete;
    ZeroOptimizer& operator=(const ZeroOptimizer&) = delete;

    // Call before each micro-step's backward: lastMicroStep marks the gradient accumulation boundary.
    void beginMicroStep(bool lastMicroStep);
    // Call after each micro-step's backward: reduces what is left (stage 2: the partly filled bucket; stage 1 on
    // the boundary: every bucket).
    void endMicroStep();
    // After the boundary: averages over the ranks and divides by lossScale into an fp32 gradient for this rank's
    // master chunk, computes the global norm (all-reduced squared norms of the shards) and clips by maxNorm
    // (> 0) with clip_grad_norm's rule. On overflow nothing is clipped and step() must not be called.
    GradientStats prepareGradients(double maxNorm, double lossScale = 1.0);
    // AdamW on this rank's master chunk, then the chunks are all-gathered into the parameters (allgather buckets).
    void step(double lr);
    // Clears the gradients (full or partitioned) for the next optimizer step (also after a skipped step).
    void zeroGrad();

    int64_t stepCount() const { return m_state.partition().stepCount(); }
    const FlatLayout& layout() const { return m_layout; }
    int stage() const { return m_opt.stage; }
    // This rank's model-state bytes, from the tensors it holds (model_state.h).
    ModelStateBytes modelState() const;
    // Collectives issued so far for gradient reduction (for tests: stage 2 reduces during backward).
    int64_t reductionsIssued() const { return m_reductions; }
    int64_t reductionsDuringBackward() const { return m_reductionsInHooks; }

    // This rank's shard for checkpoints: master, exp_avg, exp_avg_sq (fp32, chunk elements each).
    std::vector<std::pair<std::string, torch::Tensor>> shardTensors() const;
    // Restores the shard written by the same rank of the same world size and re-replicates the parameters
    // from the masters (collective: every rank calls it). Errors name `what` (the file).
    void loadShard(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                   const std::string& what);

    void onGradReady(size_t index);  // called by the post-accumulate-grad hooks (stage 2)

private:
    void flushBucket();
    void reduceFlatStage1();
    // Copies `src` (flat elements [flatOffset, flatOffset + src.numel())) into the parameters it covers.
    void writeIntoParams(const torch::Tensor& src, int64_t flatOffset);
    void gatherParams();

    struct Segment {
        size_t param;        // index into m_params
        torch::Tensor grad;  // (numel) the gradient: a view into the bucket buffer or the gradient itself
    };

    std::vector<torch::Tensor> m_params;
    std::vector<int64_t> m_offsets;  // flat offset of each parameter
    FlatLayout m_layout;
    Communicator& m_comm;
    ZeroOptions m_opt;
    torch::ScalarType m_dtype;
    torch::Tensor m_flatGrad;   // stage 1: (padded) the parameters' .grad are views of it
    torch::Tensor m_partGrad;   // (chunk) this rank's summed gradient (stage 1: a view of m_flatGrad)
    torch::Tensor m_bucketBuf;  // stage 2 with contiguous_gradients: (bucket) gradients waiting for reduction
    std::vector<Segment> m_bucket;
    int64_t m_bucketFill = 0;
    bool m_lastMicro = true;
    bool m_inBackward = false;
    int64_t m_reductions = 0, m_reductionsInHooks = 0;
    PartitionStep m_state;  // (chunk) fp32 master and moments: on the device, in host memory or on NVMe
};

}  // namespace fts
