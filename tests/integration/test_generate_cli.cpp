// `fts generate` and `fts chat` end to end: the JSON lines equal transformers' generate() on the golden GPT-2 from a
// text prompt (tokenized by our tokenizer, the reference by HF tokenizers), the streamed text equals the JSON text,
// a prompts file with a batch and a conversation, `fts chat` driven through a pseudo-terminal (the conversation
// is kept: its second reply equals `fts generate` on the whole conversation; /reset; /exit), and bad input.
// LibTorch before Qt: Qt's `slots` keyword macro would otherwise break LibTorch's headers.
#include "core/model/language_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "core/util/atomic_file.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::testing::CliResult;
using fts::testing::runFts;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(FTS_TEST_DATA_DIR);
const QString kGoldenGpt2 = QString::fromStdString((kData / "models" / "gpt2").string());

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// `fts chat` on a pseudo-terminal: write lines, read until a text appears (or the deadline passes).
class PtyProcess {
public:
    explicit PtyProcess(const std::vector<std::string>& args) {
        m_pid = forkpty(&m_fd, nullptr, nullptr, nullptr);
        if (m_pid == 0) {
            std::vector<char*> argv;
            for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
    }
    ~PtyProcess() {
        if (m_pid > 0 && !m_exited) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
        if (m_fd >= 0) close(m_fd);
    }
    void write(const std::string& s) { (void)!::write(m_fd, s.data(), s.size()); }
    // Reads until `needle` is in what was read since the last call; returns that text.
    std::string readUntil(const std::string& needle, int timeoutMs = 120000) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (m_buffer.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
            pollfd p{m_fd, POLLIN, 0};
            if (poll(&p, 1, 200) <= 0) continue;
            char buf[4096];
            const ssize_t n = ::read(m_fd, buf, sizeof buf);
            if (n <= 0) break;
            m_buffer.append(buf, size_t(n));
        }
        const size_t at = m_buffer.find(needle);
        if (at == std::string::npos) return "NOT FOUND: " + needle + " in: " + m_buffer;
        std::string got = m_buffer.substr(0, at + needle.size());
        m_buffer.erase(0, at + needle.size());
        return got;
    }
    int wait() {
        const int status = waitStatus();
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    int waitStatus() {
        int status = 0;
        waitpid(m_pid, &status, 0);
        m_exited = true;
        return status;
    }

private:
    pid_t m_pid = -1;
    int m_fd = -1;
    bool m_exited = false;
    std::string m_buffer;
};

}  // namespace

class TestGenerateCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void jsonEqualsTransformers();
    void streamedTextEqualsJsonText();
    void promptsFileBatchAndConversation();
    void chatThroughAPseudoTerminal();
    void ctrlCAtThePromptEndsChat();
    void badInputFailsClearly();

private:
    QTemporaryDir m_tmp;
    fs::path m_dir;
    json m_ref;
    fs::path m_chatModel;  // a random GPT-2 with the ChatML tokenizer and template of tests/data/sft
};

void TestGenerateCli::initTestCase() {
    QVERIFY(m_tmp.isValid());
    m_dir = m_tmp.path().toStdString();
    QProcess p;
    p.setProgram(QString::fromUtf8(FTS_TEST_PYTHON));
    p.setArguments({q(kData / "generate" / "generate_reference.py"), "make", q(m_dir / "ref"), q(kData / "models")});
    p.start();
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().right(3000).constData());
    m_ref = json::parse(fts::readFile(m_dir / "ref" / "reference.json")).at("cli_gpt2");

    m_chatModel = m_dir / "chat-model";
    auto model = fts::initModelFromConfig(kData / "sft" / "gpt2" / "config.json", 11, {});
    fts::saveHfModel(*model, m_chatModel, torch::kFloat32);
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
        fs::copy_file(kData / "sft" / "gpt2" / f, m_chatModel / f);
}

