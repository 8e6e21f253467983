// The memory estimate (see memory_estimate.h and docs/estimate.md): model states by the ZeRO paper's formulas,
// activations by what this version's LibTorch blocks save for backward, buckets by DeepSpeed's meaning of the
// zero_optimization keys, workspace by what the LM loss holds. Torch-free.
#include "core/config/memory_estimate.h"

#include "core/config/zero_placement.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
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
    std::vector<std::string> targets;     // empty = every linear layer of the blocks
    std::vector<std::string> parameters;  // target_parameters: expert tensors adapted whole
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
    auto p = it->find("target_parameters");
    if (p != it->end() && p->is_array())
        for (const auto& m : *p)
            if (m.is_string()) l.parameters.push_back(m.get<std::string>());
    return l;
}

// Whether a tensor's name is a target or ends with "." + one (PEFT's rule for both lists).
bool namedBy(const std::string& path, const std::vector<std::string>& targets) {
    for (const auto& target : targets)
        if (path == target || (path.size() > target.size() && path.ends_with("." + target))) return true;
    return false;
}

// The elements of the expert tensors LoRA adapts in one block (the largest): each is used as tensor + delta, kept
// for backward in the compute dtype as PEFT's ParamWrapper keeps it.
int64_t adaptedExpertElements(const ModelShape& shape, const LoraKnobs& lora) {
    std::map<int, int64_t> perLayer;
    for (const auto& t : shape.tensors)
        if (t.experts > 0 && namedBy(t.name, lora.parameters)) perLayer[t.layer] += t.numel;
    int64_t most = 0;
    for (const auto& [layer, n] : perLayer) most = std::max(most, n);
    return most;
}

// LoRA adapter parameters: r * (in + out) for every targeted linear weight of the blocks (PEFT matches a
// target against the end of the module path; "all-linear" = every block linear; no list = PEFT's default targets
// for the model type, as training uses them).
int64_t loraParameters(const ModelShape& shape, const LoraKnobs& lora) {
    const std::vector<std::string>& targets = lora.targets.empty() ? shape.loraDefaultTargets : lora.targets;
    const bool all =
        targets.empty() || (targets.size() == 1 && (targets[0] == "all-linear" || targets[0] == "all_linear"));
    int64_t n = 0;
    for (const auto& t : shape.tensors) {
        if (t.experts > 0 && namedBy(t.name, lora.parameters))  // PEFT's ParamWrapper: per expert r x (in + out)
            n += int64_t(lora.rank) * t.experts * (t.inFeatures + t.outFeatures);
        if (t.module.empty() || t.layer < 0) continue;
        const std::string path = t.name.substr(0, t.name.size() - std::string(".weight").size());
        if (all || namedBy(path, targets)) n += int64_t(lora.rank) * (t.inFeatures + t.outFeatures);
    }
    return n;
}

std::string precisionOf(const DeepSpeedConfig& ds) { return ds.bf16 ? "bf16" : ds.fp16.enabled ? "fp16" : "fp32"; }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The trainer's switch for the fused block kernels (core/model/block_ops.h): on unless FTS_FUSED_BLOCK_OPS=0.
bool fusedKernelsByDefault() {
    const char* v = std::getenv("FTS_FUSED_BLOCK_OPS");
    return !(v && std::strcmp(v, "0") == 0);
}

// model.quantization (QLoRA, BitsAndBytesConfig's names): the blocks' linear weights held 4-bit.
struct QuantKnobs {
    bool doubleQuant = false;
    int64_t computeBytes = 4;  // bnb_4bit_compute_dtype: the dequantized weight of one product
};
std::optional<QuantKnobs> readQuantization(const json& raw) {
    if (!raw.is_object() || !raw.contains("model")) return std::nullopt;
    const std::optional<QuantizationSection> section = readQuantizationSection(raw["model"]);
    if (!section) return std::nullopt;
    QuantKnobs q;
    q.doubleQuant = section->doubleQuant;
    q.computeBytes = section->computeDtype == "float32" ? 4 : 2;
    return q;
}

// Bytes of one weight of n elements in bitsandbytes' 4-bit format (core/model/quant4bit.h): two codes per byte, a
// float32 absmax per 64 elements, or with double quantization one byte per 64 plus a float32 per 256 blocks and
// the 256-entry code.
int64_t quant4Bytes(int64_t n, bool doubleQuant) {
    const int64_t blocks = (n + 63) / 64;
    return (n + 1) / 2 + (doubleQuant ? blocks + (blocks + 255) / 256 * 4 + 256 * 4 : blocks * 4) + 16 * 4;
}

