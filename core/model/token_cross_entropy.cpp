// Fused, chunked token cross-entropy (see token_cross_entropy.h). Rows are processed in blocks of about 4 MiB of
// float32 so that the working set stays in cache and no (rows x vocab) temporary is allocated: forward keeps only
// the logits (already alive for the matmul's backward) and the targets; backward recomputes the softmax per block.
#include "core/model/token_cross_entropy.h"

#include <ATen/autocast_mode.h>

#include <algorithm>
#include <limits>

#include "core/util/error.h"

namespace fts {

namespace {

constexpr int64_t kBlockBytes = int64_t(4) << 20;

torch::ScalarType accumulateType(const torch::Tensor& logits) {
    return logits.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
}

int64_t blockRows(int64_t vocab, const torch::Tensor& logits) {
    const int64_t bytesPerRow = vocab * int64_t(logits.scalar_type() == torch::kFloat64 ? 8 : 4);
    // A GPU prefers fewer, larger launches; 16x the block there still bounds the temporary.
    const int64_t budget = logits.is_cuda() ? 16 * kBlockBytes : kBlockBytes;
    return std::max<int64_t>(1, budget / std::max<int64_t>(1, bytesPerRow));
}

// divisor > 0: mean over that many counted targets; 0: sum; < 0: mean over none (NaN, as torch).
torch::Tensor reduce(const torch::Tensor& sum, double divisor) {
    if (divisor > 0) return sum / divisor;
    if (divisor < 0) return sum * std::numeric_limits<double>::quiet_NaN();
    return sum;
}

class TokenCrossEntropyFn : public torch::autograd::Function<TokenCrossEntropyFn> {
public:
    // logits2d (N, V) contiguous; targets (N) int64 with kIgnoreTarget rows.
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& logits2d,
                                 const torch::Tensor& targets, double divisor) {
        const int64_t N = logits2d.size(0), V = logits2d.size(1), step = blockRows(V, logits2d);
        const auto acc = accumulateType(logits2d);
        torch::Tensor total = torch::zeros({}, logits2d.options().dtype(torch::kFloat64));
        torch::Tensor buffer;
        for (int64_t r0 = 0; r0 < N; r0 += step) {
            const int64_t rows = std::min(step, N - r0);
            const torch::Tensor tgt = targets.narrow(0, r0, rows);
            torch::Tensor block = logits2d.narrow(0, r0, rows);
            if (block.scalar_type() != acc) block = block.to(acc);
            if (!buffer.defined()) buffer = torch::empty({std::min(step, N), V}, block.options());
            torch::Tensor logProbs = buffer.narrow(0, 0, rows);
            at::_log_softmax_out(logProbs, block, 1, false);
            const torch::Tensor picked = logProbs.gather(1, tgt.clamp_min(0).unsqueeze(1)).squeeze(1);
            total += picked.masked_fill(tgt.eq(kIgnoreTarget), 0).sum(torch::kFloat64);
        }
        ctx->save_for_backward({logits2d, targets});
        ctx->saved_data["divisor"] = divisor;
        return reduce(total.neg(), divisor).to(acc);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list gradOutputs) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor& logits2d = saved[0];
        const torch::Tensor& targets = saved[1];
        const int64_t N = logits2d.size(0), V = logits2d.size(1), step = blockRows(V, logits2d);
        const auto acc = accumulateType(logits2d);
        // d loss / d logit = (softmax - one-hot(target)) * g for counted rows, 0 for ignored ones.
        const torch::Tensor g = reduce(gradOutputs[0].to(acc), ctx->saved_data["divisor"].toDouble());
        torch::Tensor grad = torch::empty({N, V}, logits2d.options());
        const bool direct = logits2d.scalar_type() == acc;  // softmax straight into the gradient's rows
        torch::Tensor buffer;
        for (int64_t r0 = 0; r0 < N; r0 += step) {
            const int64_t rows = std::min(step, N - r0);
            const torch::Tensor tgt = targets.narrow(0, r0, rows);
            const torch::Tensor rowScale = tgt.ne(kIgnoreTarget).to(acc) * g;  // (rows)
            torch::Tensor block = logits2d.narrow(0, r0, rows);
            torch::Tensor out;
            if (direct) {
                out = grad.narrow(0, r0, rows);
            } else {
                block = block.to(acc);
                if (!buffer.defined()) buffer = torch::empty({std::min(step, N), V}, block.options());
                out = buffer.narrow(0, 0, rows);
            }
            at::_softmax_out(out, block, 1, false);
            out.scatter_add_(1, tgt.clamp_min(0).unsqueeze(1), torch::full({rows, 1}, -1.0, out.options()));
            out.mul_(rowScale.unsqueeze(1));
            if (!direct) grad.narrow(0, r0, rows).copy_(out);
        }
        return {grad, torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

torch::Tensor tokenCrossEntropy(const torch::Tensor& logits, const torch::Tensor& targets,
                                TokenLossReduction reduction) {
    if (logits.dim() < 1 || !logits.is_floating_point())
        throw Error("cross entropy: logits must be a floating tensor (..., vocab), found " + c10::str(logits.sizes()) +
                    " " + std::string(c10::toString(logits.scalar_type())));
    if (!targets.sizes().equals(logits.sizes().slice(0, logits.dim() - 1)))
        throw Error("cross entropy: targets must have shape " + c10::str(logits.sizes().slice(0, logits.dim() - 1)) +
                    " (the logits without the vocabulary), found " + c10::str(targets.sizes()));
    const int64_t V = logits.size(-1);
    c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);  // the loss stays in float32
    const torch::Tensor logits2d = logits.reshape({-1, V}).contiguous();
    const auto [targets1d, divisor] = checkedTargets(targets, V, logits.device(), reduction);
    return TokenCrossEntropyFn::apply(logits2d, targets1d, divisor);
}

std::pair<torch::Tensor, double> checkedTargets(const torch::Tensor& targets, int64_t V, const torch::Device& device,
                                                TokenLossReduction reduction) {
    const torch::Tensor targets1d = targets.reshape({-1}).to(device, torch::kInt64).contiguous();
    const torch::Tensor counted = targets1d.ne(kIgnoreTarget);
    const torch::Tensor outOfRange = counted.logical_and(targets1d.lt(0).logical_or(targets1d.ge(V)));
    if (outOfRange.any().item<bool>()) {
        const int64_t bad = targets1d.masked_select(outOfRange)[0].item<int64_t>();
        throw Error("cross entropy: target ids must lie in [0, " + std::to_string(V) + ") or be " +
                    std::to_string(kIgnoreTarget) + " (ignored), found " + std::to_string(bad));
    }
    double divisor = 0.0;
    if (reduction == TokenLossReduction::Mean) {
        const int64_t count = counted.sum().item<int64_t>();
        divisor = count > 0 ? double(count) : -1.0;
    }
    return {targets1d, divisor};
}

torch::Tensor nextTokenTargets(const torch::Tensor& labels) {
    if (labels.dim() != 2) throw Error("causal LM labels must be (batch, seq), found " + c10::str(labels.sizes()));
    const int64_t B = labels.size(0), T = labels.size(1);
    torch::Tensor targets = torch::full({B, T}, kIgnoreTarget, labels.options().dtype(torch::kInt64));
    if (T > 1) targets.narrow(1, 0, T - 1).copy_(labels.narrow(1, 1, T - 1));
    return targets;
}

}  // namespace fts
