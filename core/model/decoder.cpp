// The decoder families as transformers computes them (see decoder.h): embed_tokens (times sqrt(hidden) for Gemma),
// blocks laid out by the family (pre-norm, Gemma's sandwich, OLMo 2's post-norm) around GQA attention with RoPE
// (partial, per-layer bases, LongRoPE), optional q/k norms, windows and soft-capping, and a gated MLP; final norm,
// lm_head (tied or not, optionally soft-capped). Shapes: B batch, T tokens, C hidden, H query heads, K kv heads,
// D head_dim, I intermediate.
#include "core/model/decoder.h"

#include <array>
#include <cmath>
#include <map>

#include "core/model/attention_bias.h"
#include "core/model/block_ops.h"
#include "core/model/causal_decoder.h"
#include "core/model/dense.h"
#include "core/model/moe.h"
#include "core/model/router_aux.h"
#include "core/model/rope.h"
#include "core/util/error.h"

namespace fts {

namespace {

// The family's RMSNorm (decoder_family.h: NormKind) over the last dimension.
torch::Tensor familyNorm(NormKind kind, const torch::Tensor& x, const torch::Tensor& w, double eps) {
    if (kind == NormKind::Rms) return rmsNorm(x, w, eps);
    const torch::Tensor xf = x.to(torch::kFloat32);
    const torch::Tensor normed = xf * torch::rsqrt(xf.pow(2).mean(-1, true) + eps);
    if (kind == NormKind::RmsOnePlus) return (normed * (1.0 + w.to(torch::kFloat32))).to(x.scalar_type());
    return (w * normed).to(x.scalar_type());  // OLMo 2: the weight's product in float32, then the cast
}

// RoPE on the first cos.size(-1) features of each head; the rest pass through (partial rotary).
torch::Tensor rotate(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
    const int64_t rd = cos.size(-1), D = x.size(-1);
    if (rd == D) return applyRope(x, cos, sin);
    return torch::cat({applyRope(x.narrow(-1, 0, rd), cos, sin), x.narrow(-1, rd, D - rd)}, -1);
}

// Eager attention as transformers' eager_attention_forward of the families that need one: tanh soft-capping of the
// scores (Gemma 2: scores / cap, tanh, * cap, then the mask; softmax in float32 cast back), or attention sinks
// (gpt-oss: a learned logit per head joins each row, the row's maximum is subtracted, the softmax runs in the scores'
// dtype and the sink's column is dropped). q (B, H, Tq, D), k, v (B, K, Tk, D); bias (B, 1, Tq, Tk) or undefined for
// plain causal attention (queries at the end of the keys); cap 0: none; sinks (H) or undefined.
torch::Tensor eagerAttention(const torch::Tensor& q, const torch::Tensor& kIn, const torch::Tensor& vIn,
                             const torch::Tensor& bias, double scale, double cap, const torch::Tensor& sinks,
                             double dropout) {
    const int64_t H = q.size(1), K = kIn.size(1), Tq = q.size(2), Tk = kIn.size(2);
    const torch::Tensor k = K == H ? kIn : kIn.repeat_interleave(H / K, 1);
    const torch::Tensor v = K == H ? vIn : vIn.repeat_interleave(H / K, 1);
    torch::Tensor w = torch::matmul(q, k.transpose(2, 3)) * scale;
    if (cap > 0) w = torch::tanh(w / cap) * cap;
    if (bias.defined()) {
        w = w + bias.to(w.scalar_type());
    } else {
        const auto opts = torch::TensorOptions().dtype(torch::kInt64).device(q.device());
        const torch::Tensor qi = torch::arange(Tq, opts).view({Tq, 1}) + (Tk - Tq), ki = torch::arange(Tk, opts);
        w = w.masked_fill(ki.view({1, Tk}).gt(qi).view({1, 1, Tq, Tk}), lowestOf(w.scalar_type()));
    }
    if (sinks.defined()) {
        const int64_t B = q.size(0);
        const torch::Tensor combined =
            torch::cat({w, sinks.to(w.scalar_type()).view({1, H, 1, 1}).expand({B, H, Tq, 1})}, -1);
        w = torch::softmax(combined - std::get<0>(combined.max(-1, true)), -1).narrow(-1, 0, Tk);
    } else {
        w = torch::softmax(w, -1, torch::kFloat32);
    }
    w = w.to(q.scalar_type());
    if (dropout > 0) w = torch::dropout(w, dropout, true);
    return torch::matmul(w, v);
}

torch::Tensor softcap(const torch::Tensor& x, double cap) { return cap > 0 ? torch::tanh(x / cap) * cap : x; }

class DecoderForCausalLM final : public CausalDecoderModel {
public:
    DecoderForCausalLM(const HfConfig& config, const ModelLoadOptions& opts)
        : m_arch(resolveDecoderArch(config)), m_family(*m_arch.family) {
        if (opts.disableDropout) m_arch.attentionDropout = m_arch.residualDropout = 0.0;
        m_activation = parseActivation(config, m_family.activationKey, std::string(m_family.activation));
        if (m_arch.moe.experts > 0 && m_activation != Activation::Silu)
            config.fail(m_family.activationKey, "only \"silu\" experts are supported for " +
                                                    std::string(m_family.modelType) + " (SwiGLU experts)");
        m_info.modelType = std::string(m_family.modelType);
        m_info.architecture = std::string(m_family.architecture);
        m_info.task = ModelTask::CausalLM;
        m_info.vocabSize = m_arch.vocabSize;
        m_info.hiddenSize = m_arch.hiddenSize;
        m_info.numLayers = m_arch.numLayers;
        m_info.numHeads = m_arch.numHeads;
        m_info.maxPositions = m_arch.maxPositions;
        m_info.tiedEmbeddings = m_arch.tieWordEmbeddings;
        m_info.hfConfig = languageModelConfig(config).json();  // a vision-language wrapper exports its LM alone
        for (const auto& n : m_arch.notes) m_info.loadWarnings.push_back(config.source() + ": " + n);
        declareParameters();
        for (size_t i = 0; i + 1 < m_blockBase.size(); ++i)
            m_blockRanges.emplace_back(m_blockBase[i], m_blockBase[i + 1] - m_blockBase[i]);
    }

