// AdamW / Adam update (see adamw.h). float32 parameters on a CUDA device go through our fused multi-tensor kernel
// (core/optim/fused_adamw.h, kernels/cuda/adamw.cuh); other float32 parameters through LibTorch's fused multi-tensor
// kernel (what torch.optim.AdamW(fused=True) runs); the rest through the single-tensor arithmetic of torch.optim.AdamW:
//   p *= 1 - lr*wd (decoupled); m = lerp(m, g, 1-b1); v = b2*v + (1-b2)*g^2; p -= lr/bc1 * m / (sqrt(v)/sqrt(bc2) + eps)
#include "core/optim/adamw.h"

#include <cmath>

#include "core/optim/fused_adamw.h"
#include "core/util/error.h"

namespace fts {

AdamW::AdamW(std::vector<torch::Tensor> params, const OptimizerConfig& cfg) : m_params(std::move(params)), m_cfg(cfg) {
    torch::NoGradGuard noGrad;
    for (const auto& p : m_params) {
        auto opts = p.options().dtype(torch::kFloat32);
        m_expAvg.push_back(torch::zeros(p.sizes(), opts));
        m_expAvgSq.push_back(torch::zeros(p.sizes(), opts));
    }
}

void AdamW::step(double lr) {
    torch::NoGradGuard noGrad;
    ++m_step;
    if (fusedAdamWStepCuda(m_params, m_expAvg, m_expAvgSq, m_cfg, lr, m_step)) return;  // fp32 on CUDA
    if (stepFused(lr)) return;
    const double b1 = m_cfg.beta1, b2 = m_cfg.beta2, eps = m_cfg.eps, wd = m_cfg.weightDecay;
    const double bc1 = 1.0 - std::pow(b1, double(m_step));
    const double bc2Sqrt = std::sqrt(1.0 - std::pow(b2, double(m_step)));
    const double stepSize = lr / bc1;
    const bool decoupled = m_cfg.adamWMode;
    for (size_t i = 0; i < m_params.size(); ++i) {
        torch::Tensor& p = m_params[i];
        if (!p.grad().defined()) continue;
        // Master copy arithmetic in fp32 even when the parameter is bf16/fp16.
        torch::Tensor grad = p.grad().to(torch::kFloat32);
        torch::Tensor param = p.dtype() == torch::kFloat32 ? p : p.to(torch::kFloat32);
        if (wd != 0.0) {
            if (decoupled)
                param.mul_(1.0 - lr * wd);
            else
                grad = grad.add(param, wd);
        }
        m_expAvg[i].lerp_(grad, 1.0 - b1);
        m_expAvgSq[i].mul_(b2).addcmul_(grad, grad, 1.0 - b2);
        torch::Tensor denom = (m_expAvgSq[i].sqrt() / bc2Sqrt).add_(eps);
        param.addcdiv_(m_expAvg[i], denom, -stepSize);
        if (!param.is_same(p)) p.copy_(param);
    }
}

bool AdamW::stepFused(double lr) {
    // LibTorch's multi-tensor kernel (what torch.optim.AdamW(fused=True) runs, the Trainer's default): one pass over
    // each parameter instead of six, the same update to rounding. Only for float32 parameters and gradients on one
    // device; anything else takes the per-tensor path above.
    std::vector<torch::Tensor> params, grads, expAvgs, expAvgSqs, steps;
    for (size_t i = 0; i < m_params.size(); ++i) {
        const torch::Tensor& p = m_params[i];
        if (!p.grad().defined()) continue;
        const torch::Tensor& g = p.grad();
        if (p.scalar_type() != torch::kFloat32 || g.scalar_type() != torch::kFloat32 || g.is_sparse() ||
            !p.is_contiguous() || !g.is_contiguous() || p.device() != m_params.front().device())
            return false;
        params.push_back(p);
        grads.push_back(g);
        expAvgs.push_back(m_expAvg[i]);
        expAvgSqs.push_back(m_expAvgSq[i]);
    }
    if (params.empty()) return true;
    if (m_fusedSteps.size() != params.size() || m_fusedSteps.front().device() != params.front().device()) {
        m_fusedSteps.clear();
        for (size_t i = 0; i < params.size(); ++i)
            m_fusedSteps.push_back(torch::zeros({}, params.front().options().dtype(torch::kFloat32)));
    }
    for (auto& s : m_fusedSteps) s.fill_(double(m_step));
    if (m_cfg.adamWMode)
        at::_fused_adamw_(params, grads, expAvgs, expAvgSqs, {}, m_fusedSteps, lr, m_cfg.beta1, m_cfg.beta2,
                          m_cfg.weightDecay, m_cfg.eps, false, false);
    else
        at::_fused_adam_(params, grads, expAvgs, expAvgSqs, {}, m_fusedSteps, lr, m_cfg.beta1, m_cfg.beta2,
                         m_cfg.weightDecay, m_cfg.eps, false, false);
    return true;
}

void AdamW::zeroGrad() {
    for (auto& p : m_params) {
        if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
    }
}

std::vector<std::pair<std::string, torch::Tensor>> AdamW::stateTensors() const {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (size_t i = 0; i < m_params.size(); ++i) {
        out.emplace_back("exp_avg." + std::to_string(i), m_expAvg[i]);
        out.emplace_back("exp_avg_sq." + std::to_string(i), m_expAvgSq[i]);
    }
    return out;
}

void AdamW::loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step) {
    torch::NoGradGuard noGrad;
    size_t found = 0;
    for (const auto& [name, t] : tensors) {
        auto dot = name.rfind('.');
        if (dot == std::string::npos) throw FormatError("optimizer state: unexpected tensor '" + name + "'");
        std::string kind = name.substr(0, dot);
        size_t idx = std::stoul(name.substr(dot + 1));
        if (idx >= m_params.size())
            throw FormatError("optimizer state: tensor '" + name + "' has index " + std::to_string(idx) +
                              " but the model has " + std::to_string(m_params.size()) + " parameters");
        torch::Tensor& dst = kind == "exp_avg" ? m_expAvg[idx] : kind == "exp_avg_sq" ? m_expAvgSq[idx] : m_expAvg[idx];
        if (kind != "exp_avg" && kind != "exp_avg_sq")
            throw FormatError("optimizer state: unexpected tensor '" + name + "'");
        if (!dst.sizes().equals(t.sizes()))
            throw FormatError("optimizer state: tensor '" + name + "' has shape " + c10::str(t.sizes()) +
                              ", expected " + c10::str(dst.sizes()));
        dst.copy_(t);
        ++found;
    }
    if (found != 2 * m_params.size())
        throw FormatError("optimizer state: found " + std::to_string(found) + " tensors, expected " +
                          std::to_string(2 * m_params.size()));
    m_step = step;
}

int64_t AdamW::stateBytes() const {
    int64_t n = 0;
    for (size_t i = 0; i < m_expAvg.size(); ++i) n += m_expAvg[i].nbytes() + m_expAvgSq[i].nbytes();
    return n;
}

double clipGradNorm(const std::vector<torch::Tensor>& params, double maxNorm) {
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> norms;
    for (const auto& p : params)
        if (p.grad().defined()) norms.push_back(p.grad().to(torch::kFloat32).norm(2));
    if (norms.empty()) return 0.0;
    double total = torch::stack(norms).norm(2).item<double>();
    if (maxNorm > 0.0 && std::isfinite(total)) {
        double coef = maxNorm / (total + 1e-6);
        if (coef < 1.0)
            for (const auto& p : params)
                if (p.grad().defined()) p.grad().mul_(coef);
    }
    return total;
}

}  // namespace fts
