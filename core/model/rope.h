// Rotary position embeddings as transformers computes them: inverse frequencies for rope types default, linear,
// dynamic (NTK) and llama3, read from config.json's rope_parameters (transformers 5) or rope_scaling + rope_theta (4.x);
// a non-empty rope_scaling wins over rope_parameters when both are present, as in transformers 5.23.
// Invariant: frequencies and cos/sin are computed in float32 (autocast off) exactly as transformers' formulas do.
#pragma once
#include <string>

#include "core/arch/rope_parameters.h"
#include "core/model/hf_model.h"

namespace fts {

// inv_freq (dim/2) float32 for a forward over `seqLen` positions (dynamic NTK rescales beyond max positions).
torch::Tensor ropeInverseFrequencies(const RopeConfig& rope, int64_t seqLen, const torch::Device& device);

// cos, sin (T, dim) float32 for positions 0..T-1 (emb = cat(freqs, freqs)).
std::pair<torch::Tensor, torch::Tensor> ropeCosSin(const RopeConfig& rope, int64_t seqLen, const torch::Device& device);

}  // namespace fts
