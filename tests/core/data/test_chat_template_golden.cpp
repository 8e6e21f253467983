// Built-in chat templates against the models' own: ChatML renders exactly what transformers'
// apply_chat_template renders with Qwen3's tokenizer_config.json chat_template (history turns and
// the generation prompt); template detection from tokenizer_config.json / config.json.
#include "core/data/chat_template.h"
#include "core/arch/decoder_family.h"
#include "core/util/atomic_file.h"
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

const std::string kTok = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

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
        probe.start(QString::fromUtf8(FTS_TEST_PYTHON), {"-c", "import transformers"});
        QVERIFY2(probe.waitForFinished(120000) && probe.exitCode() == 0,
                 qPrintable(QStringLiteral("the reference needs `transformers` in FTS_TEST_PYTHON (") +
                            QString::fromUtf8(FTS_TEST_PYTHON) + ")"));
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
        py.start(QString::fromUtf8(FTS_TEST_PYTHON),
                 {(QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/datasets/chat_reference.py")),
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

    // Qwen3 (its own template, thinking included), Gemma, Phi-3 and Phi-4-mini (the published templates in
    // tests/data/tokenizers/templates) against transformers' apply_chat_template: whole conversations as the trainer
    // renders them (with exactly the assistant turns trainable) and generation prompts.
    void familyTemplatesMatchTheirJinja_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("templateFile");  // empty: the qwen3 tokenizer's own template
        QTest::addColumn<QString>("endOfTurn");
        QTest::newRow("qwen3") << int(ChatTemplateKind::Qwen3) << ""
                               << "<|im_end|>";
        QTest::newRow("gemma") << int(ChatTemplateKind::Gemma) << "gemma3.jinja"
                               << "<end_of_turn>";
        QTest::newRow("phi3") << int(ChatTemplateKind::Phi3) << "phi3.jinja"
                              << "<|end|>";
        QTest::newRow("phi4-mini") << int(ChatTemplateKind::Phi4Mini) << "phi4-mini.jinja"
                                   << "<|end|>";
    }
    void familyTemplatesMatchTheirJinja() {
        QFETCH(int, kind);
        QFETCH(QString, templateFile);
        QFETCH(QString, endOfTurn);
        const auto k = static_cast<ChatTemplateKind>(kind);
        const std::vector<std::vector<ChatMessage>> convs = {
            {{"system", "Be brief."}, {"user", "Hi "}, {"assistant", " Hello!\n"}},
            {{"user", "a"},
             {"assistant", "<think>\nhmm\n</think>\n\nb"},
             {"user", "c"},
             {"assistant", "<think>x</think>d"}},
            {{"user", "Line one\nline two"},
             {"assistant", "reply"},
             {"user", "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87"},
             {"assistant", "no thinking here"}},
        };
        QTemporaryDir dir;
        auto reference = [&](const std::vector<std::vector<ChatMessage>>& list, bool whole) {
            json input = json::array();
            for (const auto& c : list) {
                json msgs = json::array();
                for (const auto& m : c) msgs.push_back({{"role", m.role}, {"content", m.content}});
                input.push_back(msgs);
            }
            const std::string path = dir.filePath(whole ? "whole.json" : "prompts.json").toStdString();
            std::ofstream(path) << input.dump();
            QStringList args{(QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/datasets/chat_reference.py")),
                             QString::fromStdString(kTok + "qwen3"), QString::fromStdString(path)};
            if (!templateFile.isEmpty())
                args << QString::fromStdString(kTok + "templates/") + templateFile << "<bos>"
                     << "<|endoftext|>";
            if (whole) args << "--whole";
            QProcess py;
            py.start(QString::fromUtf8(FTS_TEST_PYTHON), args);
            py.waitForFinished(240000);
            if (py.exitCode() != 0) qWarning("%s", py.readAllStandardError().constData());
            return json::parse(py.readAllStandardOutput().toStdString());
        };
        const json whole = reference(convs, true);
        std::vector<std::vector<ChatMessage>> prompts;
        for (const auto& c : convs) prompts.emplace_back(c.begin(), c.end() - 1);
        const json gen = reference(prompts, false);
        QCOMPARE(whole.size(), convs.size());
        QCOMPARE(gen.size(), convs.size());
        for (size_t i = 0; i < convs.size(); ++i) {
            std::string joined, trained;
            for (const RenderedSegment& seg : renderChat(k, convs[i])) {
                joined += seg.text;
                if (seg.trainable) trained += seg.text;
            }
            QVERIFY2(joined == whole[i].get<std::string>(), ("conversation " + std::to_string(i) + ":\n got  " +
                                                             json(joined).dump() + "\n want " + whole[i].dump())
                                                                .c_str());
            // what is trained ends each reply with the end-of-turn marker, and holds nothing of the prompts
            QVERIFY(trained.size() > 0 && trained.find("user") == std::string::npos);
            QVERIFY(trained.rfind(endOfTurn.toStdString()) == trained.size() - endOfTurn.size());
            const std::string prompt = renderGenerationPrompt(k, prompts[i]);
            QVERIFY2(prompt == gen[i].get<std::string>(),
                     ("prompt " + std::to_string(i) + ":\n got  " + json(prompt).dump() + "\n want " + gen[i].dump())
                         .c_str());
        }
    }

    void detection() {
        QCOMPARE(detectChatTemplate(kTok + "qwen3").value(), ChatTemplateKind::Qwen3);
        QVERIFY(!detectChatTemplate(kTok + "mistral-7b").has_value());  // its config has no chat_template
        QTemporaryDir dir;
        std::ofstream(dir.filePath("config.json").toStdString()) << R"({"model_type": "mistral"})";
        QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(), ChatTemplateKind::Mistral);
        std::ofstream(dir.filePath("config.json").toStdString()) << R"({"model_type": "llama"})";
        QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(), ChatTemplateKind::Llama3);
        QCOMPARE(chatTemplateFromName("qwen"), ChatTemplateKind::ChatML);
        QCOMPARE(chatTemplateFromName("qwen3"), ChatTemplateKind::Qwen3);
        QCOMPARE(chatTemplateFromName("gemma3"), ChatTemplateKind::Gemma);
        QCOMPARE(chatTemplateFromName("phi3.5"), ChatTemplateKind::Phi3);
        for (const auto& [type, kind] :
             std::vector<std::pair<std::string, ChatTemplateKind>>{{"gemma2", ChatTemplateKind::Gemma},
                                                                   {"gemma3_text", ChatTemplateKind::Gemma},
                                                                   {"phi3", ChatTemplateKind::Phi3},
                                                                   {"qwen3", ChatTemplateKind::Qwen3}}) {
            std::ofstream(dir.filePath("config.json").toStdString()) << json{{"model_type", type}}.dump();
            QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(), kind);
        }
        // every family's template name (core/arch) is a template we render, and the folder detects it
        for (const auto& f : decoderFamilies())
            if (!f.chatTemplate.empty()) {
                std::ofstream(dir.filePath("config.json").toStdString())
                    << json{{"model_type", std::string(f.modelType)}}.dump();
                QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(),
                         chatTemplateFromName(std::string(f.chatTemplate)));
            }
        for (const auto& [file, kind] :
             std::vector<std::pair<std::string, ChatTemplateKind>>{{"gemma3.jinja", ChatTemplateKind::Gemma},
                                                                   {"phi3.jinja", ChatTemplateKind::Phi3},
                                                                   {"phi4-mini.jinja", ChatTemplateKind::Phi4Mini}}) {
            std::ofstream(dir.filePath("config.json").toStdString()) << R"({"model_type": "llama"})";
            const std::string t = fts::readFile(kTok + "templates/" + file);
            std::ofstream(dir.filePath("tokenizer_config.json").toStdString()) << json{{"chat_template", t}}.dump();
            QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(), kind);
        }
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
