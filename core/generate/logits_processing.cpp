// transformers' logits processors and warpers (generation/logits_process.py), op for op; see logits_processing.h.
#include "core/generate/logits_processing.h"

#include <limits>

namespace fts {

torch::Tensor applyRepetitionPenalty(const torch::Tensor& logits, const torch::Tensor& sequences, double penalty) {
    if (penalty == 1.0) return logits;
    const torch::Tensor ids = sequences.to(logits.device(), torch::kInt64);
    torch::Tensor score = logits.gather(1, ids);
    score = torch::where(score < 0, score * penalty, score / penalty);
    return logits.scatter(1, ids, score);
}

torch::Tensor applyTemperature(const torch::Tensor& logits, double temperature) {
    return temperature == 1.0 ? logits : logits / temperature;
}

torch::Tensor applyTopK(const torch::Tensor& logits, int64_t k) {
    if (k <= 0) return logits;
    k = std::min<int64_t>(k, logits.size(-1));
    const torch::Tensor kth = std::get<0>(logits.topk(k, -1)).narrow(-1, k - 1, 1);
    return logits.masked_fill(logits < kth, -std::numeric_limits<float>::infinity());
}

torch::Tensor applyTopP(const torch::Tensor& logits, double topP) {
    if (topP >= 1.0) return logits;
    auto [sorted, order] = logits.sort(-1, /*descending=*/false);
    const torch::Tensor cumulative = sorted.softmax(-1).cumsum(-1);
    torch::Tensor removeSorted = cumulative <= (1.0 - topP);
    removeSorted.narrow(-1, removeSorted.size(-1) - 1, 1).fill_(false);  // keep at least the most probable token
    const torch::Tensor remove = removeSorted.scatter(1, order, removeSorted);
    return logits.masked_fill(remove, -std::numeric_limits<float>::infinity());
}

torch::Tensor processLogits(const torch::Tensor& logits, const torch::Tensor& sequences, const SamplingSettings& s) {
    torch::Tensor x = applyRepetitionPenalty(logits, sequences, s.repetitionPenalty);
    if (!s.doSample) return x;
    x = applyTemperature(x, s.temperature);
    x = applyTopK(x, s.topK);
    return applyTopP(x, s.topP);
}

torch::Tensor pickNextTokens(const torch::Tensor& processed, bool doSample, at::Generator& gen) {
    if (!doSample) return processed.argmax(-1);
    // Drawn on the CPU with a CPU generator, so a seed gives the same tokens on any device.
    const torch::Tensor probs = processed.to(torch::kCPU, torch::kFloat32).softmax(-1);
    return torch::multinomial(probs, 1, false, gen).squeeze(1).to(processed.device());
}

}  // namespace fts