// Everything one estimate depends on, with the options applied.
struct Inputs {
    int world = 1, stage = 0;
    std::string precision = "fp32";
    EstimateDevice device = EstimateDevice::Cpu;
    int64_t micro = 1, seq = 0, accumulation = 1;
    bool checkpointing = false;
    ZeroKnobs zero;
    std::optional<LoraKnobs> lora;
    std::optional<QuantKnobs> quant;
    int64_t runtime = 0;
    bool chunkedLoss = true;
    bool fusedKernels = true;
    bool attentionBias = false;  // instruction data (padding or packed samples): SDPA gets a mask
    int64_t rowsPerSample = 1;   // preference objectives: a pair is two sequences (chosen and rejected)
    int64_t referenceBytes = 0;  // DPO with a frozen copy of the reference: its weights (no gradient, no state)
};

// The placement rule the engine's plan follows (zero_placement.h), for these inputs.
ZeroPlacement placementOf(const Inputs& in) {
    auto device = [](const std::string& d) {
        return d == "cpu" ? OffloadDevice::Cpu : d == "nvme" ? OffloadDevice::Nvme : OffloadDevice::None;
    };
    return ZeroPlacement{.stage = in.stage,
                         .fp16 = in.precision == "fp16",
                         .bf16 = in.precision == "bf16",
                         .lora = in.lora.has_value(),
                         .offloadOptimizer = device(in.zero.offloadOptimizer),
                         .offloadParam = device(in.zero.offloadParam)};
}

struct Result {
    MemoryBreakdown b;
    ActivationDetail act;
    ModelStateSizes states;
    int64_t trainable = 0;
};

// Elements of the weights a linear layer multiplies (autocast casts each to bf16 once per forward at stage 0):
// the blocks' linear weights and an LM head's (the embedding's when tied).
int64_t linearWeightElements(const ModelShape& shape) {
    int64_t n = 0;
    for (const auto& t : shape.tensors)
        if (!t.module.empty() && t.layer >= 0) n += t.numel;
    if (shape.lmHead) n += shape.vocabSize * shape.hiddenSize;
    return n;
}

// One moment of the step: what is alive then, by term.
struct Moment {
    const char* name;
    int64_t parameters = 0, gradients = 0, optimizer = 0, masterGradients = 0, activations = 0, buckets = 0,
            workspace = 0;
    int64_t sum() const {
        return parameters + gradients + optimizer + masterGradients + activations + buckets + workspace;
    }
};

// Bytes per element of each kind of state, and how the forward runs: the parameters in the placement's dtype
// (ZeroPlacement::modelDtype: stage 0 with bf16 keeps float32 weights, autocast over them; fp16 keeps fp16 weights with
// a float32 master; ZeRO 1-3 keep bit16 weights in mixed precision; LoRA's frozen base is bit16 at every stage in
// mixed precision), their gradients in the same dtype; LoRA adapters and their gradients are float32.
struct ElementSizes {
    bool mixed = false, fp16 = false, lora = false;
    int64_t bit16 = 4, base = 4, train = 4, grad = 4;
    // Optimizer state per trainable element: a master copy (12) unless the weights are float32 and stepped in place
    // (stage 0 fp32/bf16, or float32 LoRA adapters at stage 0: 8).
    int64_t optimizer = 12;
    ForwardMode mode = ForwardMode::Fp32;
};

ElementSizes elementSizes(const Inputs& in) {
    ElementSizes e;
    e.mixed = in.precision != "fp32";
    e.fp16 = in.precision == "fp16";
    e.lora = in.lora.has_value();
    e.bit16 = e.mixed ? 2 : 4;
    const bool bit16Base = placementOf(in).modelDtype() != ParamDtype::Float32;
    e.base = bit16Base ? e.bit16 : 4;
    e.train = e.lora ? 4 : e.base;
    e.grad = e.train;
    e.mode = !e.mixed    ? ForwardMode::Fp32
             : e.fp16    ? ForwardMode::Half
             : bit16Base ? ForwardMode::AutocastBit16
                         : ForwardMode::AutocastOverFp32;
    e.optimizer = in.stage == 0 && e.train == 4 ? 8 : 12;
    return e;
}

// The parameters to train and the frozen ones (LoRA: every base weight is frozen; the adapters are extra, trainable
// float32 parameters), and QLoRA's 4-bit blocks.
struct ParameterCounts {
    int64_t trainable = 0, frozen = 0;
    int64_t part = 0;  // one rank's partition of the trainable ones
    int64_t quantizedElements = 0, largestQuantized = 0, quantizedBytes = 0;
};

