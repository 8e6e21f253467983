// One decoder for every family core/arch describes (Llama, Mistral, Qwen2/3, Gemma 2/3, Phi-3, OLMo 2): a block is
// composed from the family's description (norms, attention with optional q/k norms, soft-capping and partial
// rotary, residuals, optional post-norms, gated MLP) and finds its parameters by role. Invariant: parameters carry HF
// names in named_parameters() order (core/arch/decoder_arch.h: decoderTensors); a tied lm_head is not a parameter.
#pragma once
#include <memory>

#include "core/arch/decoder_arch.h"
#include "core/model/hf_model.h"

namespace fts {

std::unique_ptr<HfModel> buildDecoder(const HfConfig& config, const ModelLoadOptions& opts);

}  // namespace fts
