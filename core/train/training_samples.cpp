// Samples generated during training; see training_samples.h.
#include "core/train/training_samples.h"

#include <algorithm>

#include "core/data/chat_template.h"
#include "core/generate/generator.h"
#include "core/generate/model_generation_config.h"
#include "core/generate/stop_tokens.h"
#include "core/model/cached_decoder.h"

namespace fts {

std::unique_ptr<TrainingSamples> TrainingSamples::prepare(const TrainConfig& cfg, const Tokenizer& tokenizer,
                                                          LanguageModel& model, bool wholeWeights, EventSink& events,
                                                          bool leader) {
    const TrainingSection& tr = cfg.training;
    if (tr.samplePrompts.empty()) return nullptr;
    if (!wholeWeights) return nullptr;  // ZeRO stage 3 (ZeroPlan::runsSamples): warned by the config parser
    if (!dynamic_cast<CachedDecoder*>(&model) || model.info().task != ModelTask::CausalLM) {
        if (leader)
            events.log("warn", "training.sample_prompts: " + model.info().architecture +
                                   " does not generate text; the run records no samples");
        return nullptr;
    }
    auto s = std::unique_ptr<TrainingSamples>(new TrainingSamples());
    s->m_tokenizer = &tokenizer;
    s->m_prompts = tr.samplePrompts;
    s->m_interval = tr.sampleEvery();
    s->m_maxNewTokens = tr.sampleMaxNewTokens;
    // What ends a reply: the same rule as generating on the export (replyStopTokenIds).
    std::vector<int64_t> modelEos;
    try {
        modelEos = readModelGenerationConfig(cfg.model.path).eosTokenIds;
    } catch (const std::exception& e) {
        if (leader)
            events.log("warn",
                       std::string("training.sample_prompts: ") + e.what() + "; replies end at the tokenizer's EOS");
    }
    std::optional<ChatTemplateKind> chat;
    if (cfg.data.instructionFormat()) chat = resolveChatTemplate(cfg.data.chatTemplate, cfg.model.path);
    s->m_eos = replyStopTokenIds(modelEos, tokenizer, chat);
    for (const std::string& p : s->m_prompts) {
        const auto ids = chat ? tokenizer.encode(renderGenerationPrompt(*chat, {{"user", p, {}}}), false)
                              : tokenizer.encode(p, true);
        s->m_ids.emplace_back(ids.begin(), ids.end());
        if (s->m_ids.back().empty()) s->m_ids.back().push_back(s->m_eos.empty() ? 0 : s->m_eos.front());
    }
    return s;
}

bool TrainingSamples::due(int64_t step, bool lastStep) const {
    return lastStep || (m_interval > 0 && step % m_interval == 0);
}

void TrainingSamples::publish(LanguageModel& model, int64_t step, EventSink& events, bool publishEvent) const {
    GenerationOptions o;
    o.maxNewTokens = m_maxNewTokens;
    o.eosTokenIds = m_eos;
    o.padTokenId = m_eos.empty() ? 0 : m_eos.front();
    std::vector<GeneratedSequence> out;
    try {
        out = generate(model, m_ids, o);
    } catch (const std::exception& e) {
        model.setTraining(true);
        if (publishEvent)
            events.log("warn",
                       "training.sample_prompts: generation failed at step " + std::to_string(step) + ": " + e.what());
        return;
    }
    model.setTraining(true);
    if (!publishEvent) return;
    SampleEvent e{step, {}};
    for (size_t i = 0; i < out.size(); ++i) {
        std::vector<int32_t> ids(out[i].ids.begin(), out[i].ids.end());
        e.samples.push_back({int(i), m_prompts[i], m_tokenizer->decode(ids, true)});
    }
    events.publishEvent(std::move(e));
}

}  // namespace fts
