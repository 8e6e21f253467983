// The memory estimate (see memory_estimate.h and docs/estimate.md): model states by the ZeRO paper's formulas,
// activations by what this version's LibTorch blocks save for backward, buckets by DeepSpeed's meaning of the
// zero_optimization keys, workspace by what the LM loss holds. Torch-free.
#include "core/config/memory_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/util/error.h"

namespace fts {

namespace {

using nlohmann::json;

// The zero_optimization and model.lora keys the estimate needs, read from the config as written with
// DeepSpeed 0.19.8's defaults (the config parser validates them; a bad value here falls back to the default).
struct ZeroKnobs {
    double reduceBucketSize = 5e8;     // elements
    double allgatherBucketSize = 5e8;  // elements
    bool contiguousGradients = true;
    double prefetchBucketSize = 5e7;         // stage3_prefetch_bucket_size, elements
    double paramPersistenceThreshold = 1e5;  // stage3_param_persistence_threshold, elements
    double maxLiveParameters = 1e9;          // stage3_max_live_parameters, elements
    std::string offloadOptimizer = "none";
    std::string offloadParam = "none";
    double subGroupSize = 1e9;      // sub_group_size, elements
    double offloadBufferCount = 4;  // offload_optimizer.buffer_count (NVMe host buffers)
    double paramBufferCount = 5;    // offload_param.buffer_count (NVMe read-ahead buffers)
    double paramBufferSize = 1e8;   // offload_param.buffer_size, elements
    double paramMaxInCpu = 1e9;     // offload_param.max_in_cpu, elements
};

double numberOr(const json& o, const char* key, double fallback) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_number()) return fallback;  // absent, "auto" or invalid: the default
    return it->get<double>();
}
bool boolOr(const json& o, const char* key, bool fallback) {
    auto it = o.find(key);
    return it != o.end() && it->is_boolean() ? it->get<bool>() : fallback;
}
std::string offloadDevice(const json& o, const char* key) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_object()) return "none";
    auto d = it->find("device");
    return d != it->end() && d->is_string() ? d->get<std::string>() : "none";
}

ZeroKnobs readZeroKnobs(const json& raw, int stage) {
    ZeroKnobs k;
    if (!raw.is_object() || !raw.contains("deepspeed") || !raw["deepspeed"].is_object()) return k;
    const json& ds = raw["deepspeed"];
    auto it = ds.find("zero_optimization");
    if (it == ds.end() || !it->is_object()) return k;
    const json& z = *it;
    k.reduceBucketSize = numberOr(z, "reduce_bucket_size", k.reduceBucketSize);
    k.allgatherBucketSize = numberOr(z, "allgather_bucket_size", k.allgatherBucketSize);
    k.contiguousGradients = boolOr(z, "contiguous_gradients", k.contiguousGradients);
    k.prefetchBucketSize = numberOr(z, "stage3_prefetch_bucket_size", k.prefetchBucketSize);
    k.paramPersistenceThreshold = numberOr(z, "stage3_param_persistence_threshold", k.paramPersistenceThreshold);
    k.maxLiveParameters = numberOr(z, "stage3_max_live_parameters", k.maxLiveParameters);
    k.offloadOptimizer = offloadDevice(z, "offload_optimizer");
    k.offloadParam = offloadDevice(z, "offload_param");
    k.subGroupSize = std::max(1.0, numberOr(z, "sub_group_size", k.subGroupSize));
    if (auto o = z.find("offload_optimizer"); o != z.end() && o->is_object())
        k.offloadBufferCount = std::max(1.0, numberOr(*o, "buffer_count", k.offloadBufferCount));
    if (auto o = z.find("offload_param"); o != z.end() && o->is_object()) {
        k.paramBufferCount = std::max(1.0, numberOr(*o, "buffer_count", k.paramBufferCount));
        k.paramBufferSize = std::max(0.0, numberOr(*o, "buffer_size", k.paramBufferSize));
        k.paramMaxInCpu = std::max(0.0, numberOr(*o, "max_in_cpu", k.paramMaxInCpu));
    }
    return k;
}

