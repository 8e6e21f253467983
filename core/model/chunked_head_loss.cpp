// Chunked output projection + cross-entropy (see chunked_head_loss.h). Forward keeps the rows and the weight (the
// unfused linear keeps the same two) and no logits; backward recomputes each chunk's logits, turns them into
// d loss / d logits = (softmax - one-hot) * g, casts that to the compute dtype as the unfused path's ToCopyBackward
// does, and multiplies it into the rows' and the weight's gradients (the weight's summed over chunks in its dtype).
#include "core/model/chunked_head_loss.h"

#include <ATen/autocast_mode.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "core/model/dense.h"
#include "core/util/error.h"

namespace fts {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

torch::Tensor reduceSum(const torch::Tensor& sum, double divisor) {
    if (divisor > 0) return sum / divisor;
    if (divisor < 0) return sum * std::numeric_limits<double>::quiet_NaN();
    return sum;
}

// float32 logits of rows [r0, r0 + rows).
torch::Tensor chunkLogits(const torch::Tensor& hidden, const torch::Tensor& weight, const torch::Tensor& bias,
                          int64_t r0, int64_t rows) {
    torch::Tensor logits = denseLinear(hidden.narrow(0, r0, rows), weight, bias);
    return logits.scalar_type() == torch::kFloat64 || logits.scalar_type() == torch::kFloat32
               ? logits
               : logits.to(torch::kFloat32);
}

class ChunkedHeadLossFn : public torch::autograd::Function<ChunkedHeadLossFn> {
public:
    // hidden (N, C), weight (V, C), bias (V) or empty (0) for none (autograd functions take no undefined
    // inputs), all in the compute dtype; targets (N) int64.
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& hidden, const torch::Tensor& weight,
                                 const torch::Tensor& bias, const torch::Tensor& targets, double divisor,
                                 int64_t chunk) {
        const int64_t N = hidden.size(0);
        const torch::Tensor b = bias.numel() > 0 ? bias : torch::Tensor();
        torch::Tensor total = torch::zeros({}, hidden.options().dtype(torch::kFloat64));
        for (int64_t r0 = 0; r0 < N; r0 += chunk) {
            const int64_t rows = std::min(chunk, N - r0);
            const torch::Tensor tgt = targets.narrow(0, r0, rows);
            const torch::Tensor logProbs = chunkLogits(hidden, weight, b, r0, rows).log_softmax(1);
            const torch::Tensor picked = logProbs.gather(1, tgt.clamp_min(0).unsqueeze(1)).squeeze(1);
            total += picked.masked_fill(tgt.eq(kIgnoreTarget), 0).sum(torch::kFloat64);
        }
        ctx->save_for_backward({hidden, weight, bias, targets});
        ctx->saved_data["divisor"] = divisor;
        ctx->saved_data["chunk"] = chunk;
        const auto acc = hidden.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
        return reduceSum(total.neg(), divisor).to(acc);
    }

    static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &hidden = saved[0], &weight = saved[1], &targets = saved[3];
        const torch::Tensor bias = saved[2].numel() > 0 ? saved[2] : torch::Tensor();
        const int64_t N = hidden.size(0), chunk = ctx->saved_data["chunk"].toInt();
        const bool needHidden = ctx->needs_input_grad(0), needWeight = ctx->needs_input_grad(1),
                   needBias = bias.defined() && ctx->needs_input_grad(2);
        const auto dtype = hidden.scalar_type();
        const auto acc = dtype == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
        const torch::Tensor g = reduceSum(gradOutputs[0].to(acc), ctx->saved_data["divisor"].toDouble());
        torch::Tensor gradHidden = needHidden ? torch::empty_like(hidden) : torch::Tensor();
        // The weight's (and bias's) gradient sums every chunk's product, accumulated in its own dtype (addmm keeps
        // float32 sums inside each product): no float32 copy of a (vocab x hidden) matrix.
        torch::Tensor gradWeight = needWeight ? torch::zeros_like(weight) : torch::Tensor();
        torch::Tensor gradBias = needBias ? torch::zeros(bias.sizes(), bias.options().dtype(acc)) : torch::Tensor();
        for (int64_t r0 = 0; r0 < N; r0 += chunk) {
            const int64_t rows = std::min(chunk, N - r0);
            const torch::Tensor tgt = targets.narrow(0, r0, rows);
            torch::Tensor d = chunkLogits(hidden, weight, bias, r0, rows).softmax(1);
            d.scatter_add_(1, tgt.clamp_min(0).unsqueeze(1), torch::full({rows, 1}, -1.0, d.options()));
            d.mul_((tgt.ne(kIgnoreTarget).to(acc) * g).unsqueeze(1));
            if (d.scalar_type() != dtype) d = d.to(dtype);  // the unfused path's cast back to the logits' dtype
            const torch::Tensor rowsIn = hidden.narrow(0, r0, rows);
            if (needHidden) gradHidden.narrow(0, r0, rows).copy_(torch::mm(d, weight));
            if (needWeight) gradWeight.addmm_(d.t(), rowsIn);
            if (needBias) gradBias.add_(d.sum(0, false, acc));
        }
        return {gradHidden,      gradWeight,      needBias ? gradBias.to(bias.scalar_type()) : torch::Tensor(),
                torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

int64_t chunkRowsFor(int64_t vocab, bool cuda) {
    const int64_t budget = cuda ? kChunkedLossBytes : kChunkedLossCpuBytes;
    return std::max<int64_t>(1, budget / (std::max<int64_t>(1, vocab) * 4));
}

torch::Tensor chunkedHeadCrossEntropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                      const torch::Tensor& bias, const torch::Tensor& targets,
                                      TokenLossReduction reduction, torch::ScalarType computeDtype, int64_t chunkRows) {
    if (hidden.dim() < 1 || !hidden.is_floating_point())
        throw Error("chunked loss: hidden states must be a floating tensor (..., hidden), found " +
                    c10::str(hidden.sizes()));
    if (weight.dim() != 2 || weight.size(1) != hidden.size(-1))
        throw Error("chunked loss: the output weight must be (vocab, " + std::to_string(hidden.size(-1)) + "), found " +
                    c10::str(weight.sizes()));
    const int64_t V = weight.size(0);
    if (bias.defined() && (bias.dim() != 1 || bias.size(0) != V))
        throw Error("chunked loss: the output bias must be (" + std::to_string(V) + "), found " +
                    c10::str(bias.sizes()));
    if (!targets.sizes().equals(hidden.sizes().slice(0, hidden.dim() - 1)))
        throw Error("chunked loss: targets must have shape " + c10::str(hidden.sizes().slice(0, hidden.dim() - 1)) +
                    " (the hidden states without the hidden size), found " + c10::str(targets.sizes()));
    c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);  // casts are explicit here
    const torch::Tensor rows = hidden.reshape({-1, hidden.size(-1)}).to(computeDtype).contiguous();
    const torch::Tensor w = weight.to(computeDtype);
    const torch::Tensor b = bias.defined() ? bias.to(computeDtype) : torch::empty({0}, w.options());
    const auto [targets1d, divisor] = checkedTargets(targets, V, hidden.device(), reduction);
    const int64_t chunk = chunkRows > 0 ? chunkRows : chunkRowsFor(V, hidden.is_cuda());
    return ChunkedHeadLossFn::apply(rows, w, b, targets1d, divisor, chunk);
}

}  // namespace fts
