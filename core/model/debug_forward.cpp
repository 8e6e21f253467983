// `fts debug forward` (see debug_forward.h): forward, backward, outputs file, one AdamW step, loss again.
// AdamW is written out with tensor ops exactly as torch.optim.AdamW's single-tensor path computes step 1.
#include "core/model/debug_forward.h"

#include <cmath>

#include "core/model/language_model.h"
#include "core/model/safetensors_torch.h"
#include "core/util/error.h"

namespace fts {

namespace {

torch::Tensor readBatchTensor(const std::shared_ptr<SafetensorsFile>& file, const std::string& name, bool required,
                              bool allowRows = false) {
    const TensorEntry* e = file->find(name);
    if (!e) {
        if (required)
            throw FormatError(file->path().string() + ": tensor '" + name +
                              "' is missing (expected int64 (batch, seq))");
        return {};
    }
    const torch::Dtype dt = toTorchDtype(e->dtype);
    if (!c10::isIntegralType(dt, /*includeBool=*/true))
        throw FormatError(file->path().string() + ": tensor '" + name + "' has dtype " +
                          std::string(dtypeName(e->dtype)) + ", expected an integer type (I64)");
    if (e->shape.size() != 2 && !(allowRows && e->shape.size() == 1))
        throw FormatError(file->path().string() + ": tensor '" + name + "' must be 2-D (batch, seq)" +
                          (allowRows ? " or 1-D (batch) class ids" : "") + ", found " +
                          std::to_string(e->shape.size()) + " dims");
    return loadTensor(file, *e, torch::kInt64);
}

// torch.optim.AdamW (foreach=False) for every parameter, given fresh zero state.
struct AdamW {
    double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01;
    int64_t step = 0;
    std::vector<torch::Tensor> expAvg, expAvgSq;

    void apply(std::vector<NamedTensor>& params) {
        torch::NoGradGuard noGrad;
        if (expAvg.empty())
            for (auto& p : params) {
                expAvg.push_back(torch::zeros_like(p.tensor));
                expAvgSq.push_back(torch::zeros_like(p.tensor));
            }
        ++step;
        const double biasCorrection1 = 1.0 - std::pow(beta1, double(step));
        const double biasCorrection2 = 1.0 - std::pow(beta2, double(step));
        const double stepSize = lr / biasCorrection1;
        const double biasCorrection2Sqrt = std::sqrt(biasCorrection2);
        for (size_t i = 0; i < params.size(); ++i) {
            torch::Tensor& p = params[i].tensor;
            torch::Tensor g = p.grad();
            if (!g.defined()) continue;  // torch skips parameters without a gradient
            p.mul_(1.0 - lr * weightDecay);
            expAvg[i].lerp_(g, 1.0 - beta1);
            expAvgSq[i].mul_(beta2).addcmul_(g, g, 1.0 - beta2);
            torch::Tensor denom = (expAvgSq[i].sqrt() / biasCorrection2Sqrt).add_(eps);
            p.addcdiv_(expAvg[i], denom, -stepSize);
        }
    }
};

}  // namespace

nlohmann::json debugForward(const std::filesystem::path& modelDir, const std::filesystem::path& inputs,
                            const std::filesystem::path& out) {
    ModelLoadOptions opts;
    opts.dtype = torch::kFloat32;
    opts.device = torch::kCPU;
    opts.disableDropout = true;
    std::unique_ptr<LanguageModel> model = loadPretrainedModel(modelDir, opts);
    model->setTraining(true);

    auto batchFile = SafetensorsFile::open(inputs);
    const torch::Tensor inputIds = readBatchTensor(batchFile, "input_ids", true);
    const torch::Tensor labels = readBatchTensor(batchFile, "labels", true, /*allowRows=*/true);
    const torch::Tensor attentionMask = readBatchTensor(batchFile, "attention_mask", false);
    if (labels.dim() == 2 && !labels.sizes().equals(inputIds.sizes()))
        throw FormatError(inputs.string() + ": 'labels' shape " + c10::str(labels.sizes()) +
                          " differs from 'input_ids' " + c10::str(inputIds.sizes()));
    if (attentionMask.defined() && !attentionMask.sizes().equals(inputIds.sizes()))
        throw FormatError(inputs.string() + ": 'attention_mask' shape " + c10::str(attentionMask.sizes()) +
                          " differs from 'input_ids' " + c10::str(inputIds.sizes()));

    auto& params = model->parameters();
    for (auto& p : params) p.tensor.mutable_grad() = torch::Tensor();
    torch::Tensor logits = model->forward(inputIds, attentionMask);
    torch::Tensor loss = model->loss(logits, labels);
    loss.backward();
    const double lossValue = loss.item<double>();

    std::vector<NamedTensor> outputs;
    outputs.push_back({"logits", logits.detach().to(torch::kFloat32)});
    for (auto& p : params) {
        torch::Tensor g = p.tensor.grad();
        outputs.push_back(
            {"grad." + p.name, g.defined() ? g.to(torch::kFloat32) : torch::zeros_like(p.tensor, torch::kFloat32)});
    }
    saveSafetensors(out, outputs, {{"format", "pt"}});

    AdamW opt;
    opt.apply(params);
    double lossAfter = 0.0;
    {
        torch::NoGradGuard noGrad;
        lossAfter = model->loss(model->forward(inputIds, attentionMask), labels).item<double>();
    }
    return nlohmann::json{{"loss", lossValue}, {"loss_after_step", lossAfter}};
}

}  // namespace fts