    bool isIgnoredCheckpointTensor(const std::string& name) const override {
        if (name.ends_with(".rotary_emb.inv_freq")) return true;  // buffer some older checkpoints saved
        for (const std::string& p : m_arch.leftOutPrefixes)       // the vision tower (said once, in loadWarnings)
            if (name.starts_with(p)) return true;
        if (!m_arch.languageModelPrefixes.empty() && name == "language_model.lm_head.weight")
            return m_arch.tieWordEmbeddings;
        return m_arch.tieWordEmbeddings && name == "lm_head.weight";
    }

    std::optional<RouterStats> lastRouting() const override { return m_lastRouting; }

    int64_t cacheRecomputeLength() const override {
        for (const RopeConfig& r : m_arch.ropes)
            if (r.type == "longrope") return r.originalMaxPositions;
        return 0;
    }

private:
    static constexpr size_t kRoles = size_t(TensorRole::Count);
    static constexpr int kNone = -1;

    // CausalDecoderModel::run; the positions rotate q and k (RoPE).
    torch::Tensor run(const torch::Tensor& inputIdsIn, const torch::Tensor& attentionMaskIn,
                      const torch::Tensor& positionIdsIn, KvCache* cache) override {
        const torch::Tensor& embed = m_params[0].tensor;
        const auto device = embed.device();
        const std::string arch = m_info.architecture;
        if (inputIdsIn.dim() != 2)
            throw Error(arch + " forward: input_ids must be (batch, seq), found " + c10::str(inputIdsIn.sizes()));
        const torch::Tensor inputIds = inputIdsIn.to(device, torch::kInt64);
        const int64_t B = inputIds.size(0), T = inputIds.size(1);
        torch::Tensor mask = attentionMaskIn.defined() ? attentionMaskIn.to(device) : attentionMaskIn;
        const int64_t past = cache ? cache->length() : 0;
        if (mask.defined() && (mask.dim() != 2 || mask.size(0) != B || mask.size(1) != past + T))
            throw Error(arch + " forward: attention_mask must have shape " + c10::str(inputIds.sizes()) + ", found " +
                        c10::str(mask.sizes()));
        const auto dtype = computeDtype(embed);
        const bool packed = positionIdsIn.defined();  // or cached: each token at its own position
        const torch::Tensor positionIds =
            packed ? checkedPositionIds(positionIdsIn, inputIds, 0, arch + " forward") : torch::Tensor();
        if (cache && !mask.defined()) throw Error(arch + " cached forward: the key mask is required");
        // One additive bias per distinct window size (0 = plain causal): undefined means is_causal.
        auto biasFor = [&](int64_t w) -> torch::Tensor {
            if (cache) return causalAttentionBias(mask, past, T, w, dtype);
            if (packed) return packedCausalBias(positionIds, w, dtype);
            if (plainCausalIsExact(mask, T, w)) return {};
            return causalAttentionBias(
                mask.defined() ? mask : torch::ones({B, T}, torch::TensorOptions().dtype(torch::kInt64).device(device)),
                0, T, w, dtype);
        };
        std::map<int64_t, torch::Tensor> biases;
        for (int64_t w : m_arch.window)
            if (!biases.count(w)) biases[w] = biasFor(w);
        // RoPE tables up to the largest position (transformers' dynamic and long rope also key on max(position_ids)
        // + 1), one per distinct rotary parameter set.
        const int64_t ropeLength = packed && T > 0 ? positionIds.max().item<int64_t>() + 1 : T;
        std::vector<std::pair<torch::Tensor, torch::Tensor>> ropes;
        for (const RopeConfig& r : m_arch.ropes) {
            auto [cos, sin] = ropeCosSin(r, ropeLength, device);
            if (packed) {  // (B, 1, T, rd): each token's own position, broadcast over the heads
                cos = cos.index_select(0, positionIds.reshape({-1})).view({B, 1, T, -1});
                sin = sin.index_select(0, positionIds.reshape({-1})).view({B, 1, T, -1});
            }
            ropes.emplace_back(cos, sin);
        }
        const bool train = isTraining();
        // A mixture of experts' load-balancing loss for this forward (output_router_logits; not while generating).
        std::shared_ptr<RouterAuxLoss> aux;
        if (m_arch.moe.experts > 0 && m_arch.moe.routerLogits && !cache)
            aux = std::make_shared<RouterAuxLoss>(m_arch.moe.experts, int(m_arch.moe.topK), m_arch.numLayers,
                                                  mask.defined() ? mask.reshape({-1}) : torch::Tensor());

        torch::Tensor h = m_arch.padTokenId ? torch::embedding(embed, inputIds, *m_arch.padTokenId)
                                            : torch::embedding(embed, inputIds);
        if (m_arch.embeddingMultiplier != 1.0) h = h * m_arch.embeddingMultiplier;  // Granite
        if (m_arch.embedScale > 0)  // Gemma: the scale rounded to the embedding's dtype first
            h = h * torch::scalar_tensor(m_arch.embedScale, torch::TensorOptions().dtype(torch::kFloat32))
                        .to(h.scalar_type())
                        .to(device);
        for (int64_t i = 0; i < m_arch.numLayers; ++i) {
            const torch::Tensor layerBias = biases.at(m_arch.window[size_t(i)]);
            const auto& [cos, sin] = ropes[size_t(m_arch.layerRope[size_t(i)])];
            // Captures by value: with activation checkpointing the block runs again during backward.
            auto blockFn = [this, i, B, T, cos, sin, layerBias, train, cache, aux](const torch::Tensor& hIn) {
                return block(size_t(i), hIn, B, T, cos, sin, layerBias, train, cache, aux.get());
            };
            const size_t first = m_blockBase[size_t(i)], count = m_blockBase[size_t(i) + 1] - first;
            h = cache ? blockFn(h) : runBlock(blockFn, h, first, count);
        }
        if (aux) m_lastRouting = RouterStats{aux->finish(h), m_arch.moe.auxLossCoef, aux->expertCounts()};
        if (cache) h = h.narrow(1, T - 1, 1);  // generation needs the last position's logits only
        const size_t f = m_blockBase.back();   // model.norm.weight, [lm_head.weight]
        h = familyNorm(m_family.norm, h, m_params[f].tensor, m_arch.normEps);
        if (m_arch.logitsScaling != 1.0)
            h = h / m_arch.logitsScaling;  // Granite: logits / scaling, taken before the head
        const double cap = m_arch.finalSoftcap;
        if (cache)  // generation: always logits
            return softcap(m_arch.tieWordEmbeddings ? denseLinear(h, embed) : linearAt(f + 1, h, torch::Tensor()), cap)
                .squeeze(1);
        if (cap > 0) {  // the chunked loss cannot cap what it never materialises: full logits
            const bool defer = m_deferHead;
            m_deferHead = false;
            torch::Tensor logits = m_arch.tieWordEmbeddings
                                       ? outputLayer(std::nullopt, h, embed, torch::Tensor())
                                       : outputLayer(f + 1, h, m_params[f + 1].tensor, torch::Tensor());
            m_deferHead = defer;
            m_lastHead.reset();
            return softcap(logits, cap);
        }
        return m_arch.tieWordEmbeddings ? outputLayer(std::nullopt, h, embed, torch::Tensor())
                                        : outputLayer(f + 1, h, m_params[f + 1].tensor, torch::Tensor());  // (B, T, V)
    }

