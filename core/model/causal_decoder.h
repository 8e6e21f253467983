// The decoder-only causal LMs (GPT-2, Llama, Mistral, Qwen2) as one base: every forward mode (padded, packed,
// cached) is the architecture's run() with different inputs, and the loss is the shifted causal cross-entropy
// (causalLmLoss). An architecture implements run(); the modes' contracts are LanguageModel's and CachedDecoder's.
#pragma once
#include <torch/torch.h>

#include "core/model/cached_decoder.h"
#include "core/model/hf_model.h"

namespace fts {

class CausalDecoderModel : public HfModel, public CachedDecoder {
public:
    torch::Tensor forward(const torch::Tensor& inputIds, const torch::Tensor& attentionMask) final {
        return run(inputIds, attentionMask, torch::Tensor(), nullptr);
    }
    bool supportsPacking() const final { return true; }
    torch::Tensor forwardPacked(const torch::Tensor& inputIds, const torch::Tensor& positionIds) final {
        return run(inputIds, torch::Tensor(), positionIds, nullptr);
    }
    torch::Tensor forwardCached(const torch::Tensor& inputIds, const torch::Tensor& positionIds,
                                const torch::Tensor& keyMask, KvCache& cache) final {
        return run(inputIds, keyMask, positionIds, &cache);
    }
    // With a mixture of experts' load-balancing loss of the last forward added (weighted), as transformers' loss.
    torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const final {
        torch::Tensor l = causalLmLoss(logits, labels.to(logits.device()));
        if (const auto routing = lastRouting(); routing && routing->auxLoss.defined())
            l = l + routing->auxLossCoef * routing->auxLoss.to(l.device());
        return l;
    }

protected:
    // positionIds defined: a packed forward (no attention mask; block-diagonal causal attention at the given
    // positions). Undefined: positions 0..T-1 with the optional padding mask. cache set: an incremental forward
    // (cached_decoder.h): attentionMask is the key mask over cache + new tokens, positionIds the new tokens'
    // positions, and the result is the last position's logits (B, V).
    virtual torch::Tensor run(const torch::Tensor& inputIds, const torch::Tensor& attentionMask,
                              const torch::Tensor& positionIds, KvCache* cache) = 0;
};

}  // namespace fts
