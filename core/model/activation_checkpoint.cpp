// checkpointedBlock (see activation_checkpoint.h) as a custom autograd Function: forward under no_grad saving the
// input, the block's parameters and the generator state; backward restores the state, recomputes with grad and
// returns d(out)/d(input, params) through torch::autograd::grad.
#include "core/model/activation_checkpoint.h"

#include <ATen/autocast_mode.h>

#include <mutex>
#include <optional>

namespace fts {

namespace {

struct BlockHolder : torch::CustomClassHolder {
    BlockFn fn;
    ForwardReplay replay;
};

// Sets autocast for one device type and puts the previous setting back on destruction.
class AutocastScope {
public:
    // The replay's casts are not cached: autocast's cache is process-wide and outlives this scope, so bit16 copies
    // of the weights made here would be found again by the next forward after the optimizer changed the weights
    // (stale weights), and would stay resident through the step. (torch.utils.checkpoint's replay clears it.)
    AutocastScope(c10::DeviceType type, bool enabled, at::ScalarType dtype)
        : m_type(type),
          m_wasEnabled(at::autocast::is_autocast_enabled(type)),
          m_wasDtype(at::autocast::get_autocast_dtype(type)),
          m_wasCaching(at::autocast::is_autocast_cache_enabled()) {
        at::autocast::set_autocast_enabled(type, enabled);
        at::autocast::set_autocast_dtype(type, dtype);
        at::autocast::set_autocast_cache_enabled(false);
    }
    ~AutocastScope() {
        at::autocast::set_autocast_enabled(m_type, m_wasEnabled);
        at::autocast::set_autocast_dtype(m_type, m_wasDtype);
        at::autocast::set_autocast_cache_enabled(m_wasCaching);
    }

private:
    c10::DeviceType m_type;
    bool m_wasEnabled;
    at::ScalarType m_wasDtype;
    bool m_wasCaching;
};

struct CheckpointFunction : torch::autograd::Function<CheckpointFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, c10::intrusive_ptr<BlockHolder> holder,
                                 const torch::Tensor& x, at::TensorList params) {
        std::vector<torch::Tensor> saved{x};
        saved.insert(saved.end(), params.begin(), params.end());
        ctx->save_for_backward(saved);
        ctx->saved_data["block"] = c10::IValue::make_capsule(holder);
        torch::NoGradGuard noGrad;
        return holder->fn(x);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list gradOut) {
        auto holder = c10::static_intrusive_pointer_cast<BlockHolder>(ctx->saved_data["block"].toCapsule());
        const auto saved = ctx->get_saved_variables();
        torch::Tensor x = saved[0].detach().requires_grad_(saved[0].requires_grad());
        std::vector<torch::Tensor> wrt;
        std::vector<size_t> where;  // index into `saved` of each tensor differentiated against
        if (x.requires_grad()) wrt.push_back(x), where.push_back(0);
        for (size_t i = 1; i < saved.size(); ++i)
            if (saved[i].requires_grad()) wrt.push_back(saved[i]), where.push_back(i);
        torch::Tensor out = holder->replay.rerun(holder->fn, x);
        std::vector<torch::Tensor> grads = wrt.empty()
                                               ? std::vector<torch::Tensor>{}
                                               : torch::autograd::grad({out}, wrt, {gradOut[0]}, false, false, true);
        torch::autograd::variable_list result(saved.size() + 1);  // [holder, x, params...]
        for (size_t k = 0; k < where.size(); ++k) result[where[k] + 1] = grads[k];
        return result;
    }
};

}  // namespace

ForwardReplay ForwardReplay::capture(const torch::Tensor& x) {
    ForwardReplay r;
    r.deviceType = x.device().type();
    r.autocast = at::autocast::is_autocast_enabled(r.deviceType);
    r.autocastDtype = at::autocast::get_autocast_dtype(r.deviceType);
    if (x.device().is_cpu() || x.device().is_cuda()) {
        r.generator = at::globalContext().defaultGenerator(x.device());
        std::lock_guard<std::mutex> lock(r.generator->mutex());
        r.rngState = r.generator->get_state();
    }
    return r;
}

torch::Tensor ForwardReplay::rerun(const BlockFn& fn, const torch::Tensor& x) {
    torch::AutoGradMode grad(true);
    AutocastScope autocastScope(deviceType, autocast, autocastDtype);
    at::Tensor current;
    if (generator) {
        std::lock_guard<std::mutex> lock(generator->mutex());
        current = generator->get_state();
        generator->set_state(rngState);
    }
    torch::Tensor out;
    try {
        out = fn(x);
    } catch (...) {
        if (generator) generator->set_state(current);
        throw;
    }
    if (generator) {
        std::lock_guard<std::mutex> lock(generator->mutex());
        generator->set_state(current);
    }
    return out;
}

torch::Tensor checkpointedBlock(const BlockFn& block, const torch::Tensor& x,
                                const std::vector<torch::Tensor>& params) {
    bool needsGrad = x.requires_grad();
    for (const auto& p : params) needsGrad = needsGrad || p.requires_grad();
    if (!torch::GradMode::is_enabled() || !needsGrad) return block(x);
    auto holder = c10::make_intrusive<BlockHolder>();
    holder->fn = block;
    holder->replay = ForwardReplay::capture(x);
    return CheckpointFunction::apply(holder, x, at::TensorList(params));  // TensorList: one gradient per tensor
}

}  // namespace fts
