// Generation behind a LibTorch-free interface, for `fts generate`, `fts chat` and the studio's chat process: opens a
// model folder (generation_model.h), turns texts or conversations into prompt ids, resolves the sampling settings
// (the user's, else the folder's generation_config.json, else transformers' defaults) and generates with the text
// streamed as it comes.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data/chat_template.h"

namespace fts {

struct GenerationSessionOptions {
    std::filesystem::path model;              // a model, checkpoint or PEFT adapter folder
    std::filesystem::path adapter;            // a PEFT adapter for the model (empty: none)
    bool mergeAdapter = false;                // merge it into the weights
    std::filesystem::path tokenizer;          // tokenizer.json (empty: the folder's, else the base model's)
    std::string dtype = "float32";            // float32, bfloat16, float16
    std::string device = "auto";              // auto (the first CUDA device, else the CPU), cpu, cuda, cuda:N
    std::optional<std::string> chatTemplate;  // a built-in template name (chat_template.h); empty: the model's
    // QLoRA's base: the linear layers quantized to bitsandbytes' 4-bit format as they load (BitsAndBytesConfig's
    // load_in_4bit / bnb_4bit_quant_type / bnb_4bit_use_double_quant; products in `dtype`), so an adapter trained
    // over a 4-bit base runs over the same weights. A folder saved 4-bit loads 4-bit without it.
    bool loadIn4bit = false;
    std::string quantType = "fp4";  // "nf4" or "fp4" (BitsAndBytesConfig's default)
    bool doubleQuant = false;
};

// What the user set; unset fields take the model folder's generation_config.json, then transformers' defaults
// (max_new_tokens 256 here, where transformers stops at max_length 20: docs/generate.md).
struct SamplingRequest {
    std::optional<int64_t> maxNewTokens;
    bool doSample = false;  // greedy unless asked (generation_config.json's do_sample is reported, not followed)
    std::optional<double> temperature, topP, repetitionPenalty;
    std::optional<int64_t> topK;
    uint64_t seed = 0;
    std::vector<std::string> stopStrings;
};

struct Completion {
    std::vector<int64_t> ids;  // the new tokens
    std::string text;          // decoded without special tokens
    std::string finishReason;  // eos, stop_string, length, context, cancelled
};

// What is loaded, for a status line (the studio formats it in its own language).
struct GenerationSessionInfo {
    std::string architecture;  // "Qwen2ForCausalLM"
    int64_t parameters = 0;
    std::string dtype;    // float32, bfloat16, float16
    std::string device;   // cpu, cuda:0
    std::string adapter;  // the LoRA adapter folder's name, empty without one
};

class GenerationSession {
public:
    // Throws fts::Error naming the folder or file at fault.
    static std::unique_ptr<GenerationSession> open(const GenerationSessionOptions& options);
    virtual ~GenerationSession() = default;

    // A plain prompt: the tokenizer's encoding with its special tokens (as tokenizer(text) in transformers).
    virtual std::vector<int64_t> encodeText(const std::string& text) const = 0;
    // A conversation rendered by the chat template with the assistant's turn opened (add_generation_prompt).
    // Throws fts::Error when the model has no chat template we know.
    virtual std::vector<int64_t> encodeChat(const std::vector<ChatMessage>& messages) const = 0;
    virtual std::optional<ChatTemplateKind> chatTemplate() const = 0;
    virtual void setChatTemplate(ChatTemplateKind kind) = 0;  // e.g. "none" for a model that has no template

    // Lines about settings the folder asked for and this run does not follow (printed by the CLI on stderr).
    virtual std::vector<std::string> notes(const SamplingRequest& request) const = 0;
    // Generates for every prompt in one batch. onText(prompt index, text) receives each piece of text as it becomes
    // final; cancel (optional) ends generation after the current token.
    virtual std::vector<Completion> generate(const std::vector<std::vector<int64_t>>& prompts,
                                             const SamplingRequest& request,
                                             const std::function<void(size_t, const std::string&)>& onText = {},
                                             const std::atomic<bool>* cancel = nullptr) = 0;
    virtual GenerationSessionInfo info() const = 0;
    std::string describe() const;  // info() in English: "Qwen2ForCausalLM, 0.5B parameters, bfloat16 on cuda:0"
};

}  // namespace fts