// model.lora (issue 3's section): {"r": 8, "target_modules": ["q_proj", ...] or "all-linear"}; absent or
// "enabled": false -> no LoRA.
struct LoraKnobs {
    int rank = 0;
    std::vector<std::string> targets;  // empty = every linear layer of the blocks
};
std::optional<LoraKnobs> readLora(const json& raw) {
    if (!raw.is_object() || !raw.contains("model") || !raw["model"].is_object()) return std::nullopt;
    auto it = raw["model"].find("lora");
    if (it == raw["model"].end() || !it->is_object()) return std::nullopt;
    if (!boolOr(*it, "enabled", true)) return std::nullopt;
    LoraKnobs l;
    l.rank = int(numberOr(*it, "r", 8));
    auto t = it->find("target_modules");
    if (t != it->end() && t->is_array())
        for (const auto& m : *t)
            if (m.is_string()) l.targets.push_back(m.get<std::string>());
    return l;
}

// LoRA adapter parameters: r * (in + out) for every targeted linear weight of the blocks (PEFT matches a
// target against the end of the module path; "all-linear" or no list = every block linear).
int64_t loraParameters(const ModelShape& shape, const LoraKnobs& lora) {
    const bool all = lora.targets.empty() ||
                     (lora.targets.size() == 1 && (lora.targets[0] == "all-linear" || lora.targets[0] == "all_linear"));
    int64_t n = 0;
    for (const auto& t : shape.tensors) {
        if (t.module.empty() || t.layer < 0) continue;
        const std::string path = t.name.substr(0, t.name.size() - std::string(".weight").size());
        bool hit = all;
        for (const auto& target : lora.targets)
            if (path == target || (path.size() > target.size() && path.ends_with("." + target))) hit = true;
        if (hit) n += int64_t(lora.rank) * (t.inFeatures + t.outFeatures);
    }
    return n;
}

std::string precisionOf(const DeepSpeedConfig& ds) { return ds.bf16 ? "bf16" : ds.fp16.enabled ? "fp16" : "fp32"; }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Everything one estimate depends on, with the options applied.
struct Inputs {
    int world = 1, stage = 0;
    std::string precision = "fp32";
    EstimateDevice device = EstimateDevice::Cpu;
    int64_t micro = 1, seq = 0;
    bool checkpointing = false;
    ZeroKnobs zero;
    std::optional<LoraKnobs> lora;
    int64_t runtime = 0;
};

struct Result {
    MemoryBreakdown b;
    ActivationDetail act;
    int64_t trainable = 0;
};