    // One block: attention then MLP, with the family's norms and residuals.
    torch::Tensor block(size_t i, const torch::Tensor& hIn, int64_t B, int64_t T, const torch::Tensor& cos,
                        const torch::Tensor& sin, const torch::Tensor& layerBias, bool train, KvCache* cache,
                        RouterAuxLoss* aux) const {
        const size_t base = m_blockBase[i];
        const int64_t H = m_arch.numHeads, K = m_arch.numKvHeads, D = m_arch.headDim, I = m_arch.intermediateSize;
        auto weightAt = [&](TensorRole r) { return base + size_t(m_weightSlot[i][size_t(r)]); };
        auto has = [&](TensorRole r) { return m_weightSlot[i][size_t(r)] != kNone; };
        auto biasOf = [&](TensorRole r) {
            const int s = m_biasSlot[i][size_t(r)];
            return s == kNone ? torch::Tensor() : m_params[base + size_t(s)].tensor;
        };
        auto norm = [&](TensorRole r, const torch::Tensor& x) {
            return familyNorm(m_family.norm, x, m_params[weightAt(r)].tensor, m_arch.normEps);
        };
        auto proj = [&](TensorRole r, const torch::Tensor& x) { return linearAt(weightAt(r), x, biasOf(r)); };
        const double residualDropout = train ? m_arch.residualDropout : 0.0;
        const BlockLayout layout = m_family.layout;

        torch::Tensor h = hIn;
        // ---- attention ----
        torch::Tensor x = layout == BlockLayout::PostNorm ? h : norm(TensorRole::InputNorm, h);
        torch::Tensor q, k, v;
        if (has(TensorRole::QkvProj)) {  // Phi-3: rows q | k | v
            const torch::Tensor qkv = proj(TensorRole::QkvProj, x);
            q = qkv.narrow(-1, 0, H * D);
            k = qkv.narrow(-1, H * D, K * D);
            v = qkv.narrow(-1, (H + K) * D, K * D);
        } else {
            q = proj(TensorRole::QProj, x);
            k = proj(TensorRole::KProj, x);
            v = proj(TensorRole::VProj, x);
        }
        if (m_family.qkNorm == QkNorm::Whole) {  // OLMo 2: over the whole projection
            q = norm(TensorRole::QNorm, q);
            k = norm(TensorRole::KNorm, k);
        }
        q = q.reshape({B, T, H, D});
        k = k.reshape({B, T, K, D});
        v = v.reshape({B, T, K, D}).transpose(1, 2);
        if (m_family.qkNorm == QkNorm::PerHead) {  // Qwen3, Gemma 3: over each head's D
            q = norm(TensorRole::QNorm, q);
            k = norm(TensorRole::KNorm, k);
        }
        q = q.transpose(1, 2);        // (B, H, T, D)
        k = k.transpose(1, 2);        // (B, K, T, D)
        if (m_arch.layerRotary[i]) {  // SmolLM3's no-RoPE layers attend by content alone
            q = rotate(q, cos, sin);
            k = rotate(k, cos, sin);
        }
        if (cache) appendToCache(*cache, i, k, v);
        const double attnDropout = train ? m_arch.attentionDropout : 0.0;
        const torch::Tensor sinks =
            has(TensorRole::Sinks) ? m_params[weightAt(TensorRole::Sinks)].tensor : torch::Tensor();
        torch::Tensor a =
            m_arch.attnSoftcap > 0 || sinks.defined()
                ? eagerAttention(q, k, v, layerBias, m_arch.attentionScale, m_arch.attnSoftcap, sinks, attnDropout)
                : causalSelfAttention(q, k, v, layerBias, attnDropout, m_arch.attentionScale, false);
        a = proj(TensorRole::OProj, a.transpose(1, 2).reshape({B, T, H * D}));
        if (layout != BlockLayout::PreNorm) a = norm(TensorRole::PostAttentionNorm, a);
        if (residualDropout > 0) a = torch::dropout(a, residualDropout, true);
        if (m_arch.residualMultiplier != 1.0) a = a * m_arch.residualMultiplier;  // Granite
        h = h + a;
        // ---- MLP ----
        x = layout == BlockLayout::PreNorm    ? norm(TensorRole::PostAttentionNorm, h)
            : layout == BlockLayout::Sandwich ? norm(TensorRole::PreFeedforwardNorm, h)
                                              : h;
        torch::Tensor out;
        if (has(TensorRole::Router)) {  // a mixture of experts
            const ExpertWeights w{adaptedTensor(weightAt(TensorRole::Router)),        biasOf(TensorRole::Router),
                                  adaptedTensor(weightAt(TensorRole::ExpertsGateUp)), biasOf(TensorRole::ExpertsGateUp),
                                  adaptedTensor(weightAt(TensorRole::ExpertsDown)),   biasOf(TensorRole::ExpertsDown)};
            out = experts(x, w, train, aux, int64_t(i));
        } else {
            torch::Tensor gate, up;
            if (has(TensorRole::GateUpProj)) {  // Phi-3: rows gate | up
                const torch::Tensor gu = proj(TensorRole::GateUpProj, x);
                gate = gu.narrow(-1, 0, I);
                up = gu.narrow(-1, I, I);
            } else {
                gate = proj(TensorRole::GateProj, x);
                up = proj(TensorRole::UpProj, x);
            }
            const torch::Tensor m = m_activation == Activation::Silu ? siluMul(gate, up)  // fused on CUDA
                                                                     : applyActivation(m_activation, gate) * up;
            out = proj(TensorRole::DownProj, m);
        }
        if (layout != BlockLayout::PreNorm) out = norm(TensorRole::PostFeedforwardNorm, out);
        if (residualDropout > 0) out = torch::dropout(out, residualDropout, true);
        if (m_arch.residualMultiplier != 1.0) out = out * m_arch.residualMultiplier;
        return h + out;
    }

