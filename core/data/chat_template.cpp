// The built-in templates written out as the models' own Jinja templates render them (system prompts,
// BOS text, whitespace). Alpaca "input" messages are merged into the preceding user turn ("\n\n")
// for the chat templates and become the "### Input:" block for Alpaca.
#include "core/data/chat_template.h"

#include "core/arch/decoder_family.h"

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

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

const char* const kQwen25DefaultSystem = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";
const char* const kToolsIntro =
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function "
    "signatures within <tools></tools> XML tags:\n<tools>";
const char* const kToolsOutro =
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
    "<args-json-object>}\n</tool_call><|im_end|>\n";

bool isQwenChatML(ChatTemplateKind k) {
    return k == ChatTemplateKind::ChatML || k == ChatTemplateKind::Qwen25 || k == ChatTemplateKind::Qwen3;
}

std::string stripNewlines(const std::string& s, bool left, bool right) {
    size_t b = 0, e = s.size();
    while (left && b < e && s[b] == '\n') ++b;
    while (right && e > b && s[e - 1] == '\n') --e;
    return s.substr(b, e - b);
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
        if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool" && m.role != "tools")
            throw FormatError("chat: unknown role '" + m.role + "' (expected system, user, assistant or tool)");
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

// Qwen's ChatML templates (Qwen2.5's and Qwen3's tokenizer_config.json chat_template), tools included: the tool
// definitions go into the system turn, each call of an assistant turn is a <tool_call> block after its content,
// and consecutive tool results share one user turn of <tool_response> blocks.
void renderQwenChatML(ChatTemplateKind kind, const std::vector<ChatMessage>& all, bool generation,
                      std::vector<RenderedSegment>& segs) {
    std::string tools;
    std::vector<ChatMessage> messages;
    for (const ChatMessage& m : all) {
        if (m.role == "tools")
            tools += m.content.empty() ? "" : (tools.empty() ? "" : "\n") + m.content;
        else
            messages.push_back(m);
    }
    const bool firstIsSystem = !messages.empty() && messages[0].role == "system";
    const bool qwen25 = kind == ChatTemplateKind::Qwen25;
    size_t start = 0;
    if (!tools.empty()) {
        std::string system = "<|im_start|>system\n";
        if (firstIsSystem)
            system += messages[0].content + "\n\n";
        else if (qwen25)
            system += std::string(kQwen25DefaultSystem) + "\n\n";
        std::string list;
        size_t from = 0;
        for (size_t nl; from <= tools.size(); from = nl + 1) {  // one tool per line
            nl = tools.find('\n', from);
            if (nl == std::string::npos) nl = tools.size();
            if (nl > from) list += "\n" + tools.substr(from, nl - from);
        }
        add(segs, system + kToolsIntro + list + kToolsOutro, false);
        start = firstIsSystem ? 1 : 0;
    } else if (qwen25 && !firstIsSystem) {
        add(segs, std::string("<|im_start|>system\n") + kQwen25DefaultSystem + "<|im_end|>\n", false);
    }
    size_t lastQuery = messages.empty() ? 0 : messages.size() - 1;  // Qwen3's ns.last_query_index
    for (size_t i = messages.size(); i-- > 0;)
        if (messages[i].role == "user") {
            lastQuery = i;
            break;
        }
    for (size_t i = start; i < messages.size(); ++i) {
        const ChatMessage& m = messages[i];
        if (m.role == "tool") {
            const bool opens = i == 0 || messages[i - 1].role != "tool";
            const bool closes = i + 1 == messages.size() || messages[i + 1].role != "tool";
            add(segs,
                std::string(opens ? "<|im_start|>user" : "") + "\n<tool_response>\n" + m.content +
                    "\n</tool_response>" + (closes ? "<|im_end|>\n" : ""),
                false);
            continue;
        }
        add(segs, "<|im_start|>" + m.role + "\n", false);
        if (m.role != "assistant") {
            add(segs, m.content + "<|im_end|>\n", false);
            continue;
        }
        // Qwen3's thinking: the reasoning is the content's <think>...</think> part; an assistant turn after the
        // last user message shows it (the last turn always, with an empty block if it has none), earlier ones not.
        std::string content = m.content, reasoning;
        const size_t close = content.rfind("</think>");
        if (kind == ChatTemplateKind::Qwen3 && close != std::string::npos) {
            reasoning = stripNewlines(content.substr(0, content.find("</think>")), false, true);
            const size_t open = reasoning.rfind("<think>");
            if (open != std::string::npos) reasoning = reasoning.substr(open + 7);
            reasoning = stripNewlines(reasoning, true, false);
            content = stripNewlines(content.substr(close + 8), true, false);
        }
        std::string reply = content;
        if (kind == ChatTemplateKind::Qwen3 && i > lastQuery && (i + 1 == messages.size() || !reasoning.empty()))
            reply = "<think>\n" + stripNewlines(reasoning, true, true) + "\n</think>\n\n" +
                    stripNewlines(content, true, false);
        for (size_t k = 0; k < m.toolCalls.size(); ++k) {
            const ToolCall& c = m.toolCalls[k];
            if (k > 0 || !content.empty()) reply += "\n";
            // Qwen3 prints arguments given as a string as they are; Qwen2.5 passes everything through tojson.
            const std::string& args = c.argumentsIsText && !qwen25 ? c.argumentsText : c.argumentsJson;
            reply += "<tool_call>\n{\"name\": \"" + c.name + "\", \"arguments\": " + args + "}\n</tool_call>";
        }
        add(segs, reply + "<|im_end|>", true);
        add(segs, "\n", false);
    }
    if (generation) add(segs, "<|im_start|>assistant\n", false);
}

// Gemma 3's template (Gemma 2's where there is no system message, which Gemma 2's refuses): <bos>, then turns
// <start_of_turn>user|model\n content (trimmed) <end_of_turn>\n; a leading system message's content + "\n\n" opens
// the first user turn; the turns must alternate user / assistant, starting with the user's.
void renderGemma(const std::vector<ChatMessage>& messages, bool generation, std::vector<RenderedSegment>& segs) {
    add(segs, "<bos>", false);
    std::string prefix;
    size_t first = 0;
    if (!messages.empty() && messages[0].role == "system") prefix = messages[0].content + "\n\n", first = 1;
    for (size_t i = first; i < messages.size(); ++i) {
        const ChatMessage& m = messages[i];
        const bool userTurn = (i - first) % 2 == 0;
        if (m.role != (userTurn ? "user" : "assistant"))
            throw FormatError(
                "chat: the gemma template needs turns alternating user / assistant (a system message "
                "only first); message " +
                std::to_string(i + 1) + " is " + m.role);
        if (userTurn) {
            add(segs,
                "<start_of_turn>user\n" + (i == first ? prefix : std::string()) + trim(m.content) + "<end_of_turn>\n",
                false);
        } else {
            add(segs, "<start_of_turn>model\n", false);
            add(segs, trim(m.content) + "<end_of_turn>", true);
            add(segs, "\n", false);
        }
    }
    if (generation) add(segs, "<start_of_turn>model\n", false);
}

std::vector<RenderedSegment> render(ChatTemplateKind kind, const std::vector<ChatMessage>& raw, bool generation) {
    std::vector<RenderedSegment> segs;
    if (!isQwenChatML(kind))
        for (const ChatMessage& m : raw)
            if (m.role == "tool" || m.role == "tools" || !m.toolCalls.empty())
                throw FormatError("chat: the " + chatTemplateName(kind) + " template cannot render " +
                                  (m.role == "tools"  ? "tool definitions"
                                   : m.role == "tool" ? "tool results"
                                                      : "tool calls") +
                                  " (the Qwen ChatML templates can: data.template \"chatml\" or \"qwen2.5\")");
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
                std::string prompt =
                    system.empty() ? (input.empty() ? kAlpacaPrompt : kAlpacaPromptInput) : system + "\n\n";
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
            std::string prompt =
                system.empty() ? (input.empty() ? kAlpacaPrompt : kAlpacaPromptInput) : system + "\n\n";
            prompt += "### Instruction:\n" + instruction + "\n\n";
            if (!input.empty()) prompt += "### Input:\n" + input + "\n\n";
            add(segs, prompt + "### Response:\n", false);
        }
        return segs;
    }
    const std::vector<ChatMessage> messages = normalizeMessages(raw);
    switch (kind) {
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:
            renderQwenChatML(kind, messages, generation, segs);
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
        case ChatTemplateKind::Gemma:
            renderGemma(messages, generation, segs);
            break;
        case ChatTemplateKind::Phi3:
        case ChatTemplateKind::Phi4Mini: {
            // Phi-3's template: every turn <|role|>\n content <|end|>\n, then EOS text (or the generation prompt);
            // Phi-4-mini's the same without the newlines.
            const std::string nl = kind == ChatTemplateKind::Phi3 ? "\n" : "";
            for (const ChatMessage& m : messages) {
                if (m.role == "assistant") {
                    add(segs, "<|assistant|>" + nl, false);
                    add(segs, m.content + "<|end|>", true);
                    add(segs, nl, false);
                } else {
                    add(segs, "<|" + m.role + "|>" + nl + m.content + "<|end|>" + nl, false);
                }
            }
            add(segs, generation ? "<|assistant|>" + nl : std::string("<|endoftext|>"), false);
            break;
        }
        case ChatTemplateKind::None:
            for (const ChatMessage& m : messages) add(segs, m.content, m.role == "assistant");
            break;
        case ChatTemplateKind::Alpaca:
            break;
    }
    return segs;
}

}  // namespace