Result compute(const ModelShape& shape, const Inputs& in) {
    Result res;
    MemoryBreakdown& b = res.b;
    const bool mixed = in.precision != "fp32";
    const int64_t N = in.world;
    const int64_t psi = shape.numParameters();
    // LoRA: every base weight is frozen; the adapters are extra, trainable parameters.
    const int64_t trainable = in.lora ? loraParameters(shape, *in.lora) : psi;
    const int64_t frozen = in.lora ? psi : 0;
    res.trainable = trainable;
    const int64_t paramBytes = mixed ? 2 : 4, gradBytes = mixed ? 2 : 4;
    // Optimizer bytes per trainable parameter: fp32 master + exp_avg + exp_avg_sq (12); fp32 training at
    // stage 0 steps the parameters themselves (8). A ZeRO partition always keeps its own fp32 master copy.
    const int64_t optBytes = (!mixed && in.stage == 0) ? 8 : 12;

    // ---- model states (ZeRO paper, Ψ = trainable; frozen weights are never partitioned before stage 3) ---
    const int64_t paramsTrainable = in.stage >= 3 ? ceilDiv(trainable * paramBytes, N) : trainable * paramBytes;
    const int64_t paramsFrozen = in.stage >= 3 ? ceilDiv(frozen * paramBytes, N) : frozen * paramBytes;
    b.parameters = paramsTrainable + paramsFrozen;
    b.gradients = in.stage >= 2 ? ceilDiv(trainable * gradBytes, N) : trainable * gradBytes;
    const int64_t optimizer = in.stage >= 1 ? ceilDiv(trainable * optBytes, N) : trainable * optBytes;
    const int64_t masterGrads = in.stage >= 1 ? ceilDiv(trainable * 4, N) : 0;
    const bool offloadOpt = in.stage >= 1 && (in.zero.offloadOptimizer == "cpu" || in.zero.offloadOptimizer == "nvme");
    if (offloadOpt) {
        // The offloaded partition (core/offload/optimizer_partition.h): fp32 master + moments in host memory, or in
        // a swap file with buffer_count host buffers of one sub-group each; no fp32 master gradient (CPU-Adam reads
        // the reduced gradient in its own dtype). Stages 1-2 keep a parameter-dtype copy of the partition on the
        // device for the all-gather; a CUDA device stages one sub-group of gradient and parameter in host memory.
        const int64_t part = ceilDiv(trainable, N);
        const int64_t group = std::min<int64_t>(part, int64_t(in.zero.subGroupSize));
        if (in.zero.offloadOptimizer == "nvme") {
            const int64_t seg = ceilDiv(group * 4, 4096) * 4096, groups = group > 0 ? ceilDiv(part, group) : 0;
            b.nvmeOffload = groups * 3 * seg;
            b.hostOffload = std::min<int64_t>(groups, int64_t(in.zero.offloadBufferCount)) * 3 * seg;
        } else {
            b.hostOffload = optimizer;
        }
        if (in.stage <= 2) b.parameters += part * paramBytes;
        if (in.device == EstimateDevice::Cuda) b.hostOffload += group * (gradBytes + paramBytes);
    } else {
        b.optimizerStates = optimizer;
        b.masterGradients = masterGrads;
    }
    // offload_param (stage 3, core/offload/param_shard_store.h): the parameter shard leaves the device. "cpu": all
    // of it in host memory (on a CPU device that is where it was: nothing moves). "nvme": the first max_in_cpu
    // elements in host memory, the rest in a swap file, with buffer_count read-ahead buffers of at most buffer_size
    // elements and two 8 MiB write buffers in host memory.
    if (in.stage >= 3 && (in.zero.offloadParam == "cpu" || in.zero.offloadParam == "nvme")) {
        const int64_t shardElems = ceilDiv(trainable, N), shardBytes = paramsTrainable;
        int64_t resident = shardBytes, swapped = 0;
        if (in.zero.offloadParam == "nvme") {
            const int64_t residentElems = std::min<int64_t>(shardElems, int64_t(in.zero.paramMaxInCpu));
            resident = residentElems * paramBytes;
            swapped = shardBytes - resident;
        }
        if (swapped > 0) {
            // Read ahead: the next two blocks' shard ranges (each at most buffer_size elements), at most buffer_count.
            std::map<int, int64_t> blockElems;
            for (const auto& tensor : shape.tensors)
                if (tensor.layer >= 0) blockElems[tensor.layer] += tensor.numel;
            int64_t largestBlock = 0;
            for (const auto& [layer, n] : blockElems) largestBlock = std::max(largestBlock, ceilDiv(n, N));
            const int64_t aheadBuffers =
                largestBlock <= int64_t(in.zero.paramBufferSize)
                    ? std::min<int64_t>({2, int64_t(in.zero.paramBufferCount), int64_t(blockElems.size())})
                    : 0;
            const int64_t fileBytes = ceilDiv(swapped, 4096) * 4096;
            b.nvmeOffload += swapped;
            // Plus the two 8 MiB write buffers and the span a step writes into (8 MiB), the buffer for reads no
            // read-ahead covers, and the copy of the block range a read hands to the gather.
            const int64_t rangeBuffer = ceilDiv(largestBlock * paramBytes, 4096) * 4096 + 4096;
            const int64_t span =  // what a step writes into: a sub-group, at most one write buffer
                std::min<int64_t>({(8 << 20) / paramBytes, int64_t(in.zero.subGroupSize), shardElems}) * paramBytes;
            b.hostOffload += 2 * std::min<int64_t>(8 << 20, fileBytes) + span + rangeBuffer +
                             largestBlock * paramBytes + aheadBuffers * rangeBuffer;
        }
        if (in.device == EstimateDevice::Cuda || swapped > 0) {
            b.parameters -= shardBytes;
            if (in.device == EstimateDevice::Cuda)
                b.hostOffload += resident;
            else
                b.parameters += resident;
        }
    }

    // ---- communication buffers: what this engine allocates (docs/zero.md), not DeepSpeed's CUDA layout --------
    const double t = double(trainable);
    if (N > 1 && in.stage == 0) {
        b.buckets = trainable * gradBytes;  // the trainer all-reduces one flat copy of every gradient
    } else if (in.stage == 1 || in.stage == 2) {
        const int64_t reduceElems = int64_t(std::min(in.zero.reduceBucketSize, t));
        // Stage 2 copies gradients into one reduce_bucket_size bucket as backward produces them, at any N (with
        // contiguous_gradients off the gradients are kept instead: the same bytes). overlap_comm has no effect in
        // this engine (no second bucket). Stage 1 reduces its flat gradient in place (no bucket).
        if (in.stage == 2) b.buckets = reduceElems * gradBytes;
        if (N > 1) {
            // Each owner's part of the stage-2 bucket is concatenated for its reduction; the updated partition is
            // all-gathered allgather_bucket_size elements at a time: the gathered buffer and this rank's piece
            // (Gloo's copy of it, or its conversion to the parameter dtype). With one rank the communicator
            // copies instead, during the step after the master gradient is freed: not counted.
            if (in.stage == 2) b.buckets += std::min(reduceElems, ceilDiv(trainable, N)) * gradBytes;
            const int64_t gatherElems = int64_t(std::min(in.zero.allgatherBucketSize, t));
            b.buckets += (gatherElems + ceilDiv(gatherElems, N)) * paramBytes;
        }
    } else if (in.stage >= 3) {
        // Stage 3 (any N: one rank gathers copies as well). Tensors of at most stage3_param_persistence_threshold
        // elements stay whole on every rank, besides their chunk in the shard. The others are gathered: those
        // outside the blocks for the whole micro-step; the running block plus the following blocks that fit
        // stage3_prefetch_bucket_size, within stage3_max_live_parameters; plus the all-gather buffer of one block.
        int64_t persistent = 0, outsideGathered = 0, outsideAll = 0;
        std::map<int, int64_t> blockGathered, blockAll;
        for (const auto& tensor : shape.tensors) {
            const bool keep = double(tensor.numel) <= in.zero.paramPersistenceThreshold;
            if (keep) persistent += tensor.numel;
            if (tensor.layer < 0) {
                outsideAll += tensor.numel;
                if (!keep) outsideGathered += tensor.numel;
            } else {
                blockAll[tensor.layer] += tensor.numel;
                if (!keep) blockGathered[tensor.layer] += tensor.numel;
            }
        }
        int64_t block = 0, blockFull = 0;
        for (const auto& [layer, n] : blockGathered) block = std::max(block, n);
        for (const auto& [layer, n] : blockAll) blockFull = std::max(blockFull, n);
        int64_t liveBlocks = 0;
        if (block > 0) {
            const int64_t prefetched =
                std::min({int64_t(blockGathered.size()) - 1, int64_t(in.zero.prefetchBucketSize / double(block)),
                          std::max<int64_t>(0, int64_t(in.zero.maxLiveParameters / double(block)) - 1)});
            liveBlocks = 1 + prefetched;
        }
        b.buckets = (persistent + outsideGathered + liveBlocks * block + block) * paramBytes;
        // Gradients: those of the parameters outside the blocks are leaves held through backward; a block's
        // gradients wait in the reduce_bucket_size bucket (a block larger than the bucket: all of them before it
        // is cut into buckets), and the reduce-scatter's send buffer (N rows of the bucket's chunks) and this
        // rank's received row come on top. On CPU, Gloo's reduce-scatter works on its own copy of the send
        // buffer (LibTorch 2.11: the peak rises by the input + the output, measured; docs/estimate.md).
        const int64_t reduceElems = int64_t(std::min(in.zero.reduceBucketSize, t));
        const int64_t glooCopy = in.device == EstimateDevice::Cpu && N > 1 ? reduceElems : 0;
        b.buckets +=
            (outsideAll + std::max(reduceElems, blockFull) + reduceElems + glooCopy + ceilDiv(reduceElems, N)) *
            gradBytes;
    }

    // ---- activations and workspace ----------------------------------------------------------------------
    // Stage 3 runs every block through its gather/recompute runner: the forward keeps only the block's input and
    // backward recomputes it, as activation checkpointing does, whatever model.activation_checkpointing says.
    res.act = estimateActivations(shape, in.micro, in.seq, in.precision, in.device, in.checkpointing || in.stage >= 3);
    b.activations = res.act.stored + res.act.backwardWorking;
    // Stage 0 under autocast: the weights stay fp32 and autocast's bit16 copies are kept for backward (2Ψ).
    if (mixed && in.stage == 0) b.activations += psi * 2;
    if (shape.lmHead) {
        // logits (B, T, V) [bit16 under autocast, then an fp32 copy], the shifted fp32 copy the loss makes, its
        // log-probabilities; in backward the log-probabilities, d(nll) and d(log_softmax) (3 fp32 copies).
        b.workspace = in.micro * in.seq * shape.vocabSize * (12 + (mixed ? 2 : 0));
    } else {
        b.workspace = in.micro * shape.numLabels * 4 * 3;
    }
    if (in.device == EstimateDevice::Cpu)
        b.allocatorSlack = int64_t(kCpuAllocatorSlack * double(b.activations + b.workspace));
    b.runtime = in.runtime;
    b.total = b.parameters + b.gradients + b.optimizerStates + b.masterGradients + b.activations + b.buckets +
              b.workspace + b.allocatorSlack + b.runtime;
    return res;
}

