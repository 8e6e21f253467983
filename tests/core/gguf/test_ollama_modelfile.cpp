// Tests of the chat templates a GGUF export writes: the Jinja template of each built-in template, rendered by
// jinja2 the way transformers renders chat templates (trim_blocks, lstrip_blocks, sandboxed), gives exactly the
// text our trainer's renderChat gives (a conversation with a system prompt and two turns, and the generation
// prompt); the Modelfile has FROM, the template, one stop line each, the default system prompt, num_ctx, and
// quotes text holding triple quotes. And the Modelfile's Go template, run by Go's text/template with the values
// Ollama's chat endpoint gives it (tests/data/gguf/render_ollama_template.go), renders a conversation's generation
// prompt as the trainer does (less the BOS text, which llama.cpp adds as a token).
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/gguf/ollama_modelfile.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using namespace fts::gguf;

namespace {

const char* const kRender = R"(
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
req = json.load(sys.stdin)
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
out = env.from_string(req["template"]).render(messages=req["messages"], bos_token=req["bos"], eos_token=req["eos"],
                                                add_generation_prompt=req["generation"])
sys.stdout.write(json.dumps(out))
)";

std::string renderJinja(const std::string& tmpl, const std::vector<ChatMessage>& messages, const std::string& bos,
                        const std::string& eos, bool generation) {
    nlohmann::json req = {{"template", tmpl}, {"bos", bos}, {"eos", eos}, {"generation", generation}};
    for (const ChatMessage& m : messages) req["messages"].push_back({{"role", m.role}, {"content", m.content}});
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON), {"-c", kRender});
    p.write(QByteArray::fromStdString(req.dump()));
    p.closeWriteChannel();
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return "jinja2 failed: " + p.readAllStandardError().toStdString();
    return nlohmann::json::parse(p.readAllStandardOutput().toStdString()).get<std::string>();
}

