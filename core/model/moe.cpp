// Router, grouped experts and load-balancing loss of a sparse MoE feed-forward (moe.h).
#include "core/model/moe.h"

#include <functional>

#include "core/model/block_ops.h"
#include "core/util/error.h"

namespace fts {

namespace {

void checkTopK(int topK, int64_t experts) {
    if (topK < 1 || topK > experts)
        throw Error("num_experts_per_tok is " + std::to_string(topK) + ", but the router has " +
                    std::to_string(experts) + " experts (expected 1 to " + std::to_string(experts) + ")");
}

// Every (token, slot) pair as a row, sorted by expert (stable: within an expert, in token order); `expert(e, rows)`
// computes expert e's outputs for its contiguous slice of the rows, one product per expert. Each row is then weighed
// by its slot's weight (in the weights' dtype, as transformers multiplies) and summed into its token: index_add
// takes the rows in expert order, so a token's experts add up in the order they do in transformers.
torch::Tensor groupByExpert(const torch::Tensor& hidden, const Routing& routing, int64_t experts,
                            const std::function<torch::Tensor(int64_t, const torch::Tensor&)>& expert) {
    if (hidden.size(0) == 0) return torch::zeros_like(hidden);  // no token: no expert runs
    const int64_t topK = routing.experts.size(1);
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
        outputs.push_back(expert(e, rows.narrow(0, first, count[e])));
        first += count[e];
    }
    const torch::Tensor weighted =
        torch::cat(outputs) * routing.weights.reshape({-1}).index_select(0, order).unsqueeze(1);
    return torch::zeros_like(hidden).index_add(0, tokenOfRow, weighted.to(hidden.scalar_type()));
}

}  // namespace

Routing routeSoftmaxTopK(const torch::Tensor& hidden, const torch::Tensor& routerWeight, const RouterOptions& options) {
    checkTopK(options.topK, routerWeight.size(0));
    Routing r;
    r.logits = torch::linear(hidden, routerWeight);
    const torch::Tensor probs = torch::softmax(r.logits.to(torch::kFloat32), -1);
    auto [top, index] = probs.topk(options.topK, -1);
    if (options.normalizeTopK) top = top / top.sum(-1, true);
    r.weights = options.weightsInLogitsDtype ? top.to(r.logits.scalar_type()) : top;
    r.experts = index;
    return r;
}

Routing routeTopKSoftmax(const torch::Tensor& hidden, const torch::Tensor& routerWeight,
                         const torch::Tensor& routerBias, int topK) {
    checkTopK(topK, routerWeight.size(0));
    Routing r;
    r.logits = torch::linear(hidden, routerWeight, routerBias);
    auto [top, index] = r.logits.topk(topK, -1);
    r.weights = torch::softmax(top, 1);
    r.experts = index;
    return r;
}

torch::Tensor groupedSwigluExperts(const torch::Tensor& hidden, const Routing& routing, const torch::Tensor& gateUp,
                                   const torch::Tensor& down) {
    const int64_t intermediate = gateUp.size(1) / 2;
    return groupByExpert(hidden, routing, gateUp.size(0), [&](int64_t e, const torch::Tensor& x) {
        const torch::Tensor gu = torch::linear(x, gateUp[e]);
        return torch::linear(siluMul(gu.narrow(-1, 0, intermediate), gu.narrow(-1, intermediate, intermediate)),
                             down[e]);
    });
}

torch::Tensor groupedClampedSwigluExperts(const torch::Tensor& hidden, const Routing& routing,
                                          const torch::Tensor& gateUp, const torch::Tensor& gateUpBias,
                                          const torch::Tensor& down, const torch::Tensor& downBias,
                                          const ClampedSwiglu& activation) {
    using torch::indexing::None;
    using torch::indexing::Slice;
    return groupByExpert(hidden, routing, gateUp.size(0), [&](int64_t e, const torch::Tensor& x) {
        const torch::Tensor gu = torch::addmm(gateUpBias[e], x, gateUp[e]);
        const torch::Tensor gate = gu.index({"...", Slice(0, None, 2)}).clamp_max(activation.limit);
        const torch::Tensor up = gu.index({"...", Slice(1, None, 2)}).clamp(-activation.limit, activation.limit);
        const torch::Tensor glu = gate * torch::sigmoid(gate * activation.alpha);
        return torch::addmm(downBias[e], (up + 1) * glu, down[e]);
    });
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
