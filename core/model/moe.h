// The sparse mixture-of-experts feed-forward of Mixtral, Qwen3-MoE and gpt-oss: a router picks each token's top-k
// experts,
// and the tokens are grouped by expert so that each expert multiplies its own rows once (one product per expert
// over a contiguous slice of the rows sorted by expert: a grouped GEMM, not a masked pass over every token per
// expert), forward and backward (LibTorch ops, so autograd's backward is grouped the same way). Capacity is
// unlimited, as in transformers: no token is dropped. Also the load-balancing loss transformers adds when
// `output_router_logits` is set (Switch Transformer's, weighted by `router_aux_loss_coef` by the caller).
#pragma once
#include <vector>

#include "core/model/language_model.h"

namespace fts {

// How the router turns its logits into each token's experts and their weights.
struct RouterOptions {
    int topK = 2;               // num_experts_per_tok
    bool normalizeTopK = true;  // the k probabilities rescaled to sum to 1 (Mixtral always; Qwen3-MoE: norm_topk_prob)
    bool weightsInLogitsDtype = false;  // Qwen3-MoE casts the weights back to the logits' dtype; Mixtral keeps float32
};

struct Routing {
    torch::Tensor logits;   // (tokens, experts), in the hidden states' dtype: the load-balancing loss reads them
    torch::Tensor weights;  // (tokens, topK): softmax over all experts (float32), then the top k
    torch::Tensor experts;  // (tokens, topK) int64, in descending probability (torch.topk's order)
};

// The router's choice for hidden (tokens, hidden) with weight (experts, hidden): softmax over every expert's logit,
// then the top k (and their renormalisation), as MixtralTopKRouter and Qwen3MoeTopKRouter compute it.
Routing routeSoftmaxTopK(const torch::Tensor& hidden, const torch::Tensor& routerWeight, const RouterOptions& options);

// gpt-oss's router: the top k of the logits (weight and bias), then a softmax over those k, in the logits' dtype
// (GptOssTopKRouter).
Routing routeTopKSoftmax(const torch::Tensor& hidden, const torch::Tensor& routerWeight,
                         const torch::Tensor& routerBias, int topK);

// The experts' SwiGLU MLPs in transformers' fused layout: gateUp (experts, 2 x intermediate, hidden) holds each
// expert's gate rows then its up rows, down (experts, hidden, intermediate). Returns (tokens, hidden): the sum over
// each token's k experts of weight x down(silu(gate x) * up x), in hidden's dtype.
torch::Tensor groupedSwigluExperts(const torch::Tensor& hidden, const Routing& routing, const torch::Tensor& gateUp,
                                   const torch::Tensor& down);

// gpt-oss's clamped SwiGLU (config swiglu_alpha, swiglu_limit): (up + 1) x gate x sigmoid(alpha x gate), with gate
// clamped above at limit and up to [-limit, limit].
struct ClampedSwiglu {
    double alpha = 1.702;
    double limit = 7.0;
};

// gpt-oss's experts (GptOssExperts), in its layout: gateUp (experts, hidden, 2 x intermediate) with gate and up
// interleaved along the last dimension (even columns gate, odd up), gateUpBias (experts, 2 x intermediate), down
// (experts, intermediate, hidden), downBias (experts, hidden). Returns (tokens, hidden) in hidden's dtype.
torch::Tensor groupedClampedSwigluExperts(const torch::Tensor& hidden, const Routing& routing,
                                          const torch::Tensor& gateUp, const torch::Tensor& gateUpBias,
                                          const torch::Tensor& down, const torch::Tensor& downBias,
                                          const ClampedSwiglu& activation);

// Switch Transformer's load-balancing loss over the layers' router logits (each (tokens, experts)), as
// transformers' load_balancing_loss_func: experts x sum_e (share of top-k assignments to e) x (mean router
// probability of e), both over the tokens of all layers. tokenMask (tokens), when defined, weighs each token
// (1 real, 0 padding). Float32 scalar.
torch::Tensor loadBalancingLoss(const std::vector<torch::Tensor>& routerLogits, int64_t experts, int topK,
                                const torch::Tensor& tokenMask = {});

}  // namespace fts
