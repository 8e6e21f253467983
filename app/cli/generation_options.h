// The options `fts generate` and `fts chat` share (transformers' generate() names), registered on a CLI11 command.
#pragma once
#include <CLI/CLI.hpp>

#include <memory>

#include "core/generate/generation_session.h"

namespace fts::cli {

struct GenerationCliOptions {
    GenerationSessionOptions session;
    SamplingRequest sampling;
    std::string system;  // a system message for chat prompts
};

// Adds --model, --adapter, --merge_adapter, --tokenizer, --dtype, --device, --chat_template, --max_new_tokens,
// --do_sample, --temperature, --top_k, --top_p, --repetition_penalty, --seed, --stop, --system.
void addGenerationOptions(CLI::App& cmd, const std::shared_ptr<GenerationCliOptions>& o);

}  // namespace fts::cli