ParameterCounts parameterCounts(const ModelShape& shape, const Inputs& in) {
    ParameterCounts c;
    const int64_t psi = shape.numParameters();
    c.trainable = in.lora ? loraParameters(shape, *in.lora) : psi;
    c.frozen = in.lora ? psi : 0;
    c.part = ceilDiv(c.trainable, in.world);
    // QLoRA: the blocks' linear weights 4-bit (stages 0-2; the config refuses stage 3), the rest in the base's bytes.
    if (in.quant && in.lora)
        for (const auto& t : shape.tensors)
            if (!t.module.empty() && t.layer >= 0) {
                c.quantizedElements += t.numel;
                c.largestQuantized = std::max(c.largestQuantized, t.numel);
                c.quantizedBytes += quant4Bytes(t.numel, in.quant->doubleQuant);
            }
    return c;
}

// The model states at the paper's sizes, and the two parameter terms stage 3 shards.
struct ParameterBytes {
    int64_t trainable = 0, frozen = 0;
};

ModelStateSizes modelStates(const Inputs& in, const ElementSizes& e, const ParameterCounts& c, ParameterBytes& params) {
    const int64_t N = in.world;
    const ZeroPlacement p = placementOf(in);
    ModelStateSizes st;
    // Stage 3 partitions the parameters: the trainable ones, or with LoRA the frozen base (the adapters stay whole).
    params.trainable = p.partitionsOnLoad() ? ceilDiv(c.trainable * e.train, N) : c.trainable * e.train;
    params.frozen = p.partitionsParameters() ? ceilDiv(c.frozen * e.base, N) : c.frozen * e.base;
    if (in.quant && e.lora) params.frozen = (c.frozen - c.quantizedElements) * e.base + c.quantizedBytes;
    st.parameters = params.trainable + params.frozen;
    // The paper's gradient term: the full set at stages 0-1, the partition from stage 2.
    st.gradients = p.partitionsGradients() ? ceilDiv(c.trainable * e.grad, N) : c.trainable * e.grad;
    st.optimizerStates =
        p.partitionsOptimizerState() ? ceilDiv(c.trainable * e.optimizer, N) : c.trainable * e.optimizer;
    st.masterGradients =
        p.partitionsOptimizerState() ? ceilDiv(c.trainable * 4, N) : (e.fp16 && !e.lora ? c.trainable * 4 : 0);
    return st;
}

// What stays on the device between steps, after offloading (host and NVMe bytes go to the breakdown).
struct Resident {
    int64_t parameters = 0, optimizer = 0, masterGradients = 0;
    int64_t gradients = 0, buckets = 0;  // the gradient buffers that live across steps
};

// offload_optimizer (core/offload/optimizer_partition.h): fp32 master + moments in host memory, or in a swap file
// with buffer_count host buffers of one sub-group each; no fp32 master gradient (CPU-Adam reads the reduced gradient
// in its own dtype). Stages 1-2 keep a parameter-dtype copy of the partition on the device for the all-gather; a CUDA
// device stages one sub-group of gradient and parameter in host memory.
void offloadOptimizer(const Inputs& in, const ElementSizes& e, const ParameterCounts& c, const ModelStateSizes& st,
                      Resident& r, MemoryBreakdown& b) {
    const int64_t subGroup = std::min<int64_t>(c.part, int64_t(in.zero.subGroupSize));
    const int64_t group = std::min(subGroup, kSwapGroupElements);  // the swap unit and the CUDA staging piece
    if (placementOf(in).optimizerState() == StatePlacement::Nvme) {
        const int64_t seg = ceilDiv(group * 4, 4096) * 4096, groups = group > 0 ? ceilDiv(c.part, group) : 0;
        b.nvmeOffload = groups * 3 * seg;
        b.hostOffload = std::min<int64_t>(groups, int64_t(in.zero.offloadBufferCount)) * 3 * seg;
    } else {
        b.hostOffload = st.optimizerStates;
    }
    if (in.stage <= 2) r.parameters += c.part * e.train;
    if (in.device == EstimateDevice::Cuda) b.hostOffload += group * (e.grad + e.train);
    r.optimizer = 0;
    r.masterGradients = 0;
}

