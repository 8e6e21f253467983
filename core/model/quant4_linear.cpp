// quant4Linear (see quant4_linear.h): an autograd Function that keeps the 4-bit tensors, not the dequantized weight.
#include "core/model/quant4_linear.h"

#include "core/model/dense.h"

namespace fts {

namespace {

// The weight's tensors are saved as they are (uint8 codes, scales); the scalars in saved_data. Without a bias the
// Function has no bias input at all (autograd does not take an undefined tensor as an input).
void saveWeight(torch::autograd::AutogradContext* ctx, const Quant4Weight& w) {
    ctx->save_for_backward({w.packed, w.absmax, w.nested() ? w.nestedAbsmax : torch::Tensor(),
                            w.nested() ? w.nestedCode : torch::Tensor()});
    ctx->saved_data["type"] = int64_t(w.type);
    ctx->saved_data["blocksize"] = w.blocksize;
    ctx->saved_data["shape"] = w.shape;
    ctx->saved_data["dtype"] = int64_t(w.dtype);
    ctx->saved_data["offset"] = double(w.offset);
}

// dx = dy W with W dequantized again into dy's dtype.
torch::Tensor inputGradient(torch::autograd::AutogradContext* ctx, const torch::Tensor& dy) {
    const auto saved = ctx->get_saved_variables();
    Quant4Weight w;
    w.packed = saved[0];
    w.absmax = saved[1];
    w.nestedAbsmax = saved[2];
    w.nestedCode = saved[3];
    w.type = Quant4Type(ctx->saved_data["type"].toInt());
    w.blocksize = ctx->saved_data["blocksize"].toInt();
    w.shape = ctx->saved_data["shape"].toIntVector();
    w.dtype = torch::ScalarType(ctx->saved_data["dtype"].toInt());
    w.offset = float(ctx->saved_data["offset"].toDouble());
    return dy.matmul(dequantize4bitOnDevice(w, dy.scalar_type()));
}

class Quant4LinearNoBias : public torch::autograd::Function<Quant4LinearNoBias> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, const Quant4Weight& w) {
        saveWeight(ctx, w);
        return denseLinear(x, dequantize4bitOnDevice(w, x.scalar_type()));
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        return {inputGradient(ctx, grads[0]), torch::Tensor()};
    }
};

class Quant4LinearFunction : public torch::autograd::Function<Quant4LinearFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                 const torch::Tensor& bias, const Quant4Weight& w) {
        saveWeight(ctx, w);
        return denseLinear(x, dequantize4bitOnDevice(w, x.scalar_type()), bias);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const torch::Tensor& dy = grads[0];
        return {inputGradient(ctx, dy), dy.reshape({-1, dy.size(-1)}).sum(0), torch::Tensor()};
    }
};

}  // namespace

torch::Tensor quant4Linear(const torch::Tensor& x, const Quant4Weight& w, const torch::Tensor& bias) {
    return bias.defined() ? Quant4LinearFunction::apply(x, bias, w) : Quant4LinearNoBias::apply(x, w);
}

}  // namespace fts