// Renders each (template, conversation) with Go's text/template as Ollama does; empty when Go is not installed.
std::vector<std::string> renderGo(const std::vector<std::pair<std::string, std::vector<ChatMessage>>>& requests) {
    nlohmann::json req = nlohmann::json::array();
    for (const auto& [tmpl, messages] : requests) {
        nlohmann::json r = {{"template", tmpl}, {"messages", nlohmann::json::array()}};
        for (const ChatMessage& m : messages) r["messages"].push_back({{"role", m.role}, {"content", m.content}});
        req.push_back(r);
    }
    QProcess p;
    p.start(QStringLiteral("go"),
            {"run", (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/gguf/render_ollama_template.go"))});
    if (!p.waitForStarted(10000)) return {};
    p.write(QByteArray::fromStdString(req.dump()));
    p.closeWriteChannel();
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        return {"go run failed: " + p.readAllStandardError().toStdString()};
    return nlohmann::json::parse(p.readAllStandardOutput().toStdString()).get<std::vector<std::string>>();
}

std::string concat(const std::vector<RenderedSegment>& segs) {
    std::string s;
    for (const RenderedSegment& r : segs) s += r.text;
    return s;
}

}  // namespace

class TestOllamaModelfile : public QObject {
    Q_OBJECT
private slots:
    void jinjaRendersAsTheTrainerDoes_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("bos");
        QTest::addColumn<QString>("eos");  // the EOS text the template prints ("" where training appends the id)
        QTest::newRow("chatml") << int(ChatTemplateKind::ChatML) << ""
                                << "";
        QTest::newRow("qwen2.5") << int(ChatTemplateKind::Qwen25) << ""
                                 << "";
        QTest::newRow("llama3") << int(ChatTemplateKind::Llama3) << "<|begin_of_text|>"
                                << "";
        QTest::newRow("mistral") << int(ChatTemplateKind::Mistral) << "<s>"
                                 << "</s>";
        QTest::newRow("qwen3") << int(ChatTemplateKind::Qwen3) << ""
                               << "";
        QTest::newRow("gemma") << int(ChatTemplateKind::Gemma) << "<bos>"
                               << "";
        QTest::newRow("phi3") << int(ChatTemplateKind::Phi3) << ""
                              << "<|endoftext|>";
        QTest::newRow("phi4-mini") << int(ChatTemplateKind::Phi4Mini) << ""
                                   << "<|endoftext|>";
        QTest::newRow("alpaca") << int(ChatTemplateKind::Alpaca) << ""
                                << "";
        QTest::newRow("none") << int(ChatTemplateKind::None) << ""
                              << "";
    }
    void jinjaRendersAsTheTrainerDoes() {
        QFETCH(int, kind);
        QFETCH(QString, bos);
        QFETCH(QString, eos);
        const auto k = static_cast<ChatTemplateKind>(kind);
        const std::string tmpl = jinjaChatTemplate(k, eos.toStdString());
        for (bool withSystem : {false, true}) {
            std::vector<ChatMessage> conv;
            if (withSystem && k != ChatTemplateKind::None) conv.push_back({"system", "You answer briefly.", {}});
            conv.push_back({"user", "What is 2 + 2?", {}});
            conv.push_back({"assistant", "4.", {}});
            conv.push_back({"user", "And 3 + 3?\nThink.", {}});
            conv.push_back({"assistant", "6.", {}});
            const std::string ours = concat(renderChat(k, conv));
            QCOMPARE(renderJinja(tmpl, conv, bos.toStdString(), eos.toStdString(), false), ours);
            conv.pop_back();
            QCOMPARE(renderJinja(tmpl, conv, bos.toStdString(), eos.toStdString(), true),
                     renderGenerationPrompt(k, conv));
        }
    }

    void ollamaRendersAsTheTrainerDoes() {
        const std::vector<std::pair<ChatTemplateKind, std::string>> kinds = {
            {ChatTemplateKind::ChatML, ""},
            {ChatTemplateKind::Qwen25, ""},
            {ChatTemplateKind::Llama3, "<|begin_of_text|>"},
            {ChatTemplateKind::Mistral, "<s>"},
            {ChatTemplateKind::Qwen3, ""},
            {ChatTemplateKind::Gemma, "<bos>"},
            {ChatTemplateKind::Phi3, ""},
            {ChatTemplateKind::Phi4Mini, ""},
            {ChatTemplateKind::Alpaca, ""}};
        std::vector<std::pair<std::string, std::vector<ChatMessage>>> requests;
        std::vector<std::string> expected;
        for (const auto& [kind, bos] : kinds)
            for (bool withSystem : {false, true}) {
                std::vector<ChatMessage> conv;
                if (withSystem) conv.push_back({"system", "You answer briefly.", {}});
                conv.push_back({"user", "What is 2 + 2?", {}});
                conv.push_back({"assistant", "4.", {}});
                conv.push_back({"user", "And 3 + 3?\nThink.", {}});
                std::string want = renderGenerationPrompt(kind, conv);
                QVERIFY(want.rfind(bos, 0) == 0);
                expected.push_back(want.substr(bos.size()));
                // Ollama puts the Modelfile's SYSTEM (Qwen2.5's and Alpaca's default prompt) first when the chat has none
                if (!withSystem && (kind == ChatTemplateKind::Qwen25 || kind == ChatTemplateKind::Alpaca)) {
                    const std::string m = ollamaModelfile({"m.gguf", kind, "", 0});
                    const size_t at = m.find("SYSTEM \"\"\"") + 10;
                    conv.insert(conv.begin(), {"system", m.substr(at, m.find("\"\"\"", at) - at), {}});
                }
                requests.push_back({ollamaTemplate(kind), conv});
            }
        const std::vector<std::string> got = renderGo(requests);
        if (got.empty())
            QSKIP("needs Go (golang-go: ./packaging/setup-debian.sh --tests) to run Ollama's template engine");
        QCOMPARE(got.size(), expected.size());
        for (size_t i = 0; i < got.size(); ++i)
            QVERIFY2(got[i] == expected[i], qPrintable(QString("case %1:\n--- Go:\n%2\n--- trainer:\n%3")
                                                           .arg(i)
                                                           .arg(QString::fromStdString(got[i]))
                                                           .arg(QString::fromStdString(expected[i]))));
    }

    void modelfileLines() {
        ModelfileInputs in;
        in.ggufFileName = "run-q4_k_m.gguf";
        in.chat = ChatTemplateKind::Qwen25;
        in.eosText = "<|endoftext|>";
        in.contextLength = 32768;
        const std::string m = ollamaModelfile(in);
        QVERIFY(m.find("FROM ./run-q4_k_m.gguf\n") != std::string::npos);
        QVERIFY(m.find("TEMPLATE \"\"\"{{- if .System }}<|im_start|>system\n{{ .System }}<|im_end|>") !=
                std::string::npos);
        QVERIFY(m.find("PARAMETER stop \"\"\"<|im_end|>\"\"\"\n") != std::string::npos);
        QVERIFY(m.find("PARAMETER stop \"\"\"<|im_start|>\"\"\"\n") != std::string::npos);
        QVERIFY(m.find("PARAMETER stop \"\"\"<|endoftext|>\"\"\"\n") != std::string::npos);
        QVERIFY(m.find("SYSTEM \"\"\"You are Qwen, created by Alibaba Cloud. You are a helpful assistant.\"\"\"\n") !=
                std::string::npos);
        QVERIFY(m.find("PARAMETER num_ctx 32768\n") != std::string::npos);
        // the stop equal to a template stop is not repeated
        in.chat = ChatTemplateKind::ChatML;
        in.eosText = "<|im_end|>";
        const std::string chatml = ollamaModelfile(in);
        QCOMPARE(chatml.find("<|im_end|>\"\"\"\n"), chatml.rfind("<|im_end|>\"\"\"\n"));
        QVERIFY(chatml.find("SYSTEM") == std::string::npos);
        // an EOS text holding a quote ends up in a JSON-style string
        in.chat.reset();
        in.eosText = "<end\"\"\">";
        const std::string plain = ollamaModelfile(in);
        QVERIFY2(plain.find("PARAMETER stop \"<end\\\"\\\"\\\">\"\n") != std::string::npos, plain.c_str());
        QVERIFY(plain.find("TEMPLATE \"\"\"{{ .Prompt }}\"\"\"") != std::string::npos);
    }
};

QTEST_MAIN(TestOllamaModelfile)
#include "test_ollama_modelfile.moc"
