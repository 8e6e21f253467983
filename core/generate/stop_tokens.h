// The token ids that end a generated reply, one rule for `fts generate`, `fts chat`, the studio's Chat page and the
// samples a training run records (so a sample equals what generating on the export gives).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/data/chat_template.h"

namespace fts {

class Tokenizer;

// The model folder's EOS ids (generation_config.json, else config.json: transformers' generate() stops at these),
// else the tokenizer's EOS; then the chat template's end-of-turn token when it is another id (LLaMA-Factory stops
// its templates' replies at the same words). The first id is the EOS (the usual padding id).
std::vector<int64_t> replyStopTokenIds(const std::vector<int64_t>& modelEosIds, const Tokenizer& tokenizer,
                                       std::optional<ChatTemplateKind> chat);

}  // namespace fts
