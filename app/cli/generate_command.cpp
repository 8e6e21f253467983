// `fts generate --model DIR --prompt TEXT... | --prompts FILE.jsonl [--chat] [--json] [sampling options]`: text from
// a model folder, streamed to stdout as it comes (one prompt), or one block / JSON line per prompt.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/generation_options.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts::cli {

namespace {

struct PromptItem {
    std::string text;                   // what --json echoes as "prompt"
    std::vector<ChatMessage> messages;  // a conversation (--chat, or a "messages" line)
};

std::vector<ChatMessage> messagesOf(const nlohmann::json& j, const std::string& where) {
    if (!j.is_array() || j.empty()) throw FormatError(where + ": \"messages\" must be a non-empty list");
    std::vector<ChatMessage> m;
    for (const auto& e : j) {
        if (!e.is_object() || !e.contains("role") || !e["role"].is_string() || !e.contains("content") ||
            !e["content"].is_string())
            throw FormatError(where + ": each message needs a string \"role\" and a string \"content\"");
        m.push_back({e["role"].get<std::string>(), e["content"].get<std::string>(), {}});
    }
    return m;
}

// {"prompt": TEXT} (or "text"), or {"messages": [{"role", "content"}...]}, one per line; blank lines skipped.
std::vector<PromptItem> readPromptsFile(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw IoError(file.string() + ": cannot read the prompts file");
    std::vector<PromptItem> items;
    std::string line;
    for (int64_t n = 1; std::getline(in, line); ++n) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = file.string() + ":" + std::to_string(n);
        nlohmann::json j;
        try {
            j = parseJson(line);
        } catch (const nlohmann::json::exception& e) {
            throw FormatError(where + ": not valid JSON: " + e.what());
        }
        PromptItem item;
        if (j.is_object() && j.contains("messages")) {
            item.messages = messagesOf(j["messages"], where);
            item.text = j["messages"].dump();
        } else if (j.is_object() && (j.contains("prompt") || j.contains("text"))) {
            const auto& t = j.contains("prompt") ? j["prompt"] : j["text"];
            if (!t.is_string()) throw FormatError(where + ": \"prompt\" must be a string");
            item.text = t.get<std::string>();
        } else {
            throw FormatError(where + ": expected {\"prompt\": TEXT} or {\"messages\": [...]}");
        }
        items.push_back(std::move(item));
    }
    if (items.empty()) throw FormatError(file.string() + ": no prompts in the file");
    return items;
}

}  // namespace

void addGenerateCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("generate", "Generate text from a model folder (greedy unless --do_sample)");
    auto o = std::make_shared<GenerationCliOptions>();
    auto prompts = std::make_shared<std::vector<std::string>>();
    auto promptsFile = std::make_shared<std::filesystem::path>();
    auto chat = std::make_shared<bool>(false);
    auto json = std::make_shared<bool>(false);
    addGenerationOptions(*cmd, o);
    cmd->add_option("--prompt", *prompts, "A prompt (repeatable: generated together in one batch)");
    cmd->add_option("--prompts", *promptsFile,
                    "JSONL file: {\"prompt\": TEXT} or {\"messages\": [{\"role\": ..., \"content\": ...}]} per line");
    cmd->add_flag("--chat", *chat, "Render each prompt as a user turn with the model's chat template");
    cmd->add_flag("--json", *json,
                  "One JSON line per prompt: {\"prompt\", \"ids\" (the new token ids), \"text\", \"finish_reason\"}");
    cmd->callback([o, prompts, promptsFile, chat, json] {
        std::vector<PromptItem> items;
        for (const auto& p : *prompts) items.push_back({p, {}});
        if (!promptsFile->empty())
            for (auto& i : readPromptsFile(*promptsFile)) items.push_back(std::move(i));
        if (items.empty()) throw Error("generate: give --prompt TEXT or --prompts FILE.jsonl");

        auto session = GenerationSession::open(o->session);
        std::cerr << "model: " << session->describe() << "\n";
        for (const auto& n : session->notes(o->sampling)) std::cerr << "note: " << n << "\n";
        std::vector<std::vector<int64_t>> ids;
        for (auto& item : items) {
            if (item.messages.empty() && *chat) {
                if (!o->system.empty()) item.messages.push_back({"system", o->system, {}});
                item.messages.push_back({"user", item.text, {}});
            }
            ids.push_back(item.messages.empty() ? session->encodeText(item.text) : session->encodeChat(item.messages));
        }
        const bool stream = items.size() == 1 && !*json;
        auto onText = [stream](size_t, const std::string& piece) {
            if (!stream) return;
            std::cout << piece;
            std::cout.flush();
        };
        const auto out = session->generate(ids, o->sampling, onText);
        for (size_t i = 0; i < out.size(); ++i) {
            if (*json) {
                std::cout << nlohmann::json{{"prompt", items[i].text},
                                            {"ids", out[i].ids},
                                            {"text", out[i].text},
                                            {"finish_reason", out[i].finishReason}}
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                          << "\n";
            } else if (stream) {
                std::cout << "\n";
            } else {
                std::cout << "--- " << (i + 1) << " (" << out[i].finishReason << ") ---\n" << out[i].text << "\n";
            }
        }
        std::cout.flush();
    });
}

}  // namespace fts::cli
