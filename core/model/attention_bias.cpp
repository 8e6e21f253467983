// The attention biases (see attention_bias.h).
#include "core/model/attention_bias.h"

#include "core/model/hf_model.h"
#include "core/util/error.h"

namespace fts {

torch::Tensor causalAttentionBias(const torch::Tensor& keyMask, int64_t pastLength, int64_t queryLength, int64_t window,
                                  torch::ScalarType dtype) {
    const int64_t L = pastLength, T = queryLength, S = L + T;
    if (keyMask.dim() != 2 || keyMask.size(1) != S)
        throw Error("attention: the key mask must have shape (batch, " + std::to_string(S) + "), found " +
                    c10::str(keyMask.sizes()));
    const int64_t B = keyMask.size(0);
    const auto device = keyMask.device();
    const auto idx = torch::arange(S, torch::TensorOptions().dtype(torch::kInt64).device(device));
    const auto query = idx.narrow(0, L, T).view({T, 1});  // cache index of each query
    torch::Tensor allowed = idx.view({1, S}).le(query);   // (T, S) causal in cache order
    if (window > 0) allowed = allowed.logical_and(query - idx.view({1, S}) < window);
    allowed = allowed.view({1, 1, T, S}).logical_and(keyMask.ne(0).view({B, 1, 1, S}));
    return torch::zeros({B, 1, T, S}, torch::TensorOptions().dtype(dtype).device(device))
        .masked_fill(allowed.logical_not(), lowestOf(dtype));
}

bool plainCausalIsExact(const torch::Tensor& keyMask, int64_t queryLength, int64_t window) {
    const bool padding = keyMask.defined() && !keyMask.ne(0).all().item<bool>();
    return !padding && !(window > 0 && queryLength > window);
}

torch::Tensor causalPaddingBias(const torch::Tensor& attentionMask, int64_t seqLen, torch::ScalarType dtype) {
    if (!attentionMask.defined()) return {};
    if (attentionMask.dim() != 2 || attentionMask.size(1) != seqLen)
        throw Error("attention_mask must have shape (batch, " + std::to_string(seqLen) + "), found " +
                    c10::str(attentionMask.sizes()));
    const torch::Tensor keep = attentionMask.ne(0);  // (B, T) true = token
    if (keep.all().item<bool>()) return {};
    const int64_t B = attentionMask.size(0), T = seqLen;
    const auto acc = dtype == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
    const double lo = lowestOf(dtype);
    const auto opts = torch::TensorOptions().dtype(acc).device(attentionMask.device());
    const auto future = torch::ones({T, T}, opts.dtype(torch::kBool)).triu(1).view({1, 1, T, T});
    // Two terms as transformers adds them: where(causal, s, min) + (1 - mask) * min.  Both -> -inf in acc.
    auto causalTerm = torch::zeros({1, 1, T, T}, opts).masked_fill(future, lo);
    auto paddingTerm = torch::zeros({B, 1, 1, T}, opts).masked_fill(keep.logical_not().view({B, 1, 1, T}), lo);
    return (causalTerm + paddingTerm).to(dtype);  // (B, 1, T, T)
}

torch::Tensor packedCausalBias(const torch::Tensor& positionIds, int64_t window, torch::ScalarType dtype) {
    const int64_t B = positionIds.size(0), T = positionIds.size(1);
    // Sample index of every token: the cumulative count of breaks (a position that is not the previous + 1).
    const torch::Tensor prev = torch::cat({positionIds.narrow(1, 0, 1) - 1, positionIds.narrow(1, 0, T - 1)}, 1);
    const torch::Tensor sample = positionIds.sub(prev).ne(1).cumsum(1);  // (B, T)
    const auto idx = torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(positionIds.device()));
    torch::Tensor allowed = idx.view({T, 1}).ge(idx.view({1, T})).view({1, 1, T, T});  // k <= q
    if (window > 0) allowed = allowed.logical_and(idx.view({1, 1, 1, T}).gt(idx.view({1, 1, T, 1}) - window));
    allowed = allowed.logical_and(sample.view({B, 1, T, 1}).eq(sample.view({B, 1, 1, T})));
    return torch::zeros({B, 1, T, T}, torch::TensorOptions().dtype(dtype).device(positionIds.device()))
        .masked_fill(allowed.logical_not(), lowestOf(dtype));
}

}  // namespace fts