    // A sparse layer's parameters (biases undefined where the family has none).
    struct ExpertWeights {
        torch::Tensor router, routerBias, gateUp, gateUpBias, down, downBias;
    };

    // A sparse layer's feed-forward on x (B, T, C): the router's top k, the experts grouped, their weighted sum.
    torch::Tensor experts(const torch::Tensor& x, const ExpertWeights& w, bool train, RouterAuxLoss* aux,
                          int64_t layer) const {
        const MoeArch& moe = m_arch.moe;
        torch::Tensor flat = x.reshape({-1, x.size(-1)});
        if (train && moe.jitterNoise > 0)  // Mixtral: the router and the experts see the jittered states
            flat = flat * torch::empty_like(flat).uniform_(1.0 - moe.jitterNoise, 1.0 + moe.jitterNoise);
        torch::Tensor out;
        Routing routing;
        if (m_family.moe == MoeKind::GptOss) {
            routing = routeTopKSoftmax(flat, w.router, w.routerBias, int(moe.topK));
            out = groupedClampedSwigluExperts(flat, routing, w.gateUp, w.gateUpBias, w.down, w.downBias,
                                              ClampedSwiglu{moe.swigluAlpha, moe.swigluLimit});
        } else {
            RouterOptions options;
            options.topK = int(moe.topK);
            options.normalizeTopK = moe.normalizeTopK;
            options.weightsInLogitsDtype = m_family.moe == MoeKind::Qwen3Moe;
            routing = routeSoftmaxTopK(flat, w.router, options);
            out = groupedSwigluExperts(flat, routing, w.gateUp, w.down);
        }
        out = out.view(x.sizes());
        return aux ? aux->attach(out, routing.logits, layer) : out;
    }