// offload_param (stage 3, core/offload/param_shard_store.h): the parameter shard leaves the device. "cpu": all of it
// in host memory (on a CPU device that is where it was: nothing moves). "nvme": the first max_in_cpu elements in host
// memory, the rest in a swap file, with buffer_count read-ahead buffers of at most buffer_size elements and two 8 MiB
// write buffers in host memory.
void offloadParameters(const ModelShape& shape, const Inputs& in, const ElementSizes& e, const ParameterCounts& c,
                       const ParameterBytes& params, Resident& r, MemoryBreakdown& b) {
    const int64_t N = in.world;
    const int64_t shardBytes = e.lora ? params.frozen : params.trainable;
    const int64_t shardElems = e.lora ? ceilDiv(c.frozen, N) : c.part;
    int64_t resident = shardBytes, swapped = 0;
    if (placementOf(in).parameters() == StatePlacement::Nvme) {
        const int64_t residentElems = std::min<int64_t>(shardElems, int64_t(in.zero.paramMaxInCpu));
        resident = residentElems * e.bit16;
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
        const int64_t rangeBuffer = ceilDiv(largestBlock * e.bit16, 4096) * 4096 + 4096;
        const int64_t span =  // what a step writes into: a sub-group, at most one write buffer
            std::min<int64_t>({(8 << 20) / e.bit16, int64_t(in.zero.subGroupSize), shardElems}) * e.bit16;
        b.hostOffload += 2 * std::min<int64_t>(8 << 20, fileBytes) + span + rangeBuffer + largestBlock * e.bit16 +
                         aheadBuffers * rangeBuffer;
    }
    if (in.device == EstimateDevice::Cuda || swapped > 0) {
        r.parameters -= shardBytes;
        if (in.device == EstimateDevice::Cuda)
            b.hostOffload += resident;
        else
            r.parameters += resident;
    }
}

int64_t reduceBucketElements(const Inputs& in, const ParameterCounts& c) {
    return int64_t(std::min(in.zero.reduceBucketSize, double(c.trainable)));
}

Resident residentMemory(const ModelShape& shape, const Inputs& in, const ElementSizes& e, const ParameterCounts& c,
                        const ModelStateSizes& st, const ParameterBytes& params, MemoryBreakdown& b) {
    Resident r;
    r.parameters = st.parameters;
    r.optimizer = st.optimizerStates;
    r.masterGradients = st.masterGradients;
    const ZeroPlacement p = placementOf(in);
    if (p.optimizerState() != StatePlacement::Device) offloadOptimizer(in, e, c, st, r, b);
    if (p.parameters() != StatePlacement::Device) offloadParameters(shape, in, e, c, params, r, b);
    r.parameters += in.referenceBytes;
    // Gradient buffers that live across steps (core/zero): stage 1 a flat gradient of every trainable parameter,
    // stage 2 this rank's partition and one reduce_bucket_size bucket (allocated once), stage 3 the partition.
    const int zero = p.trainableStage();
    if (zero == 1) r.gradients = c.trainable * e.grad;
    if (zero >= 2) r.gradients = c.part * e.grad;
    if (zero == 2) r.buckets = reduceBucketElements(in, c) * e.grad;
    // On a CPU device the offloaded optimizer (and parameter shard) lives in the same memory: it counts.
    if (in.device == EstimateDevice::Cpu) r.optimizer += b.hostOffload;
    return r;
}

// The loss (core/model/chunked_head_loss.h, token_cross_entropy.h). Unchunked: the float32 logits the loss keeps
// and, as its backward starts, their float32 gradient (8 bytes per logit; the forward's bit16 logits and float32
// copy, 6 bytes, come before), then the bit16 gradient of the logits with the head's input and weight gradients.
// Chunked: one chunk's float32 logits and softmax (8 bytes per logit of the chunk) with the rows' and the head
// weight's gradients. A classifier: its logits, their softmax and gradient.
int64_t lossWorkspace(const ModelShape& shape, const Inputs& in, const ElementSizes& e) {
    if (!shape.lmHead) return in.micro * shape.numLabels * 4 * 3;
    const int64_t tokens = in.micro * in.rowsPerSample * in.seq;
    const int64_t c = e.mode == ForwardMode::Fp32 ? 4 : 2;
    const int64_t V = shape.vocabSize, C = shape.hiddenSize;
    const int64_t headGrads = tokens * C * c + (e.lora ? 0 : V * C * c);
    if (!in.chunkedLoss) return std::max(tokens * V * 8, tokens * V * c + headGrads);
    const int64_t budget = in.device == EstimateDevice::Cuda ? (int64_t(256) << 20) : (int64_t(32) << 20);
    const int64_t rows = std::min(tokens, std::max<int64_t>(1, budget / (V * 4)));
    return rows * V * 8 + headGrads;
}

// Stage 3's gathered parameters and gradient buckets at the end of backward, and stage 2's reduction copies.
struct GatherBuffers {
    int64_t gathered = 0, gradBucketsEnd = 0, outsideGrads = 0;
};