ChatTemplateKind chatTemplateFromName(const std::string& name) {
    if (name == "chatml" || name == "qwen") return ChatTemplateKind::ChatML;
    if (name == "qwen3") return ChatTemplateKind::Qwen3;
    if (name == "qwen2.5" || name == "qwen2") return ChatTemplateKind::Qwen25;
    if (name == "llama3" || name == "llama-3") return ChatTemplateKind::Llama3;
    if (name == "mistral" || name == "llama2" || name == "llama-2" || name == "inst") return ChatTemplateKind::Mistral;
    if (name == "gemma" || name == "gemma2" || name == "gemma3") return ChatTemplateKind::Gemma;
    if (name == "phi3" || name == "phi-3" || name == "phi3.5") return ChatTemplateKind::Phi3;
    if (name == "phi4-mini" || name == "phi4_mini") return ChatTemplateKind::Phi4Mini;
    if (name == "alpaca") return ChatTemplateKind::Alpaca;
    if (name == "none") return ChatTemplateKind::None;
    throw FormatError(
        "data.template: unknown template '" + name +
        "' (expected auto, chatml, qwen3, qwen2.5, llama3, mistral, gemma, phi3, phi4-mini, alpaca or none)");
}

std::string chatTemplateName(ChatTemplateKind kind) {
    switch (kind) {
        case ChatTemplateKind::ChatML:
            return "chatml";
        case ChatTemplateKind::Llama3:
            return "llama3";
        case ChatTemplateKind::Mistral:
            return "mistral";
        case ChatTemplateKind::Alpaca:
            return "alpaca";
        case ChatTemplateKind::None:
            return "none";
        case ChatTemplateKind::Qwen25:
            return "qwen2.5";
        case ChatTemplateKind::Qwen3:
            return "qwen3";
        case ChatTemplateKind::Gemma:
            return "gemma";
        case ChatTemplateKind::Phi3:
            return "phi3";
        case ChatTemplateKind::Phi4Mini:
            return "phi4-mini";
    }
    return "?";
}