Inputs resolveInputs(const TrainConfig& config, const EstimateOptions& o) {
    Inputs in;
    const DeepSpeedConfig& ds = config.deepspeed;
    in.world = std::max(1, o.worldSize.value_or(ds.worldSize));
    in.stage = o.zeroStage.value_or(ds.zeroStage);
    if (in.stage < 0 || in.stage > 3)
        throw ConfigError("estimate: ZeRO stage must be 0-3, got " + std::to_string(in.stage));
    in.precision = precisionOf(ds);
    in.micro = o.microBatch.value_or(ds.microBatchPerGpu > 0 ? ds.microBatchPerGpu : 1);
    if (in.micro <= 0) throw ConfigError("estimate: micro-batch must be positive, got " + std::to_string(in.micro));
    in.seq = config.data.maxLength;
    in.checkpointing = o.activationCheckpointing.value_or(config.model.activationCheckpointing);
    in.device =
        o.device.value_or(config.training.device.rfind("cuda", 0) == 0 ? EstimateDevice::Cuda : EstimateDevice::Cpu);
    in.zero = readZeroKnobs(config.raw, in.stage);
    if (o.offloadOptimizer) in.zero.offloadOptimizer = *o.offloadOptimizer;
    in.lora = readLora(config.raw);
    if (o.loraRank) in.lora = LoraKnobs{*o.loraRank, {}};
    in.runtime = o.runtimeBytes.value_or(in.device == EstimateDevice::Cuda ? kCudaRuntimeBytes : kCpuRuntimeBytes);
    return in;
}

}  // namespace