GatherBuffers gatherBuffers(const ModelShape& shape, const Inputs& in, const ElementSizes& e,
                            const ParameterCounts& c) {
    GatherBuffers g;
    const int64_t N = in.world;
    const int64_t reduceElems = reduceBucketElements(in, c);
    if (in.stage >= 3) {
        // Tensors of at most stage3_param_persistence_threshold elements stay whole on every rank (besides their
        // chunk in the shard). The others are gathered: those outside the blocks for the whole micro-step; the
        // running block plus the following blocks that fit stage3_prefetch_bucket_size, within
        // stage3_max_live_parameters; plus the all-gather buffer of one block.
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
        g.gathered = (persistent + outsideGathered + liveBlocks * block + block) * e.bit16;
        if (!e.lora) {
            // Gradients: those of the parameters outside the blocks are leaves held through backward; a block's
            // gradients wait in the reduce_bucket_size bucket (a block larger than the bucket: all of them before
            // it is cut into buckets), and the reduce-scatter's send buffer (N rows of the bucket's chunks) and
            // this rank's received row come on top. On CPU, Gloo's reduce-scatter works on its own copy of the
            // send buffer (LibTorch 2.11: the peak rises by the input + the output, measured).
            const int64_t glooCopy = in.device == EstimateDevice::Cpu && N > 1 ? reduceElems : 0;
            g.outsideGrads = outsideAll * e.grad;
            g.gradBucketsEnd =
                (std::max(reduceElems, blockFull) + reduceElems + glooCopy + ceilDiv(reduceElems, N)) * e.grad;
        }
    }
    if (placementOf(in).trainableStage() == 2) {
        // Stage 2: a full bucket is concatenated into a copy for its reduction (also with one rank), and with
        // N > 1 each owner's part of it.
        g.gradBucketsEnd += reduceElems * e.grad;
        if (N > 1) g.gradBucketsEnd += std::min(reduceElems, c.part) * e.grad;
    }
    return g;
}

// The moments of a step whose sum can be the peak: backward's start and end (and at stage 3 a block's backward with
// its gradient bucket), the optimizer step. What is alive at each, by term.
std::vector<Moment> stepMoments(const ModelShape& shape, const Inputs& in, const ElementSizes& e,
                                const ParameterCounts& c, const Resident& r, const ActivationDetail& act,
                                bool checkpointing, int64_t loss) {
    const int64_t N = in.world;
    const int64_t reduceElems = reduceBucketElements(in, c);
    const GatherBuffers g = gatherBuffers(shape, in, e, c);
    // Autocast over float32 weights (stage 0 bf16) casts every linear weight to bf16 once per forward; the casts
    // stay alive until their layer's backward (the products keep them). A 4-bit weight is dequantized inside its
    // product and not kept: no cast copies of it ...
    const int64_t castCopies =
        e.mode == ForwardMode::AutocastOverFp32 ? 2 * (linearWeightElements(shape) - c.quantizedElements) : 0;
    // ... but the product's dequantized weight exists while it runs (in backward too: one at a time).
    const int64_t dequantizedTile = in.quant && e.lora ? c.largestQuantized * in.quant->computeBytes : 0;
    const int64_t stage0Grads = in.stage == 0 ? c.trainable * e.grad : 0;

    // Backward starts: every activation, the casts, the loss's workspace (or the first block's working set). With
    // gradient accumulation, stage 0's .grad (every trainable parameter) outlives the micro-steps: the second
    // micro-step's backward starts with all of it.
    Moment start{"backward (start)"};
    start.parameters = r.parameters + castCopies;
    start.optimizer = r.optimizer;
    start.gradients = r.gradients + (in.accumulation > 1 ? stage0Grads : 0);
    start.buckets = r.buckets + g.gathered;
    start.activations = act.stored + (act.backwardWorking > loss ? act.backwardWorking : 0);
    start.workspace = (act.backwardWorking > loss ? 0 : loss) + dequantizedTile;
    // Backward ends: the activations gone, every gradient made (stage 0 .grad), or, at stage 3, the backward of a
    // block with the bucket holding up to max(reduce_bucket_size, a block) of gradients, or a bucket's reduction
    // (its send and receive buffers) once the blocks whose gradients filled it have freed their inputs. Stage 2: a
    // bucket's reduction copy.
    Moment end{"backward (end)"};
    end.parameters = r.parameters;
    end.optimizer = r.optimizer;
    end.gradients = r.gradients + stage0Grads + g.outsideGrads;
    end.buckets = r.buckets + g.gathered + g.gradBucketsEnd;
    end.activations = act.outside + act.backwardWorking + (checkpointing ? act.blockInput : act.perLayer);
    end.workspace = dequantizedTile;
    Moment blockBackward{"backward (end)"};
    if (in.stage >= 3 && !e.lora) {
        int64_t blockFull = 0;
        for (int layer = 0; layer < int(shape.numLayers); ++layer)
            blockFull = std::max(blockFull, shape.layerParameters(layer));
        const int64_t held = std::max(reduceElems, blockFull);
        const int64_t filled = std::min<int64_t>(shape.numLayers, ceilDiv(held, std::max<int64_t>(1, blockFull)));
        end.activations = act.outside + (shape.numLayers - filled) * act.blockInput;
        blockBackward = end;
        blockBackward.buckets = g.gathered + held * e.grad;
        blockBackward.activations = act.stored + act.backwardWorking;
    }
    // The optimizer step: every gradient and the float32 gradient of the partition; stage 0 with N > 1 all-reduces a
    // flat copy of the gradients, stages 1-2 with N > 1 all-gather the updated partition in pieces.
    Moment step{"optimizer step"};
    step.parameters = r.parameters;
    step.optimizer = r.optimizer;
    step.gradients = r.gradients + stage0Grads;
    step.masterGradients = r.masterGradients;
    step.buckets = r.buckets;
    if (N > 1 && in.stage == 0) step.buckets += c.trainable * e.grad;
    if (const int zero = placementOf(in).trainableStage(); N > 1 && (zero == 1 || zero == 2)) {
        const int64_t gatherElems = int64_t(std::min(in.zero.allgatherBucketSize, double(c.trainable)));
        step.buckets += (gatherElems + ceilDiv(gatherElems, N)) * e.train;
    }
    return {start, end, blockBackward, step};
}

