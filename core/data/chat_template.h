// Conversations and the built-in chat templates that turn them into training text: ChatML (Qwen),
// Llama 3, Mistral / Llama-2 [INST], Alpaca. Rendering yields segments flagged trainable (the
// assistant's replies and their end-of-turn marker) or not (everything the model is given), so the
// loss can be restricted to responses. Invariant: concatenating the segments gives exactly the text
// the model's own chat template renders (checked against transformers' apply_chat_template).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fts {

struct ChatMessage {
    std::string role;  // system, user, assistant; "input" (Alpaca's optional input, follows a user turn)
    std::string content;
};

// None: the contents concatenated as they are (LLaMA-Factory's "empty" template), EOS after each reply.
enum class ChatTemplateKind { ChatML, Llama3, Mistral, Alpaca, None };

struct RenderedSegment {
    std::string text;
    bool trainable = false;
};

// "chatml" (also "qwen"), "llama3", "mistral" (also "llama2", "inst"), "alpaca", "none"; else FormatError
// listing the names.
ChatTemplateKind chatTemplateFromName(const std::string& name);
std::string chatTemplateName(ChatTemplateKind kind);

// The template a model uses, from its folder: tokenizer_config.json's chat_template markers
// (<|im_start|>, <|start_header_id|>, [INST]) first, else config.json's model_type (qwen*, llama,
// mistral/mixtral); nullopt when neither tells.
std::optional<ChatTemplateKind> detectChatTemplate(const std::filesystem::path& modelDir);

// Renders a conversation. Throws FormatError for an unknown role or a conversation without an
// assistant turn. The BOS text of Llama 3 / Mistral is part of the first segment; Alpaca's EOS is
// not text (the dataset appends the tokenizer's EOS id to each trainable reply of Alpaca and None).
std::vector<RenderedSegment> renderChat(ChatTemplateKind kind, const std::vector<ChatMessage>& messages);

// The prompt for generating the next assistant turn (messages must not end with one).
std::string renderGenerationPrompt(ChatTemplateKind kind, const std::vector<ChatMessage>& messages);

}  // namespace fts