ActivationDetail estimateActivations(const ModelShape& s, int64_t B, int64_t T, const std::string& precision,
                                     EstimateDevice device, bool checkpointing) {
    ActivationDetail d;
    const bool mixed = precision != "fp32";
    const int64_t r = 4;              // the residual stream stays fp32 (embeddings are not autocast)
    const int64_t c = mixed ? 2 : 4;  // linear inputs/outputs, attention, MLP: the compute dtype
    const int64_t f = 4;              // norm statistics, softmax log-sum-exp: fp32
    const int64_t C = s.hiddenSize, I = s.intermediateSize, H = s.numHeads, D = s.headDim, L = s.numLayers;
    const int64_t BT = B * T, BTC = BT * C, BTI = BT * I, BTQ = BT * H * D;
    // Dropout on CPU keeps a noise tensor in the input's dtype; CUDA's fused dropout keeps a bool mask.
    const int64_t dropBytes = device == EstimateDevice::Cpu ? c : 1;
    // SDPA: without attention dropout (and always on CUDA) the fused kernels keep the output and a
    // log-sum-exp (B, H, T); on CPU with dropout the math path keeps softmax, dropout noise and dropped
    // probabilities (3 x (B, H, T, T)), the scaled q and k, and a contiguous copy of the output.
    d.flashAttention = !(device == EstimateDevice::Cpu && s.attentionDropout > 0);
    const int64_t attention = d.flashAttention ? c * BTQ + f * B * H * T : c * BTQ * 4 + 3 * c * B * H * T * T;
    const int64_t ids = 8 * BT;  // int64 token ids the embedding keeps

    int64_t perLayer = 0, outside = ids, blockInput = r * BTC;
    if (s.modelType == "gpt2") {
        // ln_1 in (residual) + mean/rstd, ln_1 out (c_attn input), qkv (3C; SDPA keeps q, k, v views), attention,
        // residual after attention (ln_2 in) + mean/rstd, ln_2 out (c_fc input), c_fc out (gelu input), gelu out
        // (c_proj input); resid dropout x2.
        perLayer =
            r * BTC + 2 * f * BT + c * BTC + 3 * c * BTC + attention + r * BTC + 2 * f * BT + c * BTC + 2 * c * BTI;
        if (s.hiddenDropout > 0) perLayer += 2 * dropBytes * BTC;
        outside += r * BTC + 2 * f * BT + c * BTC;  // ln_f in, mean/rstd, ln_f out (lm_head input)
        if (s.embeddingDropout > 0) outside += dropBytes * BTC;
    } else if (s.modelType == "bert") {
        // q/k/v input, q, k, v, attention, LayerNorm 1 in + mean/rstd, its out (intermediate input), intermediate
        // out (gelu input), gelu out (output input), LayerNorm 2 in + mean/rstd; hidden dropout x2.
        // (Under autocast each of the q, k, v linears keeps its own bit16 cast of the input: autocast caches only
        // casts of leaf weights.)
        perLayer = (mixed ? 3 : 1) * c * BTC + 3 * c * BTC + attention + r * BTC + 2 * f * BT + c * BTC + 2 * c * BTI +
                   r * BTC + 2 * f * BT;
        if (s.hiddenDropout > 0) perLayer += 2 * dropBytes * BTC;
        blockInput = c * BTC;
        outside += r * BTC + 2 * f * BT;  // embeddings LayerNorm in, mean/rstd
        if (s.hiddenDropout > 0) outside += dropBytes * BTC;
        if (s.lmHead)
            outside += (3 * c + f) * BTC + 2 * f * BT;  // transform in, gelu in, LayerNorm in, decoder in
        else
            outside += 4 * f * B * C;  // pooler: first token, tanh, dropout, classifier in
    } else {                           // llama, mistral, qwen2
        // RMSNorm keeps its input (residual), rsqrt (B, T), the normalised fp32 tensor and its output (the
        // projections' input); RoPE keeps nothing (cos/sin are constants); SDPA keeps rotated q, k and v
        // (repeated to H heads under grouped-query attention); the gated MLP keeps gate out, silu out, up out
        // and their product.
        // (k and v reach SDPA with H heads either way: repeat_interleave copies them under grouped-query attention.)
        // Under autocast every linear keeps its own bit16 cast of the norm's output (3 for q/k/v, 2 for gate/up),
        // and RoPE's x * cos, rotated * sin keep bit16 copies of cos and sin for q and for k (4 x T x D per
        // block); in fp32 all of these share one tensor (cos/sin once for the whole model).
        const int64_t rmsStats = f * BT + f * BTC;
        perLayer = r * BTC + rmsStats + (mixed ? 3 : 1) * c * BTC + 3 * c * BTQ + attention + r * BTC + rmsStats +
                   (mixed ? 2 : 1) * c * BTC + 4 * c * BTI + (mixed ? 4 * T * D * c : 0);
        outside += r * BTC + rmsStats + c * BTC + (mixed ? 0 : 2 * T * D * 4);  // final norm; fp32 cos/sin
        if (s.slidingWindow > 0) outside += c * T * T;  // the additive window bias, shared by the layers
    }
    d.perLayer = perLayer;
    // Backward of one block: the gradients of its saved tensors are in flight together with them (an upper
    // bound: PyTorch frees most of them as soon as the next op has consumed them).
    if (checkpointing) {
        d.stored = L * blockInput + outside;  // each block keeps only its input
        d.backwardWorking = 2 * perLayer;     // the block being recomputed + its gradients
    } else {
        d.stored = L * perLayer + outside;
        d.backwardWorking = perLayer;
    }
    return d;
}

