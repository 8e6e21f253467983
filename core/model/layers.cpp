// Layers shared by the architectures (see hf_model.h): activations, HF Conv1D, masking, attention, LM loss.
// Numerics follow transformers' eager code; attention runs through at::scaled_dot_product_attention.
#include <ATen/autocast_mode.h>

#include <limits>

#include "core/model/hf_model.h"
#include "core/model/token_cross_entropy.h"
#include "core/util/error.h"

namespace fts {

namespace {

struct ActivationName {
    std::string_view name;
    Activation act;
};
// Names as transformers' ACT2FN spells them.
constexpr ActivationName kActivations[] = {
    {"gelu_new", Activation::GeluTanh},
    {"gelu_pytorch_tanh", Activation::GeluTanh},
    {"gelu_fast", Activation::GeluTanh},
    {"gelu_accurate", Activation::GeluTanh},
    {"gelu", Activation::GeluErf},
    {"gelu_python", Activation::GeluErf},
    {"quick_gelu", Activation::QuickGelu},
    {"relu", Activation::Relu},
    {"relu2", Activation::Relu2},
    {"relu6", Activation::Relu6},
    {"leaky_relu", Activation::LeakyRelu},
    {"silu", Activation::Silu},
    {"swish", Activation::Silu},
    {"mish", Activation::Mish},
    {"tanh", Activation::Tanh},
    {"sigmoid", Activation::Sigmoid},
    {"linear", Activation::Identity},
};

}  // namespace

double lowestOf(torch::ScalarType dtype) {
    switch (dtype) {
        case torch::kFloat64:
            return std::numeric_limits<double>::lowest();
        case torch::kFloat16:
            return double(std::numeric_limits<c10::Half>::lowest());
        case torch::kBFloat16:
            return double(std::numeric_limits<c10::BFloat16>::lowest());
        default:
            return double(std::numeric_limits<float>::lowest());
    }
}

Activation parseActivation(const HfConfig& config, std::string_view key, const std::string& fallback) {
    const std::string name = config.getString({key}, fallback);
    for (const auto& a : kActivations)
        if (a.name == name) return a.act;
    std::string names;
    for (const auto& a : kActivations) names += (names.empty() ? "" : ", ") + std::string(a.name);
    config.fail(key, "unsupported activation \"" + name + "\" (supported: " + names + ")");
}

torch::Tensor applyActivation(Activation act, const torch::Tensor& x) {
    switch (act) {
        case Activation::GeluTanh:
            return at::gelu(x, "tanh");
        case Activation::GeluErf:
            return at::gelu(x);
        case Activation::QuickGelu:
            return x * torch::sigmoid(1.702 * x);
        case Activation::Relu:
            return torch::relu(x);
        case Activation::Relu2:
            return torch::relu(x).square();
        case Activation::Relu6:
            return torch::hardtanh(x, 0.0, 6.0);
        case Activation::LeakyRelu:
            return torch::leaky_relu(x, 0.01);
        case Activation::Silu:
            return torch::silu(x);
        case Activation::Mish:
            return torch::mish(x);
        case Activation::Tanh:
            return torch::tanh(x);
        case Activation::Sigmoid:
            return torch::sigmoid(x);
        case Activation::Identity:
            return x;
    }
    return x;
}

torch::ScalarType computeDtype(const torch::Tensor& param) {
    const auto deviceType = param.device().type();
    if (param.is_floating_point() && at::autocast::is_autocast_enabled(deviceType))
        return at::autocast::get_autocast_dtype(deviceType);
    return param.scalar_type();
}

torch::Tensor checkedPositionIds(const torch::Tensor& positionIds, const torch::Tensor& inputIds, int64_t maxPositions,
                                 const std::string& who) {
    if (!positionIds.defined() || positionIds.dim() != 2 || positionIds.sizes() != inputIds.sizes())
        throw Error(who + ": position_ids must have the shape of input_ids " + c10::str(inputIds.sizes()) + ", found " +
                    (positionIds.defined() ? c10::str(positionIds.sizes()) : std::string("none")));
    torch::Tensor p = positionIds.to(inputIds.device(), torch::kInt64);
    if (p.numel() > 0) {
        const int64_t lo = p.min().item<int64_t>(), hi = p.max().item<int64_t>();
        if (lo < 0 || (maxPositions > 0 && hi >= maxPositions))
            throw Error(who + ": position_ids must lie in [0, " + std::to_string(maxPositions) + "), found [" +
                        std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return p;
}

torch::Tensor causalSelfAttention(const torch::Tensor& q, const torch::Tensor& kIn, const torch::Tensor& vIn,
                                  const torch::Tensor& bias, double dropout, double scale, bool upcast) {
    const int64_t H = q.size(1), K = kIn.size(1);
    if (K != H && (K <= 0 || H % K != 0))
        throw Error("attention: " + std::to_string(H) + " query heads cannot share " + std::to_string(K) +
                    " key/value heads");
    const bool grouped = K != H;
    const bool gqaKernel = grouped && !bias.defined() && !upcast;
    torch::Tensor k = kIn, v = vIn;
    if (grouped && !gqaKernel) {
        k = kIn.repeat_interleave(H / K, 1);
        v = vIn.repeat_interleave(H / K, 1);
    }
    if (upcast) {
        // reorder_and_upcast_attn: scores, softmax and the weighted sum in float32 with autocast off.
        c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);
        std::optional<torch::Tensor> mask;
        if (bias.defined()) mask = bias.to(torch::kFloat32);
        auto out = at::scaled_dot_product_attention(q.to(torch::kFloat32), k.to(torch::kFloat32), v.to(torch::kFloat32),
                                                    mask, dropout, !bias.defined(), scale);
        return out.to(v.scalar_type());
    }
    std::optional<torch::Tensor> mask;
    if (bias.defined()) {
        mask = bias;
        if (bias.scalar_type() != q.scalar_type())  // keep dtype-min finite in the narrower type
            mask = bias.to(torch::kFloat32).clamp_min(lowestOf(q.scalar_type())).to(q.scalar_type());
    }
    return at::scaled_dot_product_attention(q, k, v, mask, dropout, !bias.defined(), scale, gqaKernel);
}

torch::Tensor causalLmLoss(const torch::Tensor& logits, const torch::Tensor& labels) {
    if (logits.dim() != 3)
        throw Error("causal LM loss: logits must be (batch, seq, vocab), found " + c10::str(logits.sizes()));
    if (labels.dim() != 2 || labels.size(0) != logits.size(0) || labels.size(1) != logits.size(1))
        throw Error("causal LM loss: labels must be (batch, seq) = " + c10::str(logits.sizes().slice(0, 2)) +
                    ", found " + c10::str(labels.sizes()));
    const int64_t T = logits.size(1);
    if (T < 2) throw Error("causal LM loss needs sequences of at least 2 tokens");
    return tokenCrossEntropy(logits, nextTokenTargets(labels), TokenLossReduction::Mean);
}

}  // namespace fts