// The estimate: element sizes, model states, what stays resident, the activations and the loss, then the step's
// moments; the largest moment is the allocator's peak.
Result compute(const ModelShape& shape, const Inputs& in) {
    Result res;
    MemoryBreakdown& b = res.b;
    const ElementSizes e = elementSizes(in);
    const ParameterCounts c = parameterCounts(shape, in);
    res.trainable = c.trainable;
    ParameterBytes params;
    res.states = modelStates(in, e, c, params);
    const Resident r = residentMemory(shape, in, e, c, res.states, params, b);

    // Stage 3 runs every block through its gather/recompute runner: the forward keeps only the block's input and
    // backward recomputes it, as activation checkpointing does, whatever model.activation_checkpointing says.
    ActivationInputs ai;
    ai.batch = in.micro * in.rowsPerSample;
    ai.seq = in.seq;
    ai.mode = e.mode;
    ai.device = in.device;
    ai.checkpointing = in.checkpointing || in.stage >= 3;
    ai.attentionBias = in.attentionBias;
    ai.frozenNormWeights = e.lora;
    ai.fusedCpuOps = ai.fusedCudaOps = in.fusedKernels;
    res.act = estimateActivations(shape, ai);
    if (in.lora && !in.lora->parameters.empty()) {  // adapted expert tensors (tensor + delta) kept by each block
        const int64_t bytes = (e.mode == ForwardMode::Fp32 ? 4 : 2) * adaptedExpertElements(shape, *in.lora);
        res.act.perLayer += bytes;
        if (ai.checkpointing)
            res.act.backwardWorking += bytes;
        else
            res.act.stored += bytes * shape.sparseLayers;
    }
    const int64_t loss = lossWorkspace(shape, in, e);

    const std::vector<Moment> moments = stepMoments(shape, in, e, c, r, res.act, ai.checkpointing, loss);
    const Moment* peak = &moments.front();
    for (const Moment& m : moments)
        if (m.sum() > peak->sum()) peak = &m;
    b.phase = peak->name;
    b.parameters = peak->parameters;
    b.gradients = peak->gradients;
    b.optimizerStates = peak->optimizer;
    b.masterGradients = peak->masterGradients;
    b.activations = peak->activations;
    b.buckets = peak->buckets;
    b.workspace = peak->workspace;
    b.allocatorPeak = peak->sum();
    if (in.device == EstimateDevice::Cpu)
        b.allocatorSlack = int64_t(kCpuAllocatorSlack * double(res.act.stored + res.act.backwardWorking + loss));
    b.runtime = in.runtime;
    b.total = b.allocatorPeak + b.allocatorSlack + b.runtime;
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
    in.accumulation = std::max<int64_t>(1, config.deepspeed.gradientAccumulationSteps);
    in.checkpointing = o.activationCheckpointing.value_or(config.model.activationCheckpointing);
    in.device =
        o.device.value_or(config.training.device.rfind("cuda", 0) == 0 ? EstimateDevice::Cuda : EstimateDevice::Cpu);
    in.zero = readZeroKnobs(config.raw, in.stage);
    if (o.offloadOptimizer) in.zero.offloadOptimizer = *o.offloadOptimizer;
    in.lora = readLora(config.raw);
    in.quant = readQuantization(config.raw);
    if (o.loraRank) in.lora = LoraKnobs{*o.loraRank, {}};
    in.runtime = o.runtimeBytes.value_or(in.device == EstimateDevice::Cuda ? kCudaRuntimeBytes : kCpuRuntimeBytes);
    in.chunkedLoss = o.chunkedLoss.value_or(config.model.chunkedLoss);
    in.fusedKernels = o.fusedKernels.value_or(fusedKernelsByDefault());
    in.attentionBias = config.data.instructionFormat();
    if (config.training.preferenceObjective()) {                        // core/train/preference_objective.h
        in.rowsPerSample = config.training.objective == "kto" ? 1 : 2;  // KTO: one sequence (its KL pass: no grad)
        in.chunkedLoss = false;  // the pairs' log-probs are taken from the whole logits
        const PreferenceSection& p = config.preference;
        const bool copy = (config.training.objective == "dpo" || config.training.objective == "kto") &&
                          !p.precomputeRefLogProbs && (!p.refModel.empty() || !config.model.lora.enabled);
        if (copy) {
            const ModelShape ref = p.refModel.empty() ? ModelShape() : readModelShape(p.refModel / "config.json");
            in.referenceBytes = -1;  // the policy's shape unless ref_model names another: filled by the caller
            if (!p.refModel.empty()) in.referenceBytes = ref.numParameters() * (in.precision == "fp32" ? 4 : 2);
        }
    }
    return in;
}

}  // namespace

