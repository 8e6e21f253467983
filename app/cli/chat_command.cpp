// `fts chat --model DIR [--system TEXT] [sampling options]`: a conversation in the terminal. Each line read is a user
// turn; the reply streams as it is generated and stays in the conversation. /reset starts over, /exit (or end of
// input) ends; Ctrl-C during a reply stops that reply only.
// `fts chat --json`: the same engine for a program (the studio's Chat page): the model stays loaded (a model without a
// chat template gets "none": the messages as plain text, said in the ready line's "note"), each input line is
// a request {"messages": [{"role", "content"}...], and optionally max_new_tokens, do_sample, temperature, top_k,
// top_p, repetition_penalty, seed}; the reply streams as {"text": PIECE} lines, then {"done": true, "finish_reason",
// "new_tokens", "first_token_s", "seconds"}. A bad request answers {"error": MESSAGE}. SIGINT stops the reply.
// Both modes receive SIGINT and SIGTERM on a watcher thread (stop_signal_watcher.h), never on a computing thread.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/generation_options.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/util/stop_signal_watcher.h"

namespace fts::cli {

namespace {

std::atomic<bool> g_stopReply{false};
// SIGINT stops the reply being generated while this is set; otherwise it ends `fts chat` as usual.
std::atomic<bool> g_interruptStopsReply{false};

// What SIGINT and SIGTERM do, on the watcher thread: SIGINT stops the reply in progress; the rest end the process
// as they would without a watcher.
void onStopSignal(int sig) {
    if (sig == SIGINT && g_interruptStopsReply.load()) {
        g_stopReply = true;
        return;
    }
    StopSignalWatcher::terminateBy(sig);
}

// While this lives, SIGINT stops the reply (and only that).
class InterruptStopsReply {
public:
    InterruptStopsReply() {
        g_stopReply = false;
        g_interruptStopsReply = true;
    }
    ~InterruptStopsReply() { g_interruptStopsReply = false; }
};

void line(const nlohmann::json& j) {
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
}

// The request's sampling fields over the command line's.
SamplingRequest samplingOf(const nlohmann::json& req, SamplingRequest s) {
    auto num = [&](const char* key) -> std::optional<double> {
        if (!req.contains(key) || req[key].is_null()) return std::nullopt;
        if (!req[key].is_number()) throw Error(std::string("\"") + key + "\" must be a number");
        return req[key].get<double>();
    };
    if (auto v = num("max_new_tokens")) s.maxNewTokens = int64_t(*v);
    if (auto v = num("temperature")) s.temperature = *v;
    if (auto v = num("top_k")) s.topK = int64_t(*v);
    if (auto v = num("top_p")) s.topP = *v;
    if (auto v = num("repetition_penalty")) s.repetitionPenalty = *v;
    if (auto v = num("seed")) s.seed = uint64_t(*v);
    if (req.contains("do_sample")) {
        if (!req["do_sample"].is_boolean()) throw Error("\"do_sample\" must be true or false");
        s.doSample = req["do_sample"].get<bool>();
    }
    return s;
}

void serveJson(GenerationSession& session, const SamplingRequest& defaults) {
    // SIGINT only ever stops the reply in progress here (one arriving between replies is forgotten at the next).
    InterruptStopsReply interrupt;
    const GenerationSessionInfo info = session.info();
    nlohmann::json ready{{"ready", true},
                         {"model", session.describe()},
                         {"architecture", info.architecture},
                         {"parameters", info.parameters},
                         {"dtype", info.dtype},
                         {"device", info.device},
                         {"adapter", info.adapter}};
    if (!session.chatTemplate()) {  // a base or LM-trained model: the conversation goes in as plain text
        session.setChatTemplate(ChatTemplateKind::None);
        ready["note"] = "no chat template: messages are joined as plain text and the model continues them";
    }
    ready["chat_template"] = chatTemplateName(*session.chatTemplate());
    line(ready);
    std::string text;
    while (std::getline(std::cin, text)) {
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            const nlohmann::json req = parseJson(text);
            if (!req.is_object() || !req.contains("messages") || !req["messages"].is_array() || req["messages"].empty())
                throw Error("expected {\"messages\": [{\"role\": ..., \"content\": ...}, ...]}");
            std::vector<ChatMessage> messages;
            for (const auto& m : req["messages"]) {
                if (!m.is_object() || !m.value("role", nlohmann::json()).is_string() ||
                    !m.value("content", nlohmann::json()).is_string())
                    throw Error("each message needs a string \"role\" and a string \"content\"");
                messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>(), {}});
            }
            const SamplingRequest sampling = samplingOf(req, defaults);
            const auto ids = session.encodeChat(messages);
            g_stopReply = false;
            const auto t0 = std::chrono::steady_clock::now();
            double firstToken = -1;
            const auto reply = session.generate(
                {ids}, sampling,
                [&](size_t, const std::string& piece) {
                    if (firstToken < 0)
                        firstToken = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    line({{"text", piece}});
                },
                &g_stopReply);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            line({{"done", true},
                  {"finish_reason", reply[0].finishReason},
                  {"new_tokens", reply[0].ids.size()},
                  {"first_token_s", firstToken},
                  {"seconds", seconds}});
        } catch (const nlohmann::json::exception& e) {
            line({{"error", std::string("not a JSON request: ") + e.what()}});
        } catch (const Error& e) {
            line({{"error", e.what()}});
        }
    }
}

}  // namespace

void addChatCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("chat", "Talk with a model in the terminal (its chat template; /reset, /exit)");
    auto o = std::make_shared<GenerationCliOptions>();
    auto json = std::make_shared<bool>(false);
    addGenerationOptions(*cmd, o);
    cmd->add_flag("--json", *json, "JSON lines for programs (the studio): requests in, streamed pieces out");
    cmd->callback([o, json] {
        const StopSignalWatcher stopSignals(onStopSignal);  // first: before LibTorch starts its threads
        auto session = GenerationSession::open(o->session);
        if (*json) {
            serveJson(*session, o->sampling);
            return;
        }
        const bool tty = ::isatty(0) == 1;
        std::cerr << "model: " << session->describe() << "\n";
        if (!session->chatTemplate())
            throw Error(
                o->session.model.string() +
                ": no chat template we know (tokenizer_config.json's chat_template or config.json's "
                "model_type); pass --chat_template chatml, qwen3, qwen2.5, llama3, mistral, gemma, phi3, phi4-mini, alpaca or none");
        std::cerr << "chat template: " << chatTemplateName(*session->chatTemplate())
                  << ". Type a message; /reset starts over, /exit or Ctrl-D ends, Ctrl-C stops a reply.\n";
        for (const auto& n : session->notes(o->sampling)) std::cerr << "note: " << n << "\n";
        std::vector<ChatMessage> messages;
        if (!o->system.empty()) messages.push_back({"system", o->system, {}});
        const size_t base = messages.size();
        std::string line;
        while (true) {
            if (tty) std::cout << "> " << std::flush;
            if (!std::getline(std::cin, line) || line == "/exit") break;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            if (line == "/reset") {
                messages.resize(base);
                std::cout << "(conversation cleared)\n" << std::flush;
                continue;
            }
            messages.push_back({"user", line, {}});
            std::vector<Completion> reply;
            try {
                const auto ids = session->encodeChat(messages);
                InterruptStopsReply interrupt;
                reply = session->generate(
                    {ids}, o->sampling, [](size_t, const std::string& piece) { std::cout << piece << std::flush; },
                    &g_stopReply);
            } catch (const Error& e) {
                messages.pop_back();  // the turn did not happen; the conversation stays as it was
                std::cerr << "error: " << e.what() << "\n";
                continue;
            }
            std::cout << "\n";
            if (reply[0].finishReason == "cancelled") std::cout << "(stopped)\n";
            if (reply[0].finishReason == "context")
                std::cerr << "note: the conversation filled the model's context; /reset to start over\n";
            std::cout << std::flush;
            messages.push_back({"assistant", reply[0].text, {}});
        }
        if (tty) std::cout << "\n";
    });
}

}  // namespace fts::cli
