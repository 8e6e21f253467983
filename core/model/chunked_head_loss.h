// The output projection and token cross-entropy fused over chunks of rows (model.chunked_loss): logits =
// hidden @ weight^T + bias are made, used and dropped a block of tokens at a time, in forward and again in
// backward, so the (tokens x vocab) logits never exist at once. Same loss and gradients as the projection
// followed by tokenCrossEntropy (up to float summation order).
#pragma once
#include <torch/torch.h>

#include <cstdint>

#include "core/model/token_cross_entropy.h"

namespace fts {

// hidden (..., C) the rows the output layer reads; weight (V, C); bias (V) or undefined; targets (...) class ids,
// kIgnoreTarget where not counted. The projection runs in `computeDtype` (the dtype the unfused linear would use:
// the autocast dtype under autocast), the loss in float32 as tokenCrossEntropy does. chunkRows <= 0: chosen
// from the vocabulary (chunkRowsFor). Throws fts::Error on mismatched shapes or a target outside [0, V).
torch::Tensor chunkedHeadCrossEntropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                      const torch::Tensor& bias, const torch::Tensor& targets,
                                      TokenLossReduction reduction, torch::ScalarType computeDtype,
                                      int64_t chunkRows = 0);

// Rows per chunk: the float32 logits of one chunk stay within kChunkedLossBytes (CUDA) / kChunkedLossCpuBytes.
int64_t chunkRowsFor(int64_t vocab, bool cuda);
inline constexpr int64_t kChunkedLossBytes = int64_t(256) << 20;
inline constexpr int64_t kChunkedLossCpuBytes = int64_t(32) << 20;

}  // namespace fts