ActivationDetail estimateActivations(const ModelShape& s, int64_t B, int64_t T, const std::string& precision,
                                     EstimateDevice device, bool checkpointing) {
    ActivationInputs in;
    in.batch = B;
    in.seq = T;
    in.mode = precision == "fp32" ? ForwardMode::Fp32 : ForwardMode::AutocastOverFp32;
    in.device = device;
    in.checkpointing = checkpointing;
    in.repeatKvHeads = true;  // the replica repeats kv heads
    in.fusedCpuOps = false;   // and composes RMSNorm from ATen ops
    in.fusedCudaOps = false;
    return estimateActivations(s, in);
}

MemoryEstimate estimateMemory(const TrainConfig& config, const EstimateOptions& options) {
    return estimateMemory(config, readModelShape(config.model.path / "config.json"), options);
}

namespace {

// What the figures assume, in words: the preference objective's sequences and reference, the stage 0 precisions,
// LoRA's activations, stage 3's recomputation, CUDA's runtime term, the logits without the chunked loss, an offload
// that the stage ignores.
void addEstimateNotes(const TrainConfig& config, const ModelShape& shape, const Inputs& in, MemoryEstimate& e) {
    if (config.training.preferenceObjective())
        e.notes.push_back(
            "training.objective \"" + config.training.objective + "\": " +
            (in.rowsPerSample == 2 ? "each pair is two sequences (micro-batch x 2 rows)"
                                   : "each example is one sequence (its KL sequence is scored without gradient)") +
            " and the loss takes the whole logits" +
            (in.referenceBytes > 0
                 ? "; the frozen reference copy (" + formatBytes(in.referenceBytes) + ") is counted with the parameters"
                 : std::string()));
    if (in.precision == "bf16" && in.stage == 0)
        e.notes.push_back(
            "stage 0 with bf16: this version keeps fp32 weights and gradients (4+4+8 bytes per parameter, the same "
            "16 in total) plus autocast's bf16 copies of the linear weights from forward to their backward");
    if (in.precision == "fp16" && in.stage == 0)
        e.notes.push_back(
            "stage 0 with fp16: fp16 weights and gradients, an fp32 master copy and moments; the step "
            "adds an fp32 copy of the gradients");
    if (in.lora && in.lora->rank > 0)
        e.notes.push_back(
            "LoRA: the frozen layers keep their inputs for backward (the adapters' gradients need "
            "them), so the activations are nearly those of full fine-tuning");
    if (in.stage >= 3 && !in.checkpointing)
        e.notes.push_back(
            "stage 3 recomputes every block in backward (it gathers the block's parameters again), so the "
            "activations are those of activation checkpointing");
    if (in.device == EstimateDevice::Cuda)
        e.notes.push_back(
            "CUDA: total = the allocator's peak (what torch.cuda.max_memory_allocated reports) + the runtime term "
            "(CUDA context and library code, outside the allocator: a typical 512 MiB, not measured)");
    if (!in.chunkedLoss && shape.lmHead)
        e.notes.push_back("model.chunked_loss is off: the loss holds the float32 logits and their gradient (" +
                          formatBytes(in.micro * in.seq * shape.vocabSize * 8) + ")");
    if (in.zero.offloadOptimizer != "none" && in.stage == 0)
        e.notes.push_back("offload_optimizer needs ZeRO stage 1 or higher; ignored at stage 0");
}

// What would fit a device the estimate exceeds, each change alone (kept where it lowers the total): a higher ZeRO
// stage, CPU offload of the optimizer, activation checkpointing, a smaller micro-batch with more accumulation
// (the global batch kept), LoRA; and all together when none alone fits.
void suggestChanges(const ModelShape& shape, const Inputs& in, MemoryEstimate& e) {
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
                "zero_optimization.stage = " + std::to_string(x.stage) + " with offload_optimizer.device = \"cpu\"", x);
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
        x.accumulation = in.accumulation * (in.micro / m);
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

}  // namespace

