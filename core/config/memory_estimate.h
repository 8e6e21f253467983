// Per-rank peak memory of a training config, before running it (torch-free: the GUI's new-run form calls it).
// Model states follow the ZeRO paper (mixed precision 2/2/12 bytes per parameter: stage 0 16Ψ, 1 4Ψ+12Ψ/N,
// 2 2Ψ+14Ψ/N, 3 16Ψ/N) and the buffers this engine allocates; activations follow what this version's LibTorch
// models keep for backward (activation_estimate.h). The peak is the largest of the step's moments (the start of
// backward, its end, the optimizer step), each summing what is alive then; every term and formula is in
// docs/estimate.md. Invariant: total = the sum of the device-side terms of the breakdown (at the peak).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config/activation_estimate.h"
#include "core/config/model_shape.h"
#include "core/config/train_config.h"

namespace fts {

// What the estimate may override in the config (unset: the config's value).
struct EstimateOptions {
    std::optional<int> worldSize;                 // ranks (default: the world size the config was parsed for)
    std::optional<int> zeroStage;                 // 0-3
    std::optional<int64_t> microBatch;            // train_micro_batch_size_per_gpu
    std::optional<bool> activationCheckpointing;  // model.activation_checkpointing
    std::optional<std::string> offloadOptimizer;  // "none", "cpu", "nvme" (zero_optimization.offload_optimizer.device)
    std::optional<int> loraRank;            // as if model.lora = {r, target_modules: all linear layers of the blocks}
    std::optional<EstimateDevice> device;   // default: training.device ("cuda..." -> Cuda, else Cpu)
    std::optional<int64_t> deviceCapacity;  // bytes one rank may use; unset: not judged (fits = true)
    std::optional<int64_t> runtimeBytes;  // the per-process fixed cost (default: kCpuRuntimeBytes / kCudaRuntimeBytes)
    std::optional<bool> chunkedLoss;      // model.chunked_loss
    // The fused RMSNorm / RoPE / SwiGLU kernels keep fewer tensors (default: on unless FTS_FUSED_BLOCK_OPS=0, as the
    // trainer decides).
    std::optional<bool> fusedKernels;
    bool suggest = true;  // compute suggestions when it does not fit
};

// Per rank, bytes, at the peak moment (`phase`). total = parameters + gradients + masterGradients + optimizerStates
// + activations + buckets + workspace + allocatorSlack + runtime; allocatorPeak = total - allocatorSlack - runtime
// (what torch.cuda.max_memory_allocated / FTS_CPU_MEMORY=tensors measure). hostOffload is memory moved off the device
// (optimizer offload), not in total.
struct MemoryBreakdown {
    std::string phase;            // "backward (start)", "backward (end)", "optimizer step": when the peak happens
    int64_t parameters = 0;       // the model's weights this rank holds (+ autocast's bit16 copies at stage 0)
    int64_t gradients = 0;        // gradients alive at that moment
    int64_t optimizerStates = 0;  // fp32 master copy (mixed precision / ZeRO partition) + AdamW exp_avg, exp_avg_sq
    int64_t masterGradients = 0;  // fp32 gradient of this rank's optimizer partition (during the step only)
    int64_t activations = 0;      // tensors autograd keeps for backward, plus one block's backward working set
    int64_t buckets = 0;          // communication buffers (reduce / all-gather buckets, stage 3 gathered params)
    int64_t workspace = 0;        // the loss: logits and their gradient, or one chunk's (model.chunked_loss)
    int64_t allocatorSlack = 0;   // CPU: freed step memory glibc's malloc keeps resident (kCpuAllocatorSlack of
                                  // activations + workspace); CUDA: 0 (the telemetry reports allocated bytes)
    int64_t runtime = 0;          // fixed per-process cost: LibTorch's code and heap (CPU) or CUDA context
    int64_t allocatorPeak = 0;    // the tensor bytes alive at the peak
    int64_t total = 0;
    int64_t hostOffload = 0;  // optimizer offload: host memory (states, NVMe buffers, CUDA staging); in the total only
                              // on a CPU device (the same memory: counted in optimizerStates there)
    int64_t nvmeOffload = 0;  // optimizer offload to NVMe: the swap file's bytes; not in total
    int64_t modelStates() const { return parameters + gradients + optimizerStates + masterGradients; }
};

// The model states as the ZeRO paper sizes them, whether or not all are alive at the peak (per rank, bytes).
struct ModelStateSizes {
    int64_t parameters = 0;       // bit16 weights in mixed precision (fp32 at stage 0: autocast over fp32 weights)
    int64_t gradients = 0;        // the paper's 2Ψ (stage 2: /N; stage 3: /N)
    int64_t optimizerStates = 0;  // master + exp_avg + exp_avg_sq (12Ψ, /N from stage 1)
    int64_t masterGradients = 0;  // fp32 gradient of the partition (stages 1-3 without offload; fp16 at stage 0)
};

struct Suggestion {
    std::string
        change;  // short key: "zero_stage", "offload_optimizer", "micro_batch", "activation_checkpointing", "lora", "combined"
    std::string description;  // what to set, e.g. "zero_optimization.stage = 2"
    MemoryBreakdown perRank;  // the estimate with that change
    bool fits = false;
};

struct MemoryEstimate {
    ModelShape shape;
    int64_t totalParameters = 0;      // Ψ as transformers counts it
    int64_t trainableParameters = 0;  // Ψ, or the LoRA adapters' parameters
    int worldSize = 1;
    int zeroStage = 0;
    std::string precision;  // "fp32", "bf16", "fp16"
    EstimateDevice device = EstimateDevice::Cpu;
    int64_t microBatch = 1;
    int64_t sequenceLength = 0;
    bool activationCheckpointing = false;
    std::string offloadOptimizer = "none";
    std::string offloadParam = "none";  // stage 3: where the parameter shard rests ("none", "cpu", "nvme")
    std::optional<int> loraRank;
    bool quantized4bit = false;  // model.quantization with LoRA: the blocks' linear weights counted 4-bit
    bool chunkedLoss = true;
    ActivationDetail activationDetail;
    ModelStateSizes states;
    MemoryBreakdown perRank;
    std::optional<int64_t> deviceCapacity;
    bool fits = true;
    std::vector<Suggestion> suggestions;
    std::vector<std::string> notes;  // assumptions that matter for this config
};

// Measured on this build (LibTorch 2.11 CUDA wheel, Debian 12): the resident memory of `fts worker` once
// LibTorch is loaded and initialised, before the model and data (docs/estimate.md says how).
inline constexpr int64_t kCpuRuntimeBytes = int64_t(360) << 20;
// Measured on this build: from the second step on, the resident set of a CPU run exceeds the first step's
// peak + the optimizer state by 12-25% of the activations + workspace (glibc malloc keeps freed step
// memory it cannot reuse; quick-start, micro-batch 8/16/32). The estimate takes 20%.
inline constexpr double kCpuAllocatorSlack = 0.20;
// CUDA context + cuBLAS/cuDNN workspaces per process: NVIDIA's typical figure, not measured here (no GPU).
inline constexpr int64_t kCudaRuntimeBytes = int64_t(512) << 20;

// Reads the model's config.json (config.model.path) and estimates.
MemoryEstimate estimateMemory(const TrainConfig& config, const EstimateOptions& options = {});
MemoryEstimate estimateMemory(const TrainConfig& config, const ModelShape& shape, const EstimateOptions& options = {});

// The activation term of one block as saved_bytes.py's replica measures it (precision "fp32": float32; else
// bf16 autocast over float32 weights; repeated kv heads; the unfused RMSNorm/RoPE).
ActivationDetail estimateActivations(const ModelShape& shape, int64_t microBatch, int64_t seqLen,
                                     const std::string& precision, EstimateDevice device, bool checkpointing);

nlohmann::json toJson(const MemoryEstimate& estimate);
nlohmann::json toJson(const MemoryBreakdown& breakdown);
std::string formatBytes(int64_t bytes);                      // "1.25 GiB", "312.0 MiB", "4.0 KiB", "12 B"
std::string formatEstimate(const MemoryEstimate& estimate);  // the text `fts estimate` prints

}  // namespace fts
