// groupedSwiglu (see grouped_swiglu.h): forward and backward as explicit per-expert products into shared buffers.
#include "core/model/grouped_swiglu.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>

#include <functional>

namespace fts {

namespace {

// fn(e, first, n) for each expert e with n > 0 rows starting at row `first`. On the CPU the experts run on the
// intra-op threads, each product single-threaded (most experts' products are too small to split well); elsewhere in
// order on the calling thread.
void forEachExpert(const std::vector<int64_t>& counts, bool cpu,
                   const std::function<void(int64_t e, int64_t first, int64_t n)>& fn) {
    std::vector<int64_t> firsts(counts.size() + 1, 0);
    for (size_t e = 0; e < counts.size(); ++e) firsts[e + 1] = firsts[e] + counts[e];
    if (!cpu) {
        for (size_t e = 0; e < counts.size(); ++e)
            if (counts[e] > 0) fn(int64_t(e), firsts[e], counts[e]);
        return;
    }
    at::parallel_for(0, int64_t(counts.size()), 1, [&](int64_t begin, int64_t end) {
        for (int64_t e = begin; e < end; ++e)
            if (counts[size_t(e)] > 0) fn(e, firsts[size_t(e)], counts[size_t(e)]);
    });
}

struct GroupedSwigluFunction : torch::autograd::Function<GroupedSwigluFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& rowsIn,
                                 const torch::Tensor& gateUpIn, const torch::Tensor& downIn,
                                 std::vector<int64_t> counts) {
        const c10::DeviceType device = rowsIn.device().type();
        const torch::ScalarType dtype =
            at::autocast::is_autocast_enabled(device) ? at::autocast::get_autocast_dtype(device) : rowsIn.scalar_type();
        c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);
        const torch::Tensor rows = rowsIn.to(dtype).contiguous(), gateUp = gateUpIn.to(dtype), down = downIn.to(dtype);
        const int64_t R = rows.size(0), C = rows.size(1), I = gateUp.size(1) / 2;
        torch::Tensor gu = torch::empty({R, 2 * I}, rows.options());
        torch::Tensor out = torch::empty({R, C}, rows.options());
        const bool cpu = rows.device().is_cpu();
        forEachExpert(counts, cpu, [&](int64_t e, int64_t first, int64_t n) {
            torch::Tensor slice = gu.narrow(0, first, n);
            at::mm_out(slice, rows.narrow(0, first, n), gateUp[e].t());
        });
        const torch::Tensor h = torch::silu(gu.narrow(1, 0, I)) * gu.narrow(1, I, I);
        forEachExpert(counts, cpu, [&](int64_t e, int64_t first, int64_t n) {
            torch::Tensor slice = out.narrow(0, first, n);
            at::mm_out(slice, h.narrow(0, first, n), down[e].t());
        });
        ctx->save_for_backward({rows, gateUp, down, gu, h});
        ctx->saved_data["counts"] = c10::IValue(std::move(counts));
        ctx->saved_data["rows_dtype"] = c10::IValue(rowsIn.scalar_type());
        ctx->saved_data["weights_dtype"] = c10::IValue(gateUpIn.scalar_type());
        return out;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &rows = saved[0], &gateUp = saved[1], &down = saved[2], &gu = saved[3], &h = saved[4];
        const std::vector<int64_t> counts = ctx->saved_data["counts"].toIntVector();
        const torch::ScalarType rowsDtype = ctx->saved_data["rows_dtype"].toScalarType();
        const torch::ScalarType weightsDtype = ctx->saved_data["weights_dtype"].toScalarType();
        const torch::Tensor dOut = grads[0].to(rows.scalar_type()).contiguous();
        const int64_t I = gateUp.size(1) / 2;
        const bool wantRows = ctx->needs_input_grad(0), wantGateUp = ctx->needs_input_grad(1),
                   wantDown = ctx->needs_input_grad(2);
        torch::Tensor dDown = wantDown ? torch::zeros_like(down) : torch::Tensor();
        torch::Tensor dh = torch::empty_like(h);
        const bool cpu = rows.device().is_cpu();
        forEachExpert(counts, cpu, [&](int64_t e, int64_t first, int64_t n) {
            const torch::Tensor g = dOut.narrow(0, first, n);
            if (wantDown) {
                torch::Tensor slot = dDown[e];
                at::mm_out(slot, g.t(), h.narrow(0, first, n));
            }
            torch::Tensor slice = dh.narrow(0, first, n);
            at::mm_out(slice, g, down[e]);
        });
        // silu(g) * u: d/dg = du-side * u * sigmoid(g) * (1 + g * (1 - sigmoid(g))), d/du = dh * silu(g)
        const torch::Tensor gate = gu.narrow(1, 0, I), up = gu.narrow(1, I, I);
        const torch::Tensor sig = torch::sigmoid(gate);
        const torch::Tensor dgu = torch::cat({dh * up * sig * (1 + gate * (1 - sig)), dh * gate * sig}, 1);
        torch::Tensor dGateUp = wantGateUp ? torch::zeros_like(gateUp) : torch::Tensor();
        torch::Tensor dRows = wantRows ? torch::empty_like(rows) : torch::Tensor();
        forEachExpert(counts, cpu, [&](int64_t e, int64_t first, int64_t n) {
            const torch::Tensor g = dgu.narrow(0, first, n);
            if (wantGateUp) {
                torch::Tensor slot = dGateUp[e];
                at::mm_out(slot, g.t(), rows.narrow(0, first, n));
            }
            if (wantRows) {
                torch::Tensor slice = dRows.narrow(0, first, n);
                at::mm_out(slice, g, gateUp[e]);
            }
        });
        return {wantRows ? dRows.to(rowsDtype) : torch::Tensor(),
                wantGateUp ? dGateUp.to(weightsDtype) : torch::Tensor(),
                wantDown ? dDown.to(weightsDtype) : torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

torch::Tensor groupedSwiglu(const torch::Tensor& rows, const std::vector<int64_t>& counts, const torch::Tensor& gateUp,
                            const torch::Tensor& down) {
    return GroupedSwigluFunction::apply(rows, gateUp, down, counts);
}

}  // namespace fts
