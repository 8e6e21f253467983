// The Ollama Modelfile written next to an exported GGUF (`ollama create NAME -f Modelfile`): FROM the file, the chat
// template the model was trained with as an Ollama (Go) template, its stop tokens, the default system prompt, the
// context length. And the same template as Jinja, for the GGUF's tokenizer.chat_template when the model folder has
// none (a base model fine-tuned with data.template).
// Invariant: the Go template renders a conversation to the same text our trainer's renderChat gives it (the turns'
// markers, newlines and system prompt), so the model sees in Ollama what it saw in training.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/data/chat_template.h"

namespace fts::gguf {

struct ModelfileInputs {
    std::string ggufFileName;              // "model-q4_k_m.gguf" (FROM ./NAME)
    std::optional<ChatTemplateKind> chat;  // nullopt: a plain completion model ({{ .Prompt }})
    std::string eosText;                   // the tokenizer's EOS token text (a stop, and Mistral's end of reply)
    int64_t contextLength = 0;             // PARAMETER num_ctx (0: not written)
};

std::string ollamaModelfile(const ModelfileInputs& in);

// The Ollama TEMPLATE for `kind` (Go template syntax) and its stop strings.
std::string ollamaTemplate(ChatTemplateKind kind);
std::vector<std::string> ollamaStops(ChatTemplateKind kind, const std::string& eosText);
// A Jinja chat template equivalent to `kind` (what transformers' apply_chat_template and llama.cpp read).
std::string jinjaChatTemplate(ChatTemplateKind kind, const std::string& eosText);

}  // namespace fts::gguf
