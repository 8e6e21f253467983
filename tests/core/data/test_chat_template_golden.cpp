// Built-in chat templates against the models' own: ChatML renders exactly what transformers'
// apply_chat_template renders with Qwen3's tokenizer_config.json chat_template (history turns and
// the generation prompt); template detection from tokenizer_config.json / config.json.
#include "core/data/chat_template.h"
#include "core/util/error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {

const std::string kTok = FTS_TEST_DATA_DIR "/tokenizers/";

std::vector<std::vector<ChatMessage>> conversations() {
    return {
        {{"user", "Hi"}},
        {{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "2+2?"}},
        {{"user", "Line one\nline two  "},
         {"assistant", "  spaced reply\n"},
         {"user", "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87"}},
        {{"system", ""}, {"user", "a"}, {"assistant", "b"}, {"user", "c"}, {"assistant", "d"}, {"user", "e"}},
        {{"user", "<|im_start|> literal markers"}},
    };
}

}  // namespace

class TestChatTemplateGolden : public QObject {
    Q_OBJECT

private slots:
    void chatmlMatchesQwen3Template() {
        QProcess probe;
        probe.start(QStringLiteral(FTS_TEST_PYTHON), {"-c", "import transformers"});
        QVERIFY2(probe.waitForFinished(120000) && probe.exitCode() == 0,
                 "the reference needs `transformers` in FTS_TEST_PYTHON (" FTS_TEST_PYTHON ")");
        QTemporaryDir dir;
        const auto convs = conversations();
        json input = json::array();
        for (const auto& c : convs) {
            json list = json::array();
            for (const auto& m : c) list.push_back({{"role", m.role}, {"content", m.content}});
            input.push_back(list);
        }
        const std::string path = dir.filePath("convs.json").toStdString();
        std::ofstream(path) << input.dump();
        QProcess py;
        py.start(QStringLiteral(FTS_TEST_PYTHON),
                 {QStringLiteral(FTS_TEST_DATA_DIR "/datasets/chat_reference.py"),
                  QString::fromStdString(kTok + "qwen3"), QString::fromStdString(path)});
        QVERIFY(py.waitForFinished(240000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        const json want = json::parse(py.readAllStandardOutput().toStdString());
        QCOMPARE(want.size(), convs.size());
        for (size_t i = 0; i < convs.size(); ++i) {
            const std::string got = renderGenerationPrompt(ChatTemplateKind::ChatML, convs[i]);
            QVERIFY2(got == want[i].get<std::string>(), ("conversation " + std::to_string(i) + ":\n got  " +
                                                         json(got).dump() + "\n want " + want[i].dump())
                                                            .c_str());
            // The training rendering of the turns before the last user message is a prefix of it,
            // with exactly the assistant replies (and their <|im_end|>) trainable.
            std::vector<ChatMessage> history(convs[i].begin(), convs[i].end() - 1);
            const bool hasAssistant =
                std::any_of(history.begin(), history.end(), [](const ChatMessage& m) { return m.role == "assistant"; });
            if (!hasAssistant) continue;
            std::string joined, trained;
            for (const RenderedSegment& s : renderChat(ChatTemplateKind::ChatML, history)) {
                joined += s.text;
                if (s.trainable) trained += s.text;
            }
            QVERIFY(want[i].get<std::string>().rfind(joined, 0) == 0);
            std::string replies;
            for (const ChatMessage& m : history)
                if (m.role == "assistant") replies += m.content + "<|im_end|>";
            QCOMPARE(trained, replies);
        }
    }

    void detection() {
        QCOMPARE(detectChatTemplate(kTok + "qwen3").value(), ChatTemplateKind::ChatML);
        QVERIFY(!detectChatTemplate(kTok + "mistral-7b").has_value());  // its config has no chat_template
        QTemporaryDir dir;
        std::ofstream(dir.filePath("config.json").toStdString()) << R"({"model_type": "mistral"})";
        QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(), ChatTemplateKind::Mistral);
        std::ofstream(dir.filePath("config.json").toStdString()) << R"({"model_type": "llama"})";
        QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(), ChatTemplateKind::Llama3);
        QCOMPARE(chatTemplateFromName("qwen"), ChatTemplateKind::ChatML);
        QVERIFY_THROWS_EXCEPTION(FormatError, chatTemplateFromName("vicuna"));
    }

    // The documented layouts of the other templates (Meta's Llama 3 and Mistral-Instruct model
    // cards, the Stanford Alpaca prompt).
    void otherTemplates() {
        const std::vector<ChatMessage> c = {{"system", "S"}, {"user", "U"}, {"assistant", "A"}};
        auto join = [](const std::vector<RenderedSegment>& segs) {
            std::string s;
            for (const auto& x : segs) s += x.text;
            return s;
        };
        QCOMPARE(join(renderChat(ChatTemplateKind::Llama3, c)),
                 std::string("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|>"
                             "<|start_header_id|>user<|end_header_id|>\n\nU<|eot_id|>"
                             "<|start_header_id|>assistant<|end_header_id|>\n\nA<|eot_id|>"));
        QCOMPARE(join(renderChat(ChatTemplateKind::Mistral, c)), std::string("<s>[INST] S\n\nU [/INST]A</s>"));
        const std::vector<ChatMessage> alpaca = {{"user", "Do X"}, {"input", "data"}, {"assistant", "Done"}};
        QCOMPARE(join(renderChat(ChatTemplateKind::Alpaca, alpaca)),
                 std::string("Below is an instruction that describes a task, paired with an input that provides "
                             "further context. Write a response that appropriately completes the request.\n\n"
                             "### Instruction:\nDo X\n\n### Input:\ndata\n\n### Response:\nDone"));
        QVERIFY_THROWS_EXCEPTION(FormatError, renderChat(ChatTemplateKind::ChatML, {{"user", "only"}}));
        QVERIFY_THROWS_EXCEPTION(FormatError,
                                 renderChat(ChatTemplateKind::ChatML, {{"robot", "x"}, {"assistant", "y"}}));
    }
};

QTEST_APPLESS_MAIN(TestChatTemplateGolden)
#include "test_chat_template_golden.moc"