MemoryEstimate estimateMemory(const TrainConfig& config, const EstimateOptions& options) {
    return estimateMemory(config, readModelShape(config.model.path / "config.json"), options);
}

MemoryEstimate estimateMemory(const TrainConfig& config, const ModelShape& shape, const EstimateOptions& options) {
    const Inputs in = resolveInputs(config, options);
    MemoryEstimate e;
    e.shape = shape;
    e.totalParameters = shape.numParameters();
    e.worldSize = in.world;
    e.zeroStage = in.stage;
    e.precision = in.precision;
    e.device = in.device;
    e.microBatch = in.micro;
    e.sequenceLength = in.seq;
    e.activationCheckpointing = in.checkpointing;
    e.offloadOptimizer = in.stage >= 1 ? in.zero.offloadOptimizer : "none";
    e.offloadParam = in.stage >= 3 ? in.zero.offloadParam : "none";
    if (in.lora) e.loraRank = in.lora->rank;
    const Result r = compute(shape, in);
    e.trainableParameters = r.trainable;
    e.activationDetail = r.act;
    e.perRank = r.b;
    e.deviceCapacity = options.deviceCapacity;
    e.fits = !e.deviceCapacity || e.perRank.total <= *e.deviceCapacity;

    if (in.precision != "fp32" && in.stage == 0)
        e.notes.push_back("stage 0 with " + in.precision +
                          ": this version keeps fp32 weights and gradients (4+4+8 bytes per "
                          "parameter, the same 16 in total) plus autocast's bit16 weight copies during the step");
    if (in.lora && in.lora->rank > 0)
        e.notes.push_back("LoRA: activations are counted as for full fine-tuning (frozen layers keep slightly less)");
    if (in.stage >= 3 && !in.checkpointing)
        e.notes.push_back(
            "stage 3 recomputes every block in backward (it gathers the block's parameters again), so the "
            "activations are those of activation checkpointing");
    if (in.device == EstimateDevice::Cuda)
        e.notes.push_back(
            "CUDA: the runtime term (CUDA context, library workspaces) is a typical figure, not measured");
    if (in.zero.offloadOptimizer != "none" && in.stage == 0)
        e.notes.push_back("offload_optimizer needs ZeRO stage 1 or higher; ignored at stage 0");

    if (!e.fits && options.suggest) {
        const int64_t cap = *e.deviceCapacity;
        auto attempt = [&](std::string change, std::string description, Inputs changed) {
            const Result alt = compute(shape, changed);
            if (alt.b.total >= e.perRank.total) return;  // not an improvement
            e.suggestions.push_back({std::move(change), std::move(description), alt.b, alt.b.total <= cap});
        };
        Inputs best = in;
        if (in.world > 1)
            for (int s = in.stage + 1; s <= 3; ++s) {
                Inputs x = in;
                x.stage = s;
                attempt("zero_stage", "zero_optimization.stage = " + std::to_string(s), x);
                if (s == 3) best = x;
            }
        {
            Inputs x = best.stage >= 1 ? best : in;
            x.stage = std::max(x.stage, 2);
            x.zero.offloadOptimizer = "cpu";
            attempt("offload_optimizer",
                    "zero_optimization.stage = " + std::to_string(x.stage) + " with offload_optimizer.device = \"cpu\"",
                    x);
        }
        if (!in.checkpointing) {
            Inputs x = in;
            x.checkpointing = true;
            attempt("activation_checkpointing", "model.activation_checkpointing = true", x);
            best.checkpointing = true;
        }
        for (int64_t m = in.micro / 2; m >= 1; m /= 2) {
            Inputs x = in;
            x.micro = m;
            const Result alt = compute(shape, x);
            if (alt.b.total <= cap || m == 1) {
                attempt("micro_batch",
                        "train_micro_batch_size_per_gpu = " + std::to_string(m) + " (gradient_accumulation_steps x" +
                            std::to_string(in.micro / m) + " keeps the global batch)",
                        x);
                break;
            }
        }
        if (!in.lora) {
            Inputs x = in;
            x.lora = LoraKnobs{8, {}};
            attempt("lora", "model.lora = {\"r\": 8} on every linear layer of the blocks (only the adapters train)", x);
        }
        bool anyFits = false;
        for (const auto& s : e.suggestions) anyFits = anyFits || s.fits;
        if (!anyFits) {
            best.micro = 1;
            if (!in.lora) best.lora = LoraKnobs{8, {}};
            if (best.stage >= 1) best.zero.offloadOptimizer = "cpu";
            attempt("combined", "all of the above together (micro-batch 1)", best);
        }
    }
    return e;
}