std::optional<ChatTemplateKind> detectChatTemplate(const std::filesystem::path& modelDir) {
    std::error_code ec;
    const auto readJson = [&](const std::filesystem::path& p) -> nlohmann::json {
        if (!std::filesystem::is_regular_file(p, ec)) return nullptr;
        try {
            return parseJson(readFile(p));
        } catch (const nlohmann::json::exception& e) {
            throw FormatError(p.string() + ": not valid JSON: " + e.what());
        }
    };
    const nlohmann::json tc = readJson(modelDir / "tokenizer_config.json");
    if (tc.is_object() && tc.contains("chat_template") && tc["chat_template"].is_string()) {
        const std::string t = tc["chat_template"].get<std::string>();
        if (t.find("You are Qwen, created by Alibaba Cloud") != std::string::npos) return ChatTemplateKind::Qwen25;
        if (t.find("<|im_start|>") != std::string::npos && t.find("<think>") != std::string::npos)
            return ChatTemplateKind::Qwen3;
        if (t.find("<|im_start|>") != std::string::npos) return ChatTemplateKind::ChatML;
        if (t.find("<|start_header_id|>") != std::string::npos) return ChatTemplateKind::Llama3;
        if (t.find("[INST]") != std::string::npos) return ChatTemplateKind::Mistral;
        if (t.find("### Instruction") != std::string::npos) return ChatTemplateKind::Alpaca;
        if (t.find("<start_of_turn>") != std::string::npos) return ChatTemplateKind::Gemma;
        if (t.find("<|user|>") != std::string::npos && t.find("<|end|>") != std::string::npos)
            return ChatTemplateKind::Phi3;
        if (t.find("'<|' + message['role'] + '|>'") != std::string::npos && t.find("<|end|>") != std::string::npos)
            return ChatTemplateKind::Phi4Mini;
    }
    const nlohmann::json cfg = readJson(modelDir / "config.json");
    if (cfg.is_object() && cfg.contains("model_type") && cfg["model_type"].is_string()) {
        const std::string type = cfg["model_type"].get<std::string>();
        // the family description's template (core/arch), else by the name's prefix
        if (const DecoderFamily* f = findDecoderFamily(type); f && !f->chatTemplate.empty())
            return chatTemplateFromName(std::string(f->chatTemplate));
        if (type.rfind("qwen", 0) == 0) return ChatTemplateKind::ChatML;
        if (type == "llama") return ChatTemplateKind::Llama3;
        if (type == "mistral" || type == "mixtral") return ChatTemplateKind::Mistral;
        if (type.rfind("gemma", 0) == 0) return ChatTemplateKind::Gemma;
        if (type == "phi3") return ChatTemplateKind::Phi3;
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

const char* endOfTurnToken(ChatTemplateKind kind) {
    switch (kind) {
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:
            return "<|im_end|>";
        case ChatTemplateKind::Llama3:
            return "<|eot_id|>";
        case ChatTemplateKind::Gemma:
            return "<end_of_turn>";
        case ChatTemplateKind::Phi3:
        case ChatTemplateKind::Phi4Mini:
            return "<|end|>";
        default:
            return nullptr;
    }
}

ChatTemplateKind resolveChatTemplate(const std::string& name, const std::filesystem::path& modelDir) {
    if (name != "auto") return chatTemplateFromName(name);
    if (!modelDir.empty())
        if (auto k = detectChatTemplate(modelDir)) return *k;
    return ChatTemplateKind::ChatML;
}

}  // namespace fts
