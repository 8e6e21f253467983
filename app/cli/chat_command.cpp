// `fts chat --model DIR [--system TEXT] [sampling options]`: a conversation in the terminal. Each line read is a user
// turn; the reply streams as it is generated and stays in the conversation. /reset starts over, /exit (or end of
// input) ends; Ctrl-C during a reply stops that reply only.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/generation_options.h"
#include "core/util/error.h"

namespace fts::cli {

namespace {

std::atomic<bool> g_stopReply{false};
void onInterrupt(int) { g_stopReply = true; }

// SIGINT stops the reply being generated while this lives; outside a reply Ctrl-C ends `fts chat` as usual.
class InterruptStopsReply {
public:
    InterruptStopsReply() {
        g_stopReply = false;
        struct sigaction sa {};
        sa.sa_handler = onInterrupt;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &m_old);
    }
    ~InterruptStopsReply() { sigaction(SIGINT, &m_old, nullptr); }

private:
    struct sigaction m_old {};
};

}  // namespace

void addChatCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("chat", "Talk with a model in the terminal (its chat template; /reset, /exit)");
    auto o = std::make_shared<GenerationCliOptions>();
    addGenerationOptions(*cmd, o);
    cmd->callback([o] {
        auto session = GenerationSession::open(o->session);
        const bool tty = ::isatty(0) == 1;
        std::cerr << "model: " << session->describe() << "\n";
        if (!session->chatTemplate())
            throw Error(o->session.model.string() +
                        ": no chat template we know (tokenizer_config.json's chat_template or config.json's "
                        "model_type); pass --chat_template chatml, qwen2.5, llama3, mistral, alpaca or none");
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