nlohmann::json toJson(const MemoryBreakdown& b) {
    return {{"parameters", b.parameters},
            {"gradients", b.gradients},
            {"optimizer_states", b.optimizerStates},
            {"master_gradients", b.masterGradients},
            {"activations", b.activations},
            {"buckets", b.buckets},
            {"workspace", b.workspace},
            {"allocator_slack", b.allocatorSlack},
            {"runtime", b.runtime},
            {"total", b.total},
            {"host_offload", b.hostOffload},
            {"nvme_offload", b.nvmeOffload}};
}

nlohmann::json toJson(const MemoryEstimate& e) {
    json shape = {{"model_type", e.shape.modelType},
                  {"architecture", e.shape.architecture},
                  {"parameters", e.totalParameters},
                  {"trainable_parameters", e.trainableParameters},
                  {"vocab_size", e.shape.vocabSize},
                  {"hidden_size", e.shape.hiddenSize},
                  {"num_layers", e.shape.numLayers},
                  {"num_heads", e.shape.numHeads},
                  {"num_kv_heads", e.shape.numKvHeads},
                  {"head_dim", e.shape.headDim},
                  {"intermediate_size", e.shape.intermediateSize},
                  {"max_positions", e.shape.maxPositions},
                  {"tied_embeddings", e.shape.tiedEmbeddings}};
    json suggestions = json::array();
    for (const auto& s : e.suggestions)
        suggestions.push_back({{"change", s.change},
                               {"description", s.description},
                               {"total", s.perRank.total},
                               {"fits", s.fits},
                               {"per_rank", toJson(s.perRank)}});
    json j = {{"model", shape},
              {"world_size", e.worldSize},
              {"zero_stage", e.zeroStage},
              {"precision", e.precision},
              {"device", e.device == EstimateDevice::Cuda ? "cuda" : "cpu"},
              {"micro_batch", e.microBatch},
              {"sequence_length", e.sequenceLength},
              {"activation_checkpointing", e.activationCheckpointing},
              {"offload_optimizer", e.offloadOptimizer},
              {"offload_param", e.offloadParam},
              {"lora_rank", e.loraRank ? json(*e.loraRank) : json(nullptr)},
              {"activation_detail",
               {{"per_layer", e.activationDetail.perLayer},
                {"stored", e.activationDetail.stored},
                {"backward_working", e.activationDetail.backwardWorking},
                {"flash_attention", e.activationDetail.flashAttention}}},
              {"per_rank", toJson(e.perRank)},
              {"device_capacity", e.deviceCapacity ? json(*e.deviceCapacity) : json(nullptr)},
              {"fits", e.fits},
              {"suggestions", suggestions},
              {"notes", e.notes}};
    return j;
}