    void declareParameters() {
        int currentLayer = -1;
        for (const ArchTensor& t : decoderTensors(m_arch)) {
            if (t.layer != currentLayer && t.layer >= 0) {
                m_blockBase.push_back(m_specs.size());
                currentLayer = t.layer;
                m_weightSlot.emplace_back().fill(kNone);
                m_biasSlot.emplace_back().fill(kNone);
            }
            if (t.layer < 0 && currentLayer >= 0) {  // past the blocks: model.norm, lm_head
                m_blockBase.push_back(m_specs.size());
                currentLayer = -2;
            }
            if (t.layer >= 0) {  // a role's offset in its block (Qwen3-MoE's dense and sparse blocks differ)
                auto& slots = t.bias ? m_biasSlot.back() : m_weightSlot.back();
                slots[size_t(t.role)] = int(m_specs.size() - m_blockBase.back());
            }
            ParamSpec s;
            s.name = t.name;
            s.shape = t.shape;
            s.layer = t.linear ? LayerKind::Linear : LayerKind::Other;
            s.outputHead = t.role == TensorRole::LmHead;
            s.init = t.init == TensorInit::Normal  ? ParamInit::Normal
                     : t.init == TensorInit::Zeros ? ParamInit::Zeros
                                                   : ParamInit::Ones;
            s.stddev = s.init == ParamInit::Normal ? m_arch.initializerRange : 0.0;
            s.shapeFrom = t.shapeFrom;
            s.pieces = t.pieces;
            s.expertTensor = !t.bias && (t.role == TensorRole::ExpertsGateUp || t.role == TensorRole::ExpertsDown);
            s.expertsTransposed = s.expertTensor && m_family.moe == MoeKind::GptOss;
            s.routerWeight = !t.bias && t.role == TensorRole::Router;
            s.mxfp4 = t.mxfp4;
            if (t.name.starts_with("model.")) {
                s.aliases = {t.name.substr(6)};  // base-model checkpoints
                for (const std::string& p : m_arch.languageModelPrefixes) s.aliases.push_back(p + t.name.substr(6));
            } else if (!m_arch.languageModelPrefixes.empty()) {
                s.aliases = {"language_model." + t.name};  // an untied lm_head inside the wrapper
            }
            if (!t.alias.empty()) s.aliases.push_back(t.alias);
            m_specs.push_back(std::move(s));
        }
        if (m_arch.numLayers == 0 || m_blockBase.size() != size_t(m_arch.numLayers) + 1)
            throw Error(m_info.architecture + ": the tensor list has no final norm after its blocks");
    }

    DecoderArch m_arch;
    const DecoderFamily& m_family;
    Activation m_activation = Activation::Silu;
    std::vector<size_t> m_blockBase;  // index of each block's first parameter; last entry = model.norm.weight
    std::vector<std::array<int, kRoles>> m_weightSlot, m_biasSlot;  // per block: each role's weight / bias offset
    std::optional<RouterStats> m_lastRouting;                       // a mixture of experts' last forward
};

}  // namespace

std::unique_ptr<HfModel> buildDecoder(const HfConfig& config, const ModelLoadOptions& opts) {
    return std::make_unique<DecoderForCausalLM>(config, opts);
}

}  // namespace fts
