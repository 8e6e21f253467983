// Saved-for-backward bytes of this version's blocks (see activation_estimate.h). Byte sizes: r the tensor a norm
// keeps of the residual stream, c the compute dtype, f = 4 for norm statistics and log-sum-exp. Autograd keeps a
// tensor once however many ops save it (views share storage), and a product with a constant keeps nothing.
#include "core/config/activation_estimate.h"

#include <algorithm>

namespace fts {

namespace {

// What a decoder family's block keeps beyond (or instead of) Llama's, given Llama's two norm terms (`norms`: the
// input norm feeding 3 projections, the MLP's feeding 2) and its attention term; may add to `outside` (a composed
// final norm in place of Llama's `finalNorm`, soft-capped logits). Returns the bytes to add to Llama's per-layer term.
// - A composed RMSNorm (Gemma's (1 + w), OLMo 2's float-weight product) keeps a float32 tensor of its input (the input
//   itself when float32, else a copy), rsqrt (one per row) and the normalised float32 tensor: 8 bytes an element.
// - Its output is kept by the projections it feeds: once, or under autocast over float32 weights one bit16 cast per
//   projection (a fused qkv or gate_up projection is one).
// - Per-head q/k norms: Qwen3's plain RMSNorm (fused in float32: the projection's output and rstd; composed on
//   bit16 inputs: the float32 copy, rstd and the normalised bit16 tensor); Gemma 3's and OLMo 2's composed ones.
// - Phi-3's fused qkv: SDPA keeps v as a view of the fused output, so its q and k parts stay alive too.
// - Gemma 2's soft-capped eager attention: q, the repeated k and v, tanh's (B, H, T, T) output, softmax's float32
//   one, the causal mask and the output's contiguous copy, instead of SDPA's.
// - Layers whose window is shorter than the rows: SDPA with a bias gets k and v repeated to H heads.
// Checked against the model's own live bytes per block (tests/core/train/test_family_activations.cpp) and against
// whole CPU runs' allocator peaks (integration_test_estimate_cli, fp32 and bf16).
int64_t familyBlockTerms(const ModelShape& s, const ActivationInputs& in, int64_t attention,
                         std::pair<int64_t, int64_t> norms, int64_t finalNorm, int64_t& outside) {
    const DecoderFamily& fam = *s.family;
    const bool fp32 = in.mode == ForwardMode::Fp32;
    const int64_t c = fp32 ? 4 : 2, f = 4;
    const int64_t B = in.batch, T = in.seq, C = s.hiddenSize, H = s.numHeads, D = s.headDim;
    const int64_t K = s.numKvHeads > 0 ? s.numKvHeads : H;
    const int64_t BT = B * T, BTC = BT * C, BTQ = BT * H * D, BTK = BT * K * D;
    auto composed = [&](int64_t rows, int64_t width) { return 8 * rows * width + f * rows; };
    auto casts = [&](int64_t k) { return (in.mode == ForwardMode::AutocastOverFp32 ? k : 1) * c * BTC; };
    const int64_t kAttn = fam.fusedQkv ? 1 : 3, kMlp = fam.fusedGateUp ? 1 : 2;
    int64_t add = 0;
    // the fused projections read the norm's output once (under autocast over float32: one cast, not 3 or 2)
    add -= (casts(3) - casts(kAttn)) + (casts(2) - casts(kMlp));
    if (fam.qkNorm == QkNorm::PerHead) {
        if (fam.norm != NormKind::Rms)  // composed (Gemma 3)
            add += composed(BT * H, D) + composed(BT * K, D);
        else if (fp32 && in.fusedCpuOps && in.device == EstimateDevice::Cpu)  // fused: input and rstd
            add += c * (BTQ + BTK) + f * BT * (H + K);
        else  // on a bit16 input: its float32 copy, rstd, the normalised bit16 tensor
            add += (4 + c) * (BTQ + BTK) + f * BT * (H + K);
    } else if (fam.qkNorm == QkNorm::Whole) {
        add += composed(BT, H * D) + composed(BT, K * D);
    }
    if (fam.layout == BlockLayout::Sandwich) {
        add -= norms.first + norms.second;
        add += composed(BT, C) + casts(kAttn);  // input norm, its output kept by the projections
        add += composed(BT, C);                 // post-attention norm of o_proj's output
        add += composed(BT, C) + casts(kMlp);   // pre-feedforward norm, its output kept by gate/up
        add += composed(BT, C);                 // post-feedforward norm of down's output
    } else if (fam.layout == BlockLayout::PostNorm) {
        add -= norms.first + norms.second;
        add += casts(kAttn) + composed(BT, C);  // the block input (the projections'), post-attention norm
        add += casts(kMlp) + composed(BT, C);   // the residual after attention (gate/up's), post-feedforward norm
    }
    if (fam.fusedQkv) add += c * (BTQ + BTK);
    if (s.attentionSoftcap) add += 4 * c * BTQ + c * B * H * T * T + f * B * H * T * T + T * T - attention;
    // A windowed layer in reach of the rows attends through a bias, with which SDPA gets k and v repeated to H heads
    // (the layers without a window keep K heads): kept by every such layer, counted outside the per-layer term.
    if (!s.attentionSoftcap && !in.attentionBias && K < H && !in.checkpointing)
        for (int64_t w : s.layerWindows)
            if (w > 0 && w < T) outside += 2 * c * BT * (H - K) * D;
    if (fam.norm != NormKind::Rms) outside += composed(BT, C) + casts(1) - finalNorm;  // the composed final norm
    // soft-capped logits: tanh's output (saved) and the capped logits, in the compute dtype, beside what the loss keeps
    if (s.finalSoftcap) outside += 2 * c * BT * s.vocabSize;
    return add;
}

// What a sparse layer's feed-forward keeps instead of the dense MLP (core/model/moe.cpp), for N tokens routed to k
// of E experts (R = N x k rows grouped by expert): the router's float32 softmax (gpt-oss: the softmax of its k top
// logits), the top-k indices and, when renormalised, the k weights and their sum; the rows gathered for the experts,
// their outputs and the weighted outputs (index_add keeps its source), the row order and each row's token (int64)
// and weight; per row the SwiGLU's gate_up output and product (3 x I: core/model/grouped_swiglu.h; gpt-oss's clamped
// one, op by op: gate_up, the clamped gate, sigmoid, the gated product, up + 1 and the product: 7 x I). The
// load-balancing loss keeps another softmax of the logits.
int64_t expertBlockBytes(const ModelShape& s, int64_t tokens, int64_t c) {
    const int64_t N = tokens, k = s.expertsPerToken, E = s.experts, R = N * k, C = s.hiddenSize;
    int64_t router = 8 * N * k;
    router += s.clampedExperts ? c * N * k : 4 * N * E;
    if (s.normalizedTopK) router += 4 * N * k + 4 * N;
    if (s.routerLoss) router += c * N * E;
    const int64_t rows = 3 * c * R * C + 16 * R + 4 * R;
    return router + rows + (s.clampedExperts ? 7 : 3) * c * R * s.expertIntermediate;
}

// gpt-oss's eager attention with sinks instead of SDPA's: q and the repeated k and v, the (B, H, T, T + 1) softmax,
// the row maxima's indices and the output's contiguous copy.
int64_t sinkAttentionBytes(const ModelShape& s, const ActivationInputs& in, int64_t c) {
    const int64_t B = in.batch, T = in.seq, H = s.numHeads, D = s.headDim, BTQ = B * T * H * D;
    return 4 * c * BTQ + c * B * H * T * (T + 1) + 8 * B * H * T + T * T;
}

}  // namespace

ActivationDetail estimateActivations(const ModelShape& s, const ActivationInputs& in) {
    ActivationDetail d;
    const ForwardMode mode = in.mode;
    const bool fp32 = mode == ForwardMode::Fp32;
    // CUDA's autocast runs layer_norm in float32 (its fp32 list); CPU's does not, so over bf16 weights on CPU GPT-2's
    // and BERT's norms see and return bf16, as without autocast.
    const bool layerNormInBit16 =
        mode == ForwardMode::Half || (mode == ForwardMode::AutocastBit16 && in.device == EstimateDevice::Cpu);
    const bool half = layerNormInBit16;
    const bool autocast = !layerNormInBit16 && mode != ForwardMode::Fp32;
    const int64_t c = fp32 ? 4 : 2;
    const int64_t f = 4;
    const int64_t B = in.batch, T = in.seq;
    const int64_t C = s.hiddenSize, I = s.intermediateSize, H = s.numHeads, D = s.headDim, L = s.numLayers;
    const int64_t K = s.numKvHeads > 0 ? s.numKvHeads : H;
    const int64_t BT = B * T, BTC = BT * C, BTI = BT * I, BTQ = BT * H * D;
    // Dropout on CPU keeps a noise tensor in the input's dtype; CUDA's fused dropout keeps a bool mask.
    const int64_t dropBytes = in.device == EstimateDevice::Cpu ? c : 1;
    // SDPA: the fused kernels (flash, memory-efficient; CPU's flash too) keep q, k, v, the output and a
    // log-sum-exp (B, H, T). Grouped kv heads go in as they are without a bias (enable_gqa) and are repeated to H
    // heads with one. On CPU with attention dropout the math path keeps softmax, dropout noise and dropped
    // probabilities (3 x (B, H, T, T)), the scaled q and k, and a contiguous copy of the output.
    d.flashAttention = !(in.device == EstimateDevice::Cpu && s.attentionDropout > 0);
    const int64_t kvHeads = in.attentionBias || in.repeatKvHeads ? H : K;
    const int64_t qkv = c * BTQ + 2 * c * BT * kvHeads * D;
    const int64_t attention =
        d.flashAttention ? qkv + c * BTQ + f * B * H * T : qkv + c * BTQ * 4 + 3 * c * B * H * T * T;
    const int64_t ids = 8 * BT;  // int64 token ids the embedding keeps

    int64_t perLayer = 0, outside = ids, blockInput = 0;
    int64_t sparseLayerTotal = -1;  // a mixture of experts: the blocks' sum (sparse and dense blocks differ)
    if (s.modelType == "gpt2") {
        // ln_1 input + mean/rstd, ln_1 output (c_attn's input), the qkv projection (SDPA keeps q, k, v as views
        // of it), attention output and log-sum-exp, the residual after attention (ln_2's input) + mean/rstd, ln_2
        // output (c_fc's input), c_fc and gelu outputs. Under autocast layer_norm runs in float32: it keeps a
        // float32 input (the residual itself over float32 weights, a cast of the bf16 residual over bf16 ones) and
        // returns float32, which c_attn / c_fc cast to bf16 (c bytes).
        const int64_t r = half ? 2 : 4;
        const int64_t attn = d.flashAttention ? 3 * c * BTC + c * BTQ + f * B * H * T
                                              : 3 * c * BTC + c * BTQ * 4 + 3 * c * B * H * T * T;
        perLayer = r * BTC + 2 * f * BT + c * BTC + attn + r * BTC + 2 * f * BT + c * BTC + 2 * c * BTI;
        if (s.hiddenDropout > 0) perLayer += 2 * dropBytes * BTC;
        outside += r * BTC + 2 * f * BT + c * BTC;  // ln_f input, mean/rstd, ln_f output (the lm_head's input)
        if (s.embeddingDropout > 0) outside += dropBytes * BTC;
        blockInput = (fp32 || mode == ForwardMode::AutocastOverFp32 ? 4 : 2) * BTC;
    } else if (s.modelType == "bert") {
        // Post-LN: the q/k/v input (under autocast each projection keeps its own bf16 cast of the float32
        // LayerNorm output: autocast caches casts of leaf weights only), q, k, v, attention, LayerNorm 1 input +
        // mean/rstd, its output (intermediate input; a cast under autocast), intermediate and gelu outputs,
        // LayerNorm 2 input + mean/rstd; hidden dropout x2. Under autocast LayerNorm outputs float32, so the
        // residual stream between layers is float32 whatever the weights' dtype.
        const int64_t r = half ? 2 : 4;
        const int64_t attn = d.flashAttention ? 3 * c * BTC + c * BTQ + f * B * H * T
                                              : 3 * c * BTC + c * BTQ * 4 + 3 * c * B * H * T * T;
        perLayer =
            (autocast ? 3 : 1) * c * BTC + attn + r * BTC + 2 * f * BT + c * BTC + 2 * c * BTI + r * BTC + 2 * f * BT;
        if (s.hiddenDropout > 0) perLayer += 2 * dropBytes * BTC;
        blockInput = r * BTC;
        outside += r * BTC + 2 * f * BT;  // embeddings LayerNorm in, mean/rstd
        if (s.hiddenDropout > 0) outside += dropBytes * BTC;
        if (s.lmHead)
            outside += (3 * c + r) * BTC + 2 * f * BT;  // transform in, gelu in, LayerNorm in, decoder in
        else
            outside += 4 * f * B * C;  // pooler: first token, tanh, dropout, classifier in
    } else {  // the decoder families (core/arch): Llama's block, and what each family adds or changes
        // RMSNorm (x.to(float32), x * rsqrt(mean(x^2) + eps), weight * that.to(x's dtype)): with a float32 input
        // it keeps the input (the residual), rsqrt (B, T) and the normalised float32 tensor (weight's product; not
        // when the weight is frozen); with a bit16 input a float32 copy, rsqrt, the normalised bit16 tensor and the
        // output. The fused CPU float32 kernel keeps input and rstd only. The projections keep their input: the
        // norm's output, or under autocast over float32 weights one bf16 cast of it per projection (k = 3 for
        // q/k/v, 2 for gate/up). RoPE keeps bit16 copies of cos and sin for q and for k (4 x T x D per block) when
        // q and k are bit16, nothing per block in float32. The gated MLP keeps gate out, silu out, up out and
        // their product. The fused CUDA kernels (kernels/cuda/block_ops.cuh) keep the norm's input and rstd, and
        // SwiGLU's gate and up only (silu is recomputed in backward).
        const int64_t normed = in.frozenNormWeights ? 0 : 1;
        const bool fusedCuda = in.fusedCudaOps && in.device == EstimateDevice::Cuda;
        auto norm = [&](int64_t k) -> int64_t {
            if (fusedCuda) {  // the fused CUDA kernel keeps its input and rstd; the projections keep its output
                const int64_t input = mode == ForwardMode::Fp32 || mode == ForwardMode::AutocastOverFp32 ? 4 : c;
                return (input + (mode == ForwardMode::AutocastOverFp32 ? k : 1) * c) * BTC + f * BT;
            }
            switch (mode) {
                case ForwardMode::Fp32:
                    if (in.fusedCpuOps && in.device == EstimateDevice::Cpu) return (4 + c) * BTC + f * BT;
                    return (4 + normed * f + c) * BTC + f * BT;
                case ForwardMode::AutocastOverFp32:  // the norm's input and weight are float32: fused on CPU
                    if (in.fusedCpuOps && in.device == EstimateDevice::Cpu) return (4 + k * c) * BTC + f * BT;
                    return (4 + normed * f + k * c) * BTC + f * BT;
                default:
                    return (f + normed * c + c) * BTC + f * BT;
            }
        };
        const int64_t rope = fp32 ? 0 : 4 * T * D * c;
        perLayer = norm(3) + attention + norm(2) + (fusedCuda ? 3 : 4) * c * BTI + rope;
        outside += norm(1) + (fp32 ? 2 * T * D * 4 : 0);  // the final norm; float32 cos/sin, kept once
        blockInput = (fp32 || mode == ForwardMode::AutocastOverFp32 ? 4 : 2) * BTC;
        if (s.family) perLayer += familyBlockTerms(s, in, attention, {norm(3), norm(2)}, norm(1), outside);
        if (s.hiddenDropout > 0) perLayer += 2 * dropBytes * BTC;  // Phi-3's resid_pdrop after attention and MLP
        if (s.attentionSinks) perLayer += sinkAttentionBytes(s, in, c) - attention;
        if (s.experts > 0) {  // the sparse layers' experts instead of the MLP; the largest block is the per-layer term
            const int64_t dense = perLayer,
                          sparse = perLayer - (fusedCuda ? 3 : 4) * c * BTI + expertBlockBytes(s, BT, c);
            perLayer = std::max(dense, sparse);
            sparseLayerTotal = s.sparseLayers * sparse + (L - s.sparseLayers) * dense;
        }
    }
    if (in.attentionBias || (s.slidingWindow > 0 && s.slidingWindow < T))
        outside += c * B * T * T;  // the additive (B, 1, T, T) bias, shared by the layers
    d.perLayer = perLayer;
    d.blockInput = blockInput;
    d.outside = outside;
    // One block's backward: the gradients in flight of its MLP (three of (B, T, I); a mixture of experts': of its
    // rows, (B x T x k, expert intermediate)) and of the residual stream and
    // the norm (three of (B, T, C) in float32); with checkpointing the block's recomputed forward comes first.
    const int64_t expertRows = s.experts > 0 ? BT * s.expertsPerToken * s.expertIntermediate : 0;
    const int64_t working = 3 * c * std::max(BTI, expertRows) + 3 * 4 * BTC;
    if (in.checkpointing) {
        d.stored = L * blockInput + outside;
        d.backwardWorking = perLayer + working;
    } else {
        d.stored = (sparseLayerTotal >= 0 ? sparseLayerTotal : L * perLayer) + outside;
        d.backwardWorking = working;
    }
    return d;
}

}  // namespace fts
