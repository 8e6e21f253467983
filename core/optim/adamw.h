// AdamW / Adam over a list of parameter tensors, with DeepSpeed's meaning of adam_w_mode: decoupled
// weight decay (AdamW, torch.optim.AdamW's exact update) or L2 decay added to the gradient (Adam).
// Optimizer state is fp32 and kept per parameter, in the same order as the parameters given.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/train_config.h"

namespace fts {

class AdamW {
public:
    AdamW(std::vector<torch::Tensor> params, const OptimizerConfig& cfg);

    // One update with learning rate `lr` using each parameter's .grad(); parameters without grad are skipped.
    void step(double lr);
    void zeroGrad();
    int64_t stepCount() const { return m_step; }
    const OptimizerConfig& config() const { return m_cfg; }

    // State for checkpoints: exp_avg.<i> and exp_avg_sq.<i> tensors plus the step count.
    std::vector<std::pair<std::string, torch::Tensor>> stateTensors() const;
    void loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step);
    // Bytes held by optimizer state (for memory accounting).
    int64_t stateBytes() const;

private:
    bool stepFused(double lr);  // false: not eligible (see adamw.cpp), nothing changed

    std::vector<torch::Tensor> m_params;
    std::vector<torch::Tensor> m_fusedSteps;  // the fused kernel's per-parameter step counts
    std::vector<torch::Tensor> m_expAvg, m_expAvgSq;
    OptimizerConfig m_cfg;
    int64_t m_step = 0;
};

// Global L2 norm of all gradients; when maxNorm > 0 and the norm exceeds it, scales every gradient by
// maxNorm / (norm + 1e-6) as DeepSpeed and torch.nn.utils.clip_grad_norm_ do. Returns the norm before clipping.
double clipGradNorm(const std::vector<torch::Tensor>& params, double maxNorm);

}  // namespace fts
