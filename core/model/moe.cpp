// Router, grouped experts and load-balancing loss of a sparse MoE feed-forward (moe.h).
#include "core/model/moe.h"

#include <functional>

#include "core/model/block_ops.h"
#include "core/model/grouped_swiglu.h"
#include "core/util/error.h"

namespace fts {

namespace {

void checkTopK(int topK, int64_t experts) {
    if (topK < 1 || topK > experts)
        throw Error("num_experts_per_tok is " + std::to_string(topK) + ", but the router has " +
                    std::to_string(experts) + " experts (expected 1 to " + std::to_string(experts) + ")");
}

using ExpertsFn = std::function<torch::Tensor(const torch::Tensor& rows, const std::vector<int64_t>& counts)>;

// Every (token, slot) pair as a row, sorted by expert (stable: within an expert, in token order); `experts(rows,
// counts)` computes every row's output, expert e taking the counts[e] rows after those of the experts before it.
// Each row is then weighed by its slot's weight (in the weights' dtype, as transformers multiplies) and summed into
// its token: index_add takes the rows in expert order, so a token's experts add up in the order they do in
// transformers.
torch::Tensor groupByExpert(const torch::Tensor& hidden, const Routing& routing, int64_t experts,
                            const ExpertsFn& expertsFn) {
    if (hidden.size(0) == 0) return torch::zeros_like(hidden);  // no token: no expert runs
    const int64_t topK = routing.experts.size(1);
    const torch::Tensor flatExperts = routing.experts.reshape({-1});
    const torch::Tensor order = flatExperts.argsort(/*stable=*/true);
    const torch::Tensor tokenOfRow = order.div(topK, "floor");
    const torch::Tensor countTensor = flatExperts.bincount({}, experts).cpu();  // one host sync per layer
    const std::vector<int64_t> counts(countTensor.data_ptr<int64_t>(), countTensor.data_ptr<int64_t>() + experts);
    const torch::Tensor rows = hidden.index_select(0, tokenOfRow);
    const torch::Tensor weighted =
        expertsFn(rows, counts) * routing.weights.reshape({-1}).index_select(0, order).unsqueeze(1);
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
    return groupByExpert(hidden, routing, gateUp.size(0),
                         [&](const torch::Tensor& rows, const std::vector<int64_t>& counts) {
                             return groupedSwiglu(rows, counts, gateUp, down);
                         });
}

torch::Tensor groupedClampedSwigluExperts(const torch::Tensor& hidden, const Routing& routing,
                                          const torch::Tensor& gateUp, const torch::Tensor& gateUpBias,
                                          const torch::Tensor& down, const torch::Tensor& downBias,
                                          const ClampedSwiglu& activation) {
    using torch::indexing::None;
    using torch::indexing::Slice;
    // One view per expert taken at once: autograd stacks their gradients into one tensor (unbind's backward), where
    // indexing each expert would add a zero-filled full-size gradient per expert.
    const std::vector<torch::Tensor> gateUps = gateUp.unbind(0), downs = down.unbind(0),
                                     gateUpBiases = gateUpBias.unbind(0), downBiases = downBias.unbind(0);
    auto expert = [&](size_t i, const torch::Tensor& x) {
        const torch::Tensor gu = torch::addmm(gateUpBiases[i], x, gateUps[i]);
        const torch::Tensor gate = gu.index({"...", Slice(0, None, 2)}).clamp_max(activation.limit);
        const torch::Tensor up = gu.index({"...", Slice(1, None, 2)}).clamp(-activation.limit, activation.limit);
        const torch::Tensor glu = gate * torch::sigmoid(gate * activation.alpha);
        return torch::addmm(downBiases[i], (up + 1) * glu, downs[i]);
    };
    return groupByExpert(hidden, routing, gateUp.size(0),
                         [&](const torch::Tensor& rows, const std::vector<int64_t>& counts) {
                             std::vector<torch::Tensor> outputs;
                             int64_t first = 0;
                             for (size_t e = 0; e < counts.size(); ++e) {
                                 if (counts[e] == 0) continue;
                                 outputs.push_back(expert(e, rows.narrow(0, first, counts[e])));
                                 first += counts[e];
                             }
                             return torch::cat(outputs);
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
