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

// A function call of an assistant turn, as the Qwen templates print it: {"name": NAME, "arguments": ARGUMENTS}.
struct ToolCall {
    std::string name;
    std::string argumentsJson;     // the arguments as the template's tojson prints them (python_json.h)
    bool argumentsIsText = false;  // given as a JSON string: Qwen3-style ChatML prints argumentsText as it is
    std::string argumentsText;
};

struct ChatMessage {
    // system, user, assistant; "input" (Alpaca's optional input, follows a user turn); "tool" (a function's
    // result, ShareGPT's observation); "tools" (the conversation's tool definitions: content holds one JSON
    // object per line as the template prints them; it renders in the system turn)
    std::string role;
    std::string content;
    std::vector<ToolCall> toolCalls;  // assistant turns: the calls after the content (ShareGPT's function_call)
};

// ChatML: plain ChatML (no default system prompt, no thinking). Qwen25: Qwen2.5's ChatML with its default system prompt
// ("You are Qwen, created by Alibaba Cloud. You are a helpful assistant."). Both render tools and tool calls.
// None: the contents concatenated as they are (LLaMA-Factory's "empty" template), EOS after each reply.
// Gemma: Gemma 2 / 3's <start_of_turn> turns (a system prompt goes before the first user turn, as Gemma 3's template
// puts it). Phi3: Phi-3 / 3.5's <|user|> turns, one per line. Phi4Mini: the same without the newlines (Phi-4-mini).
// Qwen3: ChatML as Qwen3's own template renders it, thinking included: an assistant turn after the last user message
// carries its <think> block (the content's <think>...</think>, or an empty one on the last turn); earlier turns drop
// their reasoning.
enum class ChatTemplateKind { ChatML, Llama3, Mistral, Alpaca, None, Qwen25, Gemma, Phi3, Phi4Mini, Qwen3 };

struct RenderedSegment {
    std::string text;
    bool trainable = false;
};

// "chatml" (also "qwen"), "qwen3", "qwen2.5" (also "qwen2"), "llama3", "mistral" (also "llama2", "inst"), "gemma"
// (also "gemma2", "gemma3"), "phi3" (also "phi3.5"), "phi4-mini", "alpaca", "none"; else FormatError listing the names.
ChatTemplateKind chatTemplateFromName(const std::string& name);
std::string chatTemplateName(ChatTemplateKind kind);

// The template a model uses, from its folder: tokenizer_config.json's chat_template markers
// (<|im_start|>, <|start_header_id|>, [INST], <start_of_turn>, <|user|>, Phi-4-mini's '<|' + role + '|>') first, else
// config.json's model_type (qwen*, llama, mistral/mixtral, gemma*, phi3); nullopt when neither tells.
std::optional<ChatTemplateKind> detectChatTemplate(const std::filesystem::path& modelDir);

// Renders a conversation. Throws FormatError for an unknown role, a conversation without an assistant turn,
// or tools / tool calls / tool results under a template that has no way to print them (only the Qwen ChatML
// ones do). Tool calls are trained on like replies; tool results are prompt. The BOS text of Llama 3 / Mistral is part of the first segment; Alpaca's EOS is
// not text (the dataset appends the tokenizer's EOS id to each trainable reply of Alpaca and None).
std::vector<RenderedSegment> renderChat(ChatTemplateKind kind, const std::vector<ChatMessage>& messages);

// data.template as a run resolves it: a name (chatTemplateFromName), or "auto": the model folder's template
// (detectChatTemplate), else ChatML.
ChatTemplateKind resolveChatTemplate(const std::string& name, const std::filesystem::path& modelDir);

// The prompt for generating the next assistant turn (messages must not end with one).
std::string renderGenerationPrompt(ChatTemplateKind kind, const std::vector<ChatMessage>& messages);

// The special token that ends an assistant turn: <|im_end|> (ChatML, Qwen2.5), <|eot_id|> (Llama 3); nullptr where
// the template ends a reply with the tokenizer's EOS (generation stops on it: core/generate).
const char* endOfTurnToken(ChatTemplateKind kind);

}  // namespace fts