std::string formatBytes(int64_t bytes) {
    char buf[64];
    const double v = double(bytes);
    if (std::llabs(bytes) >= (int64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", v / double(1 << 30));
    else if (std::llabs(bytes) >= (int64_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", v / double(1 << 20));
    else if (std::llabs(bytes) >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", v / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    return buf;
}

std::string formatEstimate(const MemoryEstimate& e) {
    std::ostringstream out;
    out << e.shape.architecture << ": " << e.totalParameters << " parameters";
    if (e.trainableParameters != e.totalParameters)
        out << " (" << e.trainableParameters << " trainable, LoRA r=" << e.loraRank.value_or(0) << ")";
    out << "\n"
        << e.worldSize << (e.worldSize == 1 ? " rank" : " ranks") << " on "
        << (e.device == EstimateDevice::Cuda ? "cuda" : "cpu") << ", ZeRO stage " << e.zeroStage << ", " << e.precision
        << ", micro-batch " << e.microBatch << " x " << e.sequenceLength << " tokens, activation checkpointing "
        << (e.activationCheckpointing ? "on" : "off");
    if (e.offloadOptimizer != "none") out << ", optimizer offloaded to " << e.offloadOptimizer;
    if (e.offloadParam != "none") out << ", parameters offloaded to " << e.offloadParam;
    out << "\n\nper rank:\n";
    const MemoryBreakdown& b = e.perRank;
    auto row = [&](const char* name, int64_t v) {
        std::string n = name;
        n.resize(20, ' ');
        out << "  " << n << formatBytes(v) << "\n";
    };
    row("parameters", b.parameters);
    row("gradients", b.gradients);
    row("optimizer states", b.optimizerStates);
    row("master gradients", b.masterGradients);
    row("activations", b.activations);
    row("buckets", b.buckets);
    row("workspace", b.workspace);
    row("allocator slack", b.allocatorSlack);
    row("runtime", b.runtime);
    row("total", b.total);
    if (b.hostOffload > 0)
        row(e.device == EstimateDevice::Cuda ? "host (offloaded)" : "offloaded (host)", b.hostOffload);
    if (b.nvmeOffload > 0) row("NVMe (offloaded)", b.nvmeOffload);
    if (e.deviceCapacity)
        out << "\n" << (e.fits ? "fits" : "does NOT fit") << " in " << formatBytes(*e.deviceCapacity) << " per rank\n";
    if (!e.suggestions.empty()) {
        out << "\nsuggestions:\n";
        for (const auto& s : e.suggestions)
            out << "  " << s.description << ": " << formatBytes(s.perRank.total)
                << (s.fits ? " (fits)" : " (still too large)") << "\n";
    }
    for (const auto& n : e.notes) out << "\nnote: " << n;
    if (!e.notes.empty()) out << "\n";
    return out.str();
}

}  // namespace fts