MemoryEstimate estimateMemory(const TrainConfig& config, const ModelShape& shape, const EstimateOptions& options) {
    Inputs in = resolveInputs(config, options);
    if (in.referenceBytes < 0) in.referenceBytes = shape.numParameters() * (in.precision == "fp32" ? 4 : 2);
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
    e.quantized4bit = in.lora && in.quant;
    if (shape.finalSoftcap && in.chunkedLoss) {  // the model cannot cap logits it never holds (core/model/decoder)
        in.chunkedLoss = false;
        e.notes.push_back(
            "final_logit_softcapping: the loss takes the whole (soft-capped) logits; model.chunked_loss "
            "does not apply to this model");
    }
    const Result r = compute(shape, in);
    e.trainableParameters = r.trainable;
    e.activationDetail = r.act;
    e.states = r.states;
    e.chunkedLoss = in.chunkedLoss;
    e.perRank = r.b;
    e.deviceCapacity = options.deviceCapacity;
    e.fits = !e.deviceCapacity || e.perRank.total <= *e.deviceCapacity;

    addEstimateNotes(config, shape, in, e);
    if (!e.fits && options.suggest) suggestChanges(shape, in, e);
    return e;
}

nlohmann::json toJson(const MemoryBreakdown& b) {
    return {{"phase", b.phase},
            {"allocator_peak", b.allocatorPeak},
            {"parameters", b.parameters},
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
              {"quantization", e.quantized4bit ? json("4-bit") : json(nullptr)},
              {"activation_detail",
               {{"per_layer", e.activationDetail.perLayer},
                {"stored", e.activationDetail.stored},
                {"backward_working", e.activationDetail.backwardWorking},
                {"flash_attention", e.activationDetail.flashAttention}}},
              {"chunked_loss", e.chunkedLoss},
              {"model_states",
               {{"parameters", e.states.parameters},
                {"gradients", e.states.gradients},
                {"optimizer_states", e.states.optimizerStates},
                {"master_gradients", e.states.masterGradients}}},
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
        out << " (" << e.trainableParameters << " trainable, LoRA r=" << e.loraRank.value_or(0)
            << (e.quantized4bit ? " over a 4-bit base" : "") << ")";
    out << "\n"
        << e.worldSize << (e.worldSize == 1 ? " rank" : " ranks") << " on "
        << (e.device == EstimateDevice::Cuda ? "cuda" : "cpu") << ", ZeRO stage " << e.zeroStage << ", " << e.precision
        << ", micro-batch " << e.microBatch << " x " << e.sequenceLength << " tokens, activation checkpointing "
        << (e.activationCheckpointing ? "on" : "off");
    if (e.offloadOptimizer != "none") out << ", optimizer offloaded to " << e.offloadOptimizer;
    if (e.offloadParam != "none") out << ", parameters offloaded to " << e.offloadParam;
    out << "\n\nper rank, at the peak (" << e.perRank.phase << "):\n";
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
    out << "  (allocator peak " << formatBytes(b.allocatorPeak) << "; model states as the ZeRO paper sizes them: "
        << "parameters " << formatBytes(e.states.parameters) << ", gradients " << formatBytes(e.states.gradients)
        << ", optimizer " << formatBytes(e.states.optimizerStates) << ")\n";
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
