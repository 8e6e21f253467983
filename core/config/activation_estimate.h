// What one training micro-step keeps for backward (torch-free; docs/estimate.md "Activations"): the tensors autograd
// saves in each block of this version's LibTorch models, per architecture and per way the forward runs (float32,
// bf16 autocast over float32 weights at stage 0, bit16 weights at stages 1-3, fp16 without autocast), plus one
// block's backward working set. Checked against autograd's own saved tensors (tests/data/estimate/saved_bytes.py).
#pragma once
#include <cstdint>

#include "core/config/model_shape.h"

namespace fts {

enum class EstimateDevice { Cpu, Cuda };

// How the forward computes.
enum class ForwardMode {
    Fp32,              // float32 weights, no autocast
    AutocastOverFp32,  // bf16 autocast over float32 weights (ZeRO stage 0 with bf16): linears cast their inputs
    AutocastBit16,     // bf16 autocast over bf16 weights (stages 1-3 with bf16)
    Half,              // fp16 weights, no autocast (fp16 runs)
};

struct ActivationInputs {
    int64_t batch = 1, seq = 1;
    ForwardMode mode = ForwardMode::Fp32;
    EstimateDevice device = EstimateDevice::Cpu;
    bool checkpointing = false;  // activation checkpointing or the stage-3 block runner: blocks keep their input only
    bool attentionBias = false;  // an additive mask (padding, packed samples, a window in reach): SDPA gets repeated
                                 // k/v heads and the (B, 1, T, T) bias; without one grouped heads go in as they are
    bool repeatKvHeads = false;  // repeated kv heads without a bias (saved_bytes.py's replica)
    bool fusedCpuOps = true;     // the fused CPU float32 RMSNorm/RoPE (FTS_FUSED_BLOCK_OPS) where they apply
    bool fusedCudaOps = true;    // the fused CUDA RMSNorm/RoPE/SwiGLU (FTS_FUSED_BLOCK_OPS) on a CUDA device
    bool frozenNormWeights = false;  // LoRA: norm weights need no gradient, so their product keeps no input
};

// How the activation term was derived (for the GUI's tooltip and --json).
struct ActivationDetail {
    int64_t perLayer = 0;         // bytes one block keeps for backward (without checkpointing)
    int64_t stored = 0;           // all blocks + embeddings + final norm (with checkpointing: block inputs only)
    int64_t backwardWorking = 0;  // one block's gradients in flight (+ its recomputation with checkpointing)
    int64_t blockInput = 0;       // what a checkpointed block keeps: its input
    int64_t outside = 0;          // kept outside the blocks (token ids, final norm, head input, a shared bias)
    bool flashAttention = true;   // false: SDPA's math path keeps (B, H, T, T) attention probabilities
};

ActivationDetail estimateActivations(const ModelShape& shape, const ActivationInputs& in);

}  // namespace fts
