// Router, grouped experts and load-balancing loss of a sparse MoE feed-forward (moe.h).
#include "core/model/moe.h"

#include "core/model/block_ops.h"
#include "core/util/error.h"

namespace fts {

namespace F = torch::nn::functional;

Routing routeSoftmaxTopK(const torch::Tensor& hidden, const torch::Tensor& routerWeight, const RouterOptions& options) {
    const int64_t experts = routerWeight.size(0);
    if (options.topK < 1 || options.topK > experts)
        throw Error("num_experts_per_tok is " + std::to_string(options.topK) + ", but the router has " +
                    std::to_string(experts) + " experts (expected 1 to " + std::to_string(experts) + ")");
    Routing r;
    r.logits = torch::linear(hidden, routerWeight);
    const torch::Tensor probs = torch::softmax(r.logits.to(torch::kFloat32), -1);
    auto [top, index] = probs.topk(options.topK, -1);
    if (options.normalizeTopK) top = top / top.sum(-1, true);
    r.weights = options.weightsInLogitsDtype ? top.to(r.logits.scalar_type()) : top;
    r.experts = index;
    return r;
}

torch::Tensor groupedSwigluExperts(const torch::Tensor& hidden, const Routing& routing, const torch::Tensor& gateUp,
                                   const torch::Tensor& down) {
    const int64_t experts = gateUp.size(0), topK = routing.experts.size(1);
    const int64_t intermediate = gateUp.size(1) / 2;
    // Every (token, slot) pair as a row, sorted by expert (stable: within an expert, in token order).
    const torch::Tensor flatExperts = routing.experts.reshape({-1});
    const torch::Tensor order = flatExperts.argsort(/*stable=*/true);
    const torch::Tensor tokenOfRow = order.div(topK, "floor");
    const torch::Tensor counts = flatExperts.bincount({}, experts).cpu();
    const torch::Tensor rows = hidden.index_select(0, tokenOfRow);
    std::vector<torch::Tensor> outputs;
    int64_t first = 0;
    const int64_t* count = counts.data_ptr<int64_t>();
    for (int64_t e = 0; e < experts; ++e) {
        if (count[e] == 0) continue;
        const torch::Tensor x = rows.narrow(0, first, count[e]);
        const torch::Tensor gu = torch::linear(x, gateUp[e]);
        const torch::Tensor act = siluMul(gu.narrow(-1, 0, intermediate), gu.narrow(-1, intermediate, intermediate));
        outputs.push_back(torch::linear(act, down[e]));
        first += count[e];
    }
    // Each row weighed by its slot's weight (in the weights' dtype, as transformers multiplies), then summed into
    // its token: index_add_ takes the rows in expert order, so a token's experts add up in the order they do there.
    const torch::Tensor weighted =
        torch::cat(outputs) * routing.weights.reshape({-1}).index_select(0, order).unsqueeze(1);
    return torch::zeros_like(hidden).index_add(0, tokenOfRow, weighted.to(hidden.scalar_type()));
}

torch::Tensor loadBalancingLoss(const std::vector<torch::Tensor>& routerLogits, int64_t experts, int topK,
                                const torch::Tensor& tokenMask) {
    if (routerLogits.empty()) return torch::zeros({}, torch::kFloat32);
    const torch::Device device = routerLogits.front().device();
    torch::Tensor assigned = torch::zeros({experts}, torch::dtype(torch::kFloat32).device(device));
    torch::Tensor probSum = torch::zeros({experts}, torch::dtype(torch::kFloat32).device(device));
    torch::Tensor rowsSeen = torch::zeros({}, torch::dtype(torch::kFloat32).device(device));
    const torch::Tensor mask = tokenMask.defined() ? tokenMask.reshape({-1}).to(device, torch::kFloat32) : tokenMask;
    for (const torch::Tensor& logits : routerLogits) {
        const torch::Tensor probs = torch::softmax(logits, -1);
        const torch::Tensor chosen = std::get<1>(probs.topk(topK, -1)).reshape({-1});
        if (mask.defined()) {
            assigned = assigned + torch::zeros_like(assigned).scatter_add(0, chosen, mask.repeat_interleave(topK));
            probSum = probSum + (probs.to(torch::kFloat32) * mask.unsqueeze(-1)).sum(0);
            rowsSeen = rowsSeen + mask.sum();
        } else {
            assigned = assigned + torch::zeros_like(assigned).scatter_add(
                                      0, chosen, torch::ones({chosen.size(0)}, assigned.options()));
            probSum = probSum + probs.to(torch::kFloat32).sum(0);
            rowsSeen = rowsSeen + double(probs.size(0));
        }
    }
    return (assigned / rowsSeen * (probSum / rowsSeen)).sum() * double(experts);
}

}  // namespace fts
