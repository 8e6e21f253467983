// RouterAuxLoss (router_aux.h): per-layer statistics, the loss node and the per-layer gradient nodes.
#include "core/model/router_aux.h"

#include "core/util/error.h"

namespace fts {

namespace {

struct AuxHolder : torch::CustomClassHolder {
    std::shared_ptr<RouterAuxLoss> aux;
};

// out -> out, and into the layer's probability sums the loss's gradient times their coefficient.
struct AttachRouterGradient : torch::autograd::Function<AttachRouterGradient> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& out,
                                 const torch::Tensor& probSums, c10::intrusive_ptr<AuxHolder> holder) {
        ctx->saved_data["aux"] = c10::IValue::make_capsule(holder);
        (void)probSums;
        return out.view_as(out);
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        auto holder = c10::static_intrusive_pointer_cast<AuxHolder>(ctx->saved_data["aux"].toCapsule());
        return {grads[0], holder->aux->probabilitySumGradient(), torch::Tensor()};
    }
};

// The loss's value from the recorded statistics; its backward hands its incoming gradient to the layers' nodes.
struct RouterLossNode : torch::autograd::Function<RouterLossNode> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& lastOutput,
                                 c10::intrusive_ptr<AuxHolder> holder) {
        ctx->saved_data["aux"] = c10::IValue::make_capsule(holder);
        (void)lastOutput;
        return holder->aux->value();
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        auto holder = c10::static_intrusive_pointer_cast<AuxHolder>(ctx->saved_data["aux"].toCapsule());
        holder->aux->setLossGradient(grads[0].detach());
        return {torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

RouterAuxLoss::RouterAuxLoss(int64_t experts, int topK, int64_t layers, torch::Tensor tokenMask)
    : m_experts(experts),
      m_topK(topK),
      m_mask(std::move(tokenMask)),
      m_counts(size_t(layers)),
      m_probSums(size_t(layers)) {}

torch::Tensor RouterAuxLoss::attach(const torch::Tensor& out, const torch::Tensor& routerLogits, int64_t layer) {
    // As load_balancing_loss_func: the softmax in the logits' dtype, its top k, sums weighed by the token mask.
    const torch::Tensor probs = torch::softmax(routerLogits, -1);
    const torch::Tensor chosen = std::get<1>(probs.topk(m_topK, -1)).reshape({-1});
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(routerLogits.device());
    torch::Tensor weight, probSums;
    if (m_mask.defined()) {
        const torch::Tensor mask = m_mask.reshape({-1}).to(f32);
        if (mask.size(0) != probs.size(0))
            throw Error("router load-balancing loss: " + std::to_string(probs.size(0)) + " router rows but " +
                        std::to_string(mask.size(0)) + " mask entries");
        weight = mask.repeat_interleave(m_topK);
        probSums = (probs.to(torch::kFloat32) * mask.unsqueeze(-1)).sum(0);
    } else {
        weight = torch::ones({chosen.size(0)}, f32);
        probSums = probs.to(torch::kFloat32).sum(0);
    }
    const size_t l = size_t(layer);
    if (!m_finished && !m_counts.at(l).defined()) {
        torch::NoGradGuard noGrad;
        m_counts[l] = torch::zeros({m_experts}, f32).scatter_add(0, chosen, weight);
        m_probSums[l] = probSums.detach();
        const torch::Tensor rows =
            m_mask.defined() ? weight.sum() / double(m_topK) : torch::scalar_tensor(double(probs.size(0)), f32);
        m_rows = m_rows.defined() ? m_rows + rows : rows;
    }
    if (!torch::GradMode::is_enabled() || !probSums.requires_grad()) return out;
    auto holder = c10::make_intrusive<AuxHolder>();
    holder->aux = shared_from_this();
    return AttachRouterGradient::apply(out, probSums, holder);
}

torch::Tensor RouterAuxLoss::value() const {
    torch::NoGradGuard noGrad;
    torch::Tensor assigned, probSum;
    for (size_t l = 0; l < m_counts.size(); ++l) {
        if (!m_counts[l].defined()) continue;
        assigned = assigned.defined() ? assigned + m_counts[l] : m_counts[l];
        probSum = probSum.defined() ? probSum + m_probSums[l] : m_probSums[l];
    }
    if (!assigned.defined()) return torch::zeros({}, torch::kFloat32);
    return (assigned / m_rows * (probSum / m_rows)).sum() * double(m_experts);
}

torch::Tensor RouterAuxLoss::finish(const torch::Tensor& lastOutput) {
    m_finished = true;
    torch::Tensor assigned;
    for (const torch::Tensor& c : m_counts)
        if (c.defined()) assigned = assigned.defined() ? assigned + c : c;
    if (assigned.defined()) m_coefficient = assigned / (m_rows * m_rows) * double(m_experts);
    auto holder = c10::make_intrusive<AuxHolder>();
    holder->aux = shared_from_this();
    return RouterLossNode::apply(lastOutput, holder);
}

torch::Tensor RouterAuxLoss::probabilitySumGradient() const {
    if (!m_lossGradient.defined() || !m_coefficient.defined()) return torch::Tensor();
    return m_lossGradient.to(m_coefficient.device()) * m_coefficient;
}

torch::Tensor RouterAuxLoss::expertCounts() const {
    torch::Device device = torch::kCPU;
    for (const torch::Tensor& c : m_counts)
        if (c.defined()) device = c.device();
    torch::Tensor out =
        torch::zeros({int64_t(m_counts.size()), m_experts}, torch::dtype(torch::kFloat32).device(device));
    for (size_t l = 0; l < m_counts.size(); ++l)
        if (m_counts[l].defined()) out[int64_t(l)].copy_(m_counts[l]);
    return out;
}

}  // namespace fts
