// The SwiGLU experts of a mixture of experts as one autograd node over rows already grouped by expert: per expert
// two matrix products into slices of shared buffers (gate_up, then down), the activation once over all rows, and
// the backward written out the same way. Where a LibTorch op per expert (and an autograd node per op) costs more than
// the products themselves (many narrow experts: Qwen3-30B-A3B's 128), this is the difference; the numbers are those
// of the per-expert linear layers (the same products, in the same dtype).
#pragma once
#include <torch/torch.h>

#include <vector>

namespace fts {

// rows (R, hidden), the rows of expert e being the counts[e] after those of experts 0..e-1; gateUp (experts,
// 2 x intermediate, hidden) with each expert's gate rows then its up rows; down (experts, hidden, intermediate).
// Returns (R, hidden): down_e(silu(gate_e x) * up_e x) for each row x of expert e. Differentiable in rows, gateUp
// and down. Under autocast the products run in the autocast dtype, as linear layers' would.
torch::Tensor groupedSwiglu(const torch::Tensor& rows, const std::vector<int64_t>& counts, const torch::Tensor& gateUp,
                            const torch::Tensor& down);

}  // namespace fts
