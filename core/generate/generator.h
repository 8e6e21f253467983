// Text generation from a causal LM with a KV cache, as transformers' generate() does it: prompts left-padded into
// one batch (each row's positions start at 0 at its first token), the prompt run once, then one token per step
// through the cache; greedy or sampled (logits_processing.h); a row ends at an EOS id, when onToken asks (a stop
// string), at max new tokens or at the end of the model's context. Finished rows leave the batch.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/generate/logits_processing.h"
#include "core/model/language_model.h"

namespace fts {

struct GenerationOptions {
    int64_t maxNewTokens = 256;
    SamplingSettings sampling;
    uint64_t seed = 0;                 // the sampling generator's seed (CPU generator: the same tokens on any device)
    std::vector<int64_t> eosTokenIds;  // a row that produces one of these ends (the id is part of its output)
    int64_t padTokenId = 0;            // the input id at padding positions (masked; the repetition penalty sees it)
    bool useCache = true;              // false: every step runs the whole sequence again (a reference for tests)
    // After each step, for every row still running: its new token. Return true to end that row (a stop string).
    std::function<bool(size_t row, int64_t token)> onToken;
    // Set from any thread to end generation after the current step (the studio's Stop).
    const std::atomic<bool>* cancel = nullptr;
};

enum class FinishReason { Eos, StopString, MaxNewTokens, Context, Cancelled };
std::string finishReasonName(FinishReason r);  // "eos", "stop_string", "length", "context", "cancelled"

struct GeneratedSequence {
    std::vector<int64_t> ids;  // the new tokens only
    FinishReason finish = FinishReason::MaxNewTokens;
};

// Generates for every prompt (token ids, none empty). Throws fts::Error when the model cannot generate (not a
// causal LM with a KV cache), a prompt is empty, or a prompt fills the model's context (max_position_embeddings).
std::vector<GeneratedSequence> generate(LanguageModel& model, const std::vector<std::vector<int64_t>>& prompts,
                                        const GenerationOptions& options);

}  // namespace fts
