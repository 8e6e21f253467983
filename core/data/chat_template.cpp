// The four templates written out as the models' own Jinja templates render them (system prompts,
// BOS text, whitespace). Alpaca "input" messages are merged into the preceding user turn ("\n\n")
// for the chat templates and become the "### Input:" block for Alpaca.
#include "core/data/chat_template.h"

#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace fts {
namespace {

const char* const kAlpacaPrompt =
    "Below is an instruction that describes a task. Write a response that appropriately completes the "
    "request.\n\n";
const char* const kAlpacaPromptInput =
    "Below is an instruction that describes a task, paired with an input that provides further context. "
    "Write a response that appropriately completes the request.\n\n";

std::string trim(const std::string& s) {
    const auto notSpace = [](unsigned char c) { return !(c == ' ' || c == '\t' || c == '\n' || c == '\r'); };
    auto b = std::find_if(s.begin(), s.end(), notSpace);
    auto e = std::find_if(s.rbegin(), s.rend(), notSpace).base();
    return b < e ? std::string(b, e) : std::string();
}

// Chat-template view: "input" merged into the user turn before it; roles validated.
std::vector<ChatMessage> normalizeMessages(const std::vector<ChatMessage>& messages) {
    std::vector<ChatMessage> out;
    for (const ChatMessage& m : messages) {
        if (m.role == "input") {
            if (out.empty() || out.back().role != "user")
                throw FormatError("chat: an \"input\" message must follow a user message");
            if (!m.content.empty()) out.back().content += "\n\n" + m.content;
            continue;
        }
        if (m.role != "system" && m.role != "user" && m.role != "assistant")
            throw FormatError("chat: unknown role '" + m.role + "' (expected system, user or assistant)");
        out.push_back(m);
    }
    return out;
}

void add(std::vector<RenderedSegment>& segs, const std::string& text, bool trainable) {
    if (text.empty()) return;
    if (!segs.empty() && segs.back().trainable == trainable)
        segs.back().text += text;
    else
        segs.push_back({text, trainable});
}

std::vector<RenderedSegment> render(ChatTemplateKind kind, const std::vector<ChatMessage>& raw, bool generation) {
    std::vector<RenderedSegment> segs;
    if (kind == ChatTemplateKind::Alpaca) {
        std::string instruction, input, system;
        for (size_t i = 0; i < raw.size(); ++i) {
            const ChatMessage& m = raw[i];
            if (m.role == "system") {
                system = m.content;
            } else if (m.role == "user") {
                instruction = m.content;
                input.clear();
            } else if (m.role == "input") {
                input = m.content;
            } else if (m.role == "assistant") {
                std::string prompt = system.empty() ? (input.empty() ? kAlpacaPrompt : kAlpacaPromptInput) : system + "\n\n";
                prompt += "### Instruction:\n" + instruction + "\n\n";
                if (!input.empty()) prompt += "### Input:\n" + input + "\n\n";
                prompt += "### Response:\n";
                add(segs, prompt, false);
                add(segs, m.content, true);
            } else {
                throw FormatError("chat: unknown role '" + m.role + "' (expected system, user, input or assistant)");
            }
        }
        if (generation) {
            std::string prompt = system.empty() ? (input.empty() ? kAlpacaPrompt : kAlpacaPromptInput) : system + "\n\n";
            prompt += "### Instruction:\n" + instruction + "\n\n";
            if (!input.empty()) prompt += "### Input:\n" + input + "\n\n";
            add(segs, prompt + "### Response:\n", false);
        }
        return segs;
    }
    const std::vector<ChatMessage> messages = normalizeMessages(raw);
    switch (kind) {
        case ChatTemplateKind::ChatML:
            for (const ChatMessage& m : messages) {
                add(segs, "<|im_start|>" + m.role + "\n", false);
                if (m.role == "assistant") {
                    add(segs, m.content + "<|im_end|>", true);
                    add(segs, "\n", false);
                } else {
                    add(segs, m.content + "<|im_end|>\n", false);
                }
            }
            if (generation) add(segs, "<|im_start|>assistant\n", false);
            break;
        case ChatTemplateKind::Llama3:
            add(segs, "<|begin_of_text|>", false);
            for (const ChatMessage& m : messages) {
                add(segs, "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n", false);
                add(segs, trim(m.content) + "<|eot_id|>", m.role == "assistant");
            }
            if (generation) add(segs, "<|start_header_id|>assistant<|end_header_id|>\n\n", false);
            break;
        case ChatTemplateKind::Mistral: {
            // Mistral-7B-Instruct: a system prompt is prepended to the first user turn.
            add(segs, "<s>", false);
            std::string system;
            bool first = true;
            for (const ChatMessage& m : messages) {
                if (m.role == "system") {
                    system = m.content;
                } else if (m.role == "user") {
                    std::string content = m.content;
                    if (first && !system.empty()) content = system + "\n\n" + content;
                    first = false;
                    add(segs, "[INST] " + content + " [/INST]", false);
                } else {
                    add(segs, m.content + "</s>", true);
                }
            }
            break;
        }
        case ChatTemplateKind::None:
            for (const ChatMessage& m : messages) add(segs, m.content, m.role == "assistant");
            break;
        case ChatTemplateKind::Alpaca: break;
    }
    return segs;
}

}  // namespace

