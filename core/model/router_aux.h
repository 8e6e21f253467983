// The load-balancing loss of a mixture-of-experts forward, formed across its sparse layers as transformers'
// load_balancing_loss_func (Switch Transformer's: experts x sum_e (share of top-k assignments to e) x (mean router
// probability of e), over the real tokens of every layer), and each layer's expert usage for the run page.
// The loss reaches each router's gradient even when its block runs under activation checkpointing or ZeRO stage 3
// (blocks that only hand their output on, and replay themselves during backward): the assignment shares carry no
// gradient, so the loss is linear in each layer's probability sums, and each layer's block output carries a node that
// adds (the loss's incoming gradient) x (d loss / d its probability sums) into them when the block's backward runs,
// which is always after the loss's own backward (the loss reads the last block's output, so it is ordered first).
#pragma once
#include <torch/torch.h>

#include <memory>
#include <vector>

namespace fts {

class RouterAuxLoss : public std::enable_shared_from_this<RouterAuxLoss> {
public:
    // tokenMask (tokens): 1 for a real token, 0 for padding (transformers' attention_mask); undefined: every row.
    RouterAuxLoss(int64_t experts, int topK, int64_t layers, torch::Tensor tokenMask);

    // A sparse layer's router logits (tokens, experts) next to its block output `out`: records the layer's top-k
    // assignment counts and probability sums the first time the layer runs in this forward (a replay during
    // backward records nothing), and returns `out` carrying the node that feeds the loss's gradient to the router.
    torch::Tensor attach(const torch::Tensor& out, const torch::Tensor& routerLogits, int64_t layer);
    // The loss (float32 scalar) once every layer ran; `lastOutput` is the last block's output, which the loss reads
    // (its gradient there is zero) so that its backward runs before any block's.
    torch::Tensor finish(const torch::Tensor& lastOutput);
    // (layers, experts): each layer's top-k assignments of real tokens in this forward (zeros for dense layers).
    torch::Tensor expertCounts() const;

    // For the autograd nodes (router_aux.cpp).
    torch::Tensor probabilitySumGradient() const;
    void setLossGradient(const torch::Tensor& g) { m_lossGradient = g; }
    torch::Tensor value() const;

private:
    int64_t m_experts;
    int m_topK;
    torch::Tensor m_mask;
    std::vector<torch::Tensor> m_counts, m_probSums;  // per layer, detached; undefined where not (yet) run
    torch::Tensor m_rows;                             // real tokens summed over the recorded layers
    bool m_finished = false;
    torch::Tensor m_coefficient;   // d loss / d (a layer's probability sums), fixed by finish()
    torch::Tensor m_lossGradient;  // the loss's incoming gradient, set by its backward
};

}  // namespace fts
