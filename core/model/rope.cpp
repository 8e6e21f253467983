// RoPE (see rope.h): the frequency formulas of transformers 5.23's modeling_rope_utils (default, linear, dynamic,
// llama3, longrope, yarn), evaluated in float32 tensors; the parameters come from core/arch/rope_parameters.
#include "core/model/rope.h"

#include <cmath>
#include <numbers>

namespace fts {

torch::Tensor ropeInverseFrequencies(const RopeConfig& rope, int64_t seqLen, const torch::Device& device) {
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    const torch::Tensor exponent =
        torch::arange(0, rope.dim, 2, f32.dtype(torch::kInt64)).to(torch::kFloat32) / double(rope.dim);
    torch::Tensor base = torch::full({}, rope.theta, f32);
    if (rope.type == "dynamic" && seqLen > rope.maxPositions) {
        // base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2)), float32 as transformers' tensor math
        torch::Tensor s = torch::full({}, seqLen, f32.dtype(torch::kInt64));
        torch::Tensor ratio = (s * rope.factor / double(rope.maxPositions)) - (rope.factor - 1.0);
        base = base * ratio.pow(double(rope.dim) / double(rope.dim - 2));
    }
    torch::Tensor invFreq = 1.0 / base.pow(exponent.to(device));
    if (rope.type == "longrope") {  // 1 / (ext_factors * base ** exponent); long factors beyond the original length
        const std::vector<double>& f = seqLen > rope.originalMaxPositions ? rope.longFactor : rope.shortFactor;
        const torch::Tensor ext = torch::tensor(f, torch::TensorOptions().dtype(torch::kFloat64)).to(f32);
        invFreq = 1.0 / (ext * base.pow(exponent.to(device)));
    }
    if (rope.type == "linear") invFreq = invFreq / rope.factor;
    if (rope.type == "yarn") {  // interpolated frequencies below the ramp, extrapolated above, blended along it
        const torch::Tensor posFreqs = base.pow(exponent.to(device));
        const torch::Tensor extrapolated = 1.0 / posFreqs, interpolated = 1.0 / (rope.factor * posFreqs);
        const double dim = double(rope.dim), original = double(rope.originalMaxPositions);
        auto correctionDim = [&](double rotations) {
            return dim * std::log(original / (rotations * 2 * std::numbers::pi)) / (2 * std::log(rope.theta));
        };
        double low = correctionDim(rope.betaFast), high = correctionDim(rope.betaSlow);
        if (rope.truncate) low = std::floor(low), high = std::ceil(high);
        low = std::max(low, 0.0);
        high = std::min(high, dim - 1);
        if (low == high) high += 0.001;
        const torch::Tensor ramp =
            ((torch::arange(rope.dim / 2, f32.dtype(torch::kInt64)).to(torch::kFloat32) - low) / (high - low))
                .clamp(0, 1);
        const torch::Tensor extrapolationFactor = 1 - ramp;
        invFreq = interpolated * (1 - extrapolationFactor) + extrapolated * extrapolationFactor;
    }
    if (rope.type == "llama3") {
        const double oldLen = double(rope.originalMaxPositions);
        const double lowWavelen = oldLen / rope.lowFreqFactor, highWavelen = oldLen / rope.highFreqFactor;
        torch::Tensor wavelen = 2 * std::numbers::pi / invFreq;
        torch::Tensor scaled = torch::where(wavelen > lowWavelen, invFreq / rope.factor, invFreq);
        torch::Tensor smooth = (oldLen / wavelen - rope.lowFreqFactor) / (rope.highFreqFactor - rope.lowFreqFactor);
        torch::Tensor smoothed = (1 - smooth) * scaled / rope.factor + smooth * scaled;
        torch::Tensor medium = (wavelen < highWavelen).logical_not().logical_and((wavelen > lowWavelen).logical_not());
        invFreq = torch::where(medium, smoothed, scaled);
    }
    return invFreq;
}

std::pair<torch::Tensor, torch::Tensor> ropeCosSin(const RopeConfig& rope, int64_t seqLen,
                                                   const torch::Device& device) {
    c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);
    torch::NoGradGuard noGrad;
    const torch::Tensor invFreq = ropeInverseFrequencies(rope, seqLen, device);
    const torch::Tensor pos =
        torch::arange(seqLen, torch::TensorOptions().dtype(torch::kInt64).device(device)).to(torch::kFloat32);
    const torch::Tensor freqs = pos.unsqueeze(1) * invFreq.unsqueeze(0);  // (T, dim/2): the outer product of the matmul
    const torch::Tensor emb = torch::cat({freqs, freqs}, -1);
    if (rope.attentionFactor != 1.0)  // longrope, yarn: cos and sin scaled in float32
        return {emb.cos() * rope.attentionFactor, emb.sin() * rope.attentionFactor};
    return {emb.cos(), emb.sin()};
}

}  // namespace fts
