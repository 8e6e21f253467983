// KTO's unpaired examples as TRL 1.16's KTOTrainer builds them: prompt / completion / label rows (text or messages),
// or preference pairs unpaired (each chunk of 1000 rows gives its chosen completions as desirable, then its rejected
// ones as undesirable, as TRL's unpair_preference_dataset does); tokenized as DPO does (a prompt filling max_length
// drops the example; sequences cut at their end); each example's KL sequence is its prompt followed by the
// completion of the example before it in its chunk of `klChunk` examples (the chunk's first takes its last), TRL's
// mismatched pairs for the KL estimate. Invariant: the same files, tokenizer, options and seed give the same
// examples; bad rows are counted with their lines.
#pragma once
#include <cstdint>
#include <vector>

#include "core/data/preference_pairs.h"

namespace fts {

struct UnpairedExample {
    PairSequence sequence;  // prompt + completion
    PairSequence kl;        // prompt + another example's completion (no gradient: the KL estimate)
    bool desirable = true;  // label
    int64_t line = 0;
};

struct UnpairedData {
    std::vector<UnpairedExample> train, eval;
    PreferenceStats stats;  // pairs = examples here
    int64_t desirable = 0, undesirable = 0;
};

// options.layout: Auto or Trl (prompt / completion / label, or prompt / chosen / rejected to unpair), Alpaca and
// ShareGpt ranking rows are unpaired too. klChunk: the micro-batch (TRL pairs within per_device_train_batch_size).
UnpairedData buildUnpairedData(const PreferenceOptions& options, const Tokenizer& tokenizer, int64_t klChunk);

}  // namespace fts