void TestGenerateCli::jsonEqualsTransformers() {
    const CliResult r = runFts({"generate", "--model", kGoldenGpt2, "--prompt", QString::fromStdString(m_ref["text"]),
                                "--max_new_tokens", "24", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const json line = json::parse(r.out.toStdString());
    QCOMPARE(line.at("ids").get<std::vector<int64_t>>(), m_ref.at("greedy").get<std::vector<int64_t>>());
    QCOMPARE(line.at("prompt").get<std::string>(), m_ref.at("text").get<std::string>());
    QCOMPARE(line.at("finish_reason").get<std::string>(), std::string("length"));
    QVERIFY2(r.err.contains("model: GPT2LMHeadModel"), qPrintable(r.err));
}

void TestGenerateCli::streamedTextEqualsJsonText() {
    const QStringList common = {"generate",         "--model", q(m_chatModel), "--prompt", "Once upon a time",
                                "--max_new_tokens", "40",      "--do_sample",  "--seed",   "5",
                                "--temperature",    "1.3"};
    const CliResult streamed = runFts(common);
    const CliResult lines = runFts(common + QStringList{"--json"});
    QVERIFY2(streamed.exitCode == 0 && lines.exitCode == 0, qPrintable(streamed.err + lines.err));
    const json line = json::parse(lines.out.toStdString());
    QCOMPARE(streamed.out.toStdString(), line.at("text").get<std::string>() + "\n");
    QVERIFY(!line.at("text").get<std::string>().empty());
    // --stop: a piece of that text ends the reply where it appears (finish_reason stop_string; the reply is a prefix
    // of the full one and contains the stop text).
    const std::string full = line.at("text").get<std::string>();
    QVERIFY(full.size() > 24);
    const std::string stop = full.substr(12, 3);
    const CliResult stopped = runFts(common + QStringList{"--json", "--stop", QString::fromStdString(stop)});
    QVERIFY2(stopped.exitCode == 0, qPrintable(stopped.err));
    const json cut = json::parse(stopped.out.toStdString());
    QCOMPARE(cut.at("finish_reason").get<std::string>(), std::string("stop_string"));
    const std::string cutText = cut.at("text").get<std::string>();
    QVERIFY2(cutText.find(stop) != std::string::npos && full.rfind(cutText, 0) == 0 && cutText.size() < full.size(),
             (cutText + " | " + full).c_str());
    // Greedy settings next to sampling-only options: said, not silently dropped.
    const CliResult greedy =
        runFts({"generate", "--model", q(m_chatModel), "--prompt", "x", "--top_k", "5", "--max_new_tokens", "2"});
    QVERIFY2(greedy.err.contains("apply only when sampling"), qPrintable(greedy.err));
}

void TestGenerateCli::promptsFileBatchAndConversation() {
    const fs::path file = m_dir / "prompts.jsonl";
    std::ofstream(file) << json{{"prompt", m_ref["text"]}}.dump() << "\n\n"
                        << json{{"text", m_ref["text"]}}.dump() << "\n";
    CliResult r =
        runFts({"generate", "--model", kGoldenGpt2, "--prompts", q(file), "--max_new_tokens", "24", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList out = r.out.trimmed().split('\n');
    QCOMPARE(out.size(), 2);
    for (const QString& l : out)
        QCOMPARE(json::parse(l.toStdString()).at("ids").get<std::vector<int64_t>>(),
                 m_ref.at("greedy").get<std::vector<int64_t>>());
    // A bad line is named with its number.
    std::ofstream(file, std::ios::app) << "{\"prompt\": 3}\n";
    r = runFts({"generate", "--model", kGoldenGpt2, "--prompts", q(file)});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(q(file) + ":4: \"prompt\" must be a string"), qPrintable(r.err));
}

// Two turns, /reset, a third, /exit. The second reply must equal `fts generate` on the whole conversation so far.
void TestGenerateCli::chatThroughAPseudoTerminal() {
    PtyProcess chat({FTS_CLI_PATH, "chat", "--model", m_chatModel.string(), "--max_new_tokens", "12", "--system",
                     "You are brief."});
    QVERIFY2(chat.readUntil("> ").find("chat template: chatml") != std::string::npos, "no banner");
    chat.write("Hello there\n");
    std::string first = chat.readUntil("> ");
    QVERIFY2(first.find("NOT FOUND") == std::string::npos, first.c_str());
    chat.write("And again\n");
    std::string second = chat.readUntil("> ");
    QVERIFY2(second.find("NOT FOUND") == std::string::npos, second.c_str());
    chat.write("/reset\n");
    QVERIFY(chat.readUntil("(conversation cleared)").find("NOT FOUND") == std::string::npos);
    chat.write("/exit\n");
    QCOMPARE(chat.wait(), 0);

    // The terminal echoes the input line (ending "\r\n"); the reply follows, then the "\n" after it and the next
    // prompt. The terminal writes every "\n" as "\r\n".
    auto replyOf = [](std::string s, const std::string& input) {
        s = s.substr(s.find(input + "\r\n") + input.size() + 2);
        s = s.substr(0, s.rfind("\r\n> "));
        std::string clean;
        for (char c : s)
            if (c != '\r') clean += c;
        return clean;
    };
    const std::string reply1 = replyOf(first, "Hello there"), reply2 = replyOf(second, "And again");
    const fs::path file = m_dir / "conversation.jsonl";
    std::ofstream(file) << json{{"messages",
                                 {{{"role", "system"}, {"content", "You are brief."}},
                                  {{"role", "user"}, {"content", "Hello there"}},
                                  {{"role", "assistant"}, {"content", reply1}},
                                  {{"role", "user"}, {"content", "And again"}}}}}
                               .dump()
                        << "\n";
    const CliResult r =
        runFts({"generate", "--model", q(m_chatModel), "--prompts", q(file), "--max_new_tokens", "12", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::string expected = json::parse(r.out.toStdString()).at("text").get<std::string>();
    QVERIFY2(reply2 == expected,
             (json(reply1).dump() + " then " + json(reply2).dump() + " vs " + json(expected).dump()).c_str());
}

// Ctrl-C outside a reply ends `fts chat` as it ends any program (killed by SIGINT), though its watcher thread
// receives the signal (stop_signal_watcher.h).
void TestGenerateCli::ctrlCAtThePromptEndsChat() {
    PtyProcess chat({FTS_CLI_PATH, "chat", "--model", m_chatModel.string()});
    QVERIFY2(chat.readUntil("> ").find("chat template: chatml") != std::string::npos, "no banner");
    chat.write("\x03");  // the terminal's interrupt character: SIGINT to the foreground process group
    const int status = chat.waitStatus();
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, qPrintable(QString("status %1").arg(status)));
}

void TestGenerateCli::badInputFailsClearly() {
    struct Case {
        QStringList args;
        QString expected;
    };
    const std::vector<Case> cases = {
        {{"--model", q(kData / "models" / "llama"), "--prompt", "hi"}, "no tokenizer.json here"},
        {{"--model", kGoldenGpt2, "--prompt", "hi", "--chat"}, "no chat template we know"},
        {{"--model", kGoldenGpt2, "--prompt", QString("word ").repeated(300)}, "which leaves no room to generate"},
        {{"--model", kGoldenGpt2, "--prompt", "hi", "--do_sample", "--temperature", "0"}, "temperature must be > 0"},
        {{"--model", q(m_dir / "missing"), "--prompt", "hi"}, "not a folder"},
        {{"--model", kGoldenGpt2}, "give --prompt TEXT or --prompts FILE.jsonl"},
        {{"--model", kGoldenGpt2, "--prompt", "hi", "--device", "cuda:x"}, "device \"cuda:x\": expected cuda:N"},
    };
    for (const auto& c : cases) {
        const CliResult r = runFts(QStringList{"generate"} + c.args);
        QVERIFY2(r.exitCode == 1 && r.err.contains(c.expected) && !r.err.contains("Exception raised from"),
                 qPrintable(c.args.join(' ') + " -> " + QString::number(r.exitCode) + ": " + r.err));
    }
}

QTEST_GUILESS_MAIN(TestGenerateCli)
#include "test_generate_cli.moc"
