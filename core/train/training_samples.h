// training.sample_prompts: texts generated (greedy) from the weights as the run trains, so a user sees the replies
// change. Every rank generates at step 0 (before training, as the eval baseline) and every sample_interval steps, and
// publishes them as a "sample" event ({step, samples: [{index, prompt, text}]}) that the store keeps.
// Instruction-data runs render each prompt as a user turn with the run's chat template; LM runs use it as text.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/train_config.h"
#include "core/data/tokenizer.h"
#include "core/model/language_model.h"
#include "core/events/event_sink.h"

namespace fts {

class TrainingSamples {
public:
    // nullptr when the config has no prompts, or (logged as a warning naming the key) when this run cannot sample:
    // no rank holds whole weights (wholeWeights false: ZeroPlan::runsSamples, stage 3) or a model that does not
    // generate.
    static std::unique_ptr<TrainingSamples> prepare(const TrainConfig& cfg, const Tokenizer& tokenizer,
                                                    LanguageModel& model, bool wholeWeights, EventSink& events,
                                                    bool leader);
    bool due(int64_t step, bool lastStep) const;
    // Generates from the model as it is now (eval mode, no grad; under the caller's autocast) and publishes the
    // texts; the model is put back into training mode. A generation error is logged, not thrown.
    // publishEvent: rank 0 publishes; the others generate the same texts and drop them.
    void publish(LanguageModel& model, int64_t step, EventSink& events, bool publishEvent) const;

private:
    const Tokenizer* m_tokenizer = nullptr;
    std::vector<std::string> m_prompts;
    std::vector<std::vector<int64_t>> m_ids;
    std::vector<int64_t> m_eos;
    int64_t m_interval = 0, m_maxNewTokens = 64;
};

}  // namespace fts
