// The additive attention biases the models build (0 where a query may see a key, dtype-min where it may not), one
// function per masking rule transformers applies: causal with padding keys and a sliding window (also over a KV
// cache), packed samples, and GPT-2's two-term eager mask. Undefined where plain causal attention (is_causal) is
// exact. LibTorch header: include it from core/model sources.
#pragma once
#include <torch/torch.h>

#include <cstdint>

namespace fts {

// Additive (B, 1, T, L + T) bias of T queries after L cached keys: query i (key index L + i) may see key j when
// j <= L + i, keyMask[b][j] != 0 and, with a window w > 0, L + i - j < w; 0 where allowed, dtype's lowest elsewhere
// (a query that sees no key attends uniformly, as transformers' eager mask makes a fully padded row do). keyMask is
// (B, L + T).
torch::Tensor causalAttentionBias(const torch::Tensor& keyMask, int64_t pastLength, int64_t queryLength, int64_t window,
                                  torch::ScalarType dtype);
// True when plain causal attention is exact for T queries without a cache: no padding key, and no window in reach.
bool plainCausalIsExact(const torch::Tensor& keyMask, int64_t queryLength, int64_t window);

// Additive attention bias (B, 1, T, T) in `dtype` reproducing transformers' eager masking exactly: 0 where a
// query may attend, dtype-min at future keys and at padding keys (-inf where both), so that rows whose keys
// are all padding behave as in transformers instead of turning into NaN. Undefined when attentionMask is
// undefined or all ones (then plain causal attention applies).
torch::Tensor causalPaddingBias(const torch::Tensor& attentionMask, int64_t seqLen, torch::ScalarType dtype);

// Additive attention bias (B, 1, T, T) in `dtype` for packed rows: 0 where query q may see key k (same sample,
// k <= q, and q - k < window when window > 0), dtype-min elsewhere. Samples are split as transformers 5's
// find_packed_sequence_indices does: a new sample wherever position_ids[t] != position_ids[t-1] + 1.
torch::Tensor packedCausalBias(const torch::Tensor& positionIds, int64_t window, torch::ScalarType dtype);

}  // namespace fts