ChatTemplateKind chatTemplateFromName(const std::string& name) {
    if (name == "chatml" || name == "qwen") return ChatTemplateKind::ChatML;
    if (name == "llama3" || name == "llama-3") return ChatTemplateKind::Llama3;
    if (name == "mistral" || name == "llama2" || name == "llama-2" || name == "inst") return ChatTemplateKind::Mistral;
    if (name == "alpaca") return ChatTemplateKind::Alpaca;
    if (name == "none") return ChatTemplateKind::None;
    throw FormatError("data.template: unknown template '" + name +
                      "' (expected auto, chatml, llama3, mistral, alpaca or none)");
}

std::string chatTemplateName(ChatTemplateKind kind) {
    switch (kind) {
        case ChatTemplateKind::ChatML: return "chatml";
        case ChatTemplateKind::Llama3: return "llama3";
        case ChatTemplateKind::Mistral: return "mistral";
        case ChatTemplateKind::Alpaca: return "alpaca";
        case ChatTemplateKind::None: return "none";
    }
    return "?";
}

std::optional<ChatTemplateKind> detectChatTemplate(const std::filesystem::path& modelDir) {
    std::error_code ec;
    const auto readJson = [&](const std::filesystem::path& p) -> nlohmann::json {
        if (!std::filesystem::is_regular_file(p, ec)) return nullptr;
        try {
            return nlohmann::json::parse(readFile(p));
        } catch (const nlohmann::json::exception& e) {
            throw FormatError(p.string() + ": not valid JSON: " + e.what());
        }
    };
    const nlohmann::json tc = readJson(modelDir / "tokenizer_config.json");
    if (tc.is_object() && tc.contains("chat_template") && tc["chat_template"].is_string()) {
        const std::string t = tc["chat_template"].get<std::string>();
        if (t.find("<|im_start|>") != std::string::npos) return ChatTemplateKind::ChatML;
        if (t.find("<|start_header_id|>") != std::string::npos) return ChatTemplateKind::Llama3;
        if (t.find("[INST]") != std::string::npos) return ChatTemplateKind::Mistral;
        if (t.find("### Instruction") != std::string::npos) return ChatTemplateKind::Alpaca;
    }
    const nlohmann::json cfg = readJson(modelDir / "config.json");
    if (cfg.is_object() && cfg.contains("model_type") && cfg["model_type"].is_string()) {
        const std::string type = cfg["model_type"].get<std::string>();
        if (type.rfind("qwen", 0) == 0) return ChatTemplateKind::ChatML;
        if (type == "llama") return ChatTemplateKind::Llama3;
        if (type == "mistral" || type == "mixtral") return ChatTemplateKind::Mistral;
    }
    return std::nullopt;
}

std::vector<RenderedSegment> renderChat(ChatTemplateKind kind, const std::vector<ChatMessage>& messages) {
    const bool hasAssistant =
        std::any_of(messages.begin(), messages.end(), [](const ChatMessage& m) { return m.role == "assistant"; });
    if (!hasAssistant) throw FormatError("chat: the conversation has no assistant message to learn from");
    return render(kind, messages, false);
}

std::string renderGenerationPrompt(ChatTemplateKind kind, const std::vector<ChatMessage>& messages) {
    if (kind == ChatTemplateKind::Mistral) {
        std::string out;
        for (const RenderedSegment& s : render(kind, messages, false)) out += s.text;
        return out;
    }
    std::string out;
    for (const RenderedSegment& s : render(kind, messages, true)) out += s.text;
    return out;
}

}  // namespace fts
