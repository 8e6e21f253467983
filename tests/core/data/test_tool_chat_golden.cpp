// Tool-call conversations as LLaMA-Factory writes them (ShareGPT with function_call / observation turns and a
// "tools" column; OpenAI-style messages with tool_calls and tool results) rendered with Qwen2.5's template: the
// text and the token ids equal transformers' apply_chat_template(messages, tools=...) with Qwen2.5's own
// chat_template (tests/data/tokenizers/qwen2.5_chat_template.jinja), and only the assistant's calls and replies
// are trainable. Templates that cannot print tools refuse them.
#include "core/data/chat_template.h"
#include "core/data/sft_dataset.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;
using ojson = nlohmann::ordered_json;  // what goes to Python keeps its key order, as a user's JSON would

namespace {

const std::string kTok = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

const char* kWeatherTool =
    R"({"name": "get_weather", "description": "Current weather of a city", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}, "unit": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}})";
const char* kRateTool =
    R"({"name": "exchange_rate", "description": "Rate between two currencies", "parameters": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}}})";

struct Case {
    const char* name;
    json record;     // as the dataset file holds it (our reader's input)
    ojson messages;  // what a transformers user passes to apply_chat_template for the same conversation
    ojson tools;     // null or the tools list
};

ojson wrap(const char* tool) { return {{"type", "function"}, {"function", ojson::parse(tool)}}; }

std::vector<Case> cases() {
    const std::string tools1 = std::string("[") + kWeatherTool + "]";
    const std::string tools2 = std::string("[") + kWeatherTool + ", " + kRateTool + "]";
    // Key order matters (the template prints keys as written): these JSON values keep theirs as ordered_json.
    auto call = [](const char* name, const char* args) {
        return ojson{{"type", "function"}, {"function", {{"name", name}, {"arguments", ojson::parse(args)}}}};
    };
    std::vector<Case> out;
    out.push_back({"glaive-style: system, one call, result, reply",
                   {{"system", "You are a weather bot."},
                    {"tools", tools1},
                    {"conversations",
                     {{{"from", "human"}, {"value", "Weather in Paris?"}},
                      {{"from", "function_call"},
                       {"value", R"({"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}})"}},
                      {{"from", "observation"}, {"value", R"({"temp": 21.5, "sky": "clear"})"}},
                      {{"from", "gpt"}, {"value", "It is 21.5 °C and clear in Paris."}}}}},
                   {{{"role", "system"}, {"content", "You are a weather bot."}},
                    {{"role", "user"}, {"content", "Weather in Paris?"}},
                    {{"role", "assistant"},
                     {"content", ""},
                     {"tool_calls", {call("get_weather", R"({"city": "Paris", "unit": "c"})")}}},
                    {{"role", "tool"}, {"content", R"({"temp": 21.5, "sky": "clear"})"}},
                    {{"role", "assistant"}, {"content", "It is 21.5 °C and clear in Paris."}}},
                   ojson::array({wrap(kWeatherTool)})});
    out.push_back(
        {"no system (Qwen2.5's default), two calls at once, two results, unicode and floats",
         {{"tools", tools2},
          {"conversations",
           {{{"from", "human"}, {"value", "北京天气？还有美元兑人民币"}},
            {{"from", "function_call"},
             {"value",
              R"([{"name": "get_weather", "arguments": {"city": "北京"}}, {"name": "exchange_rate", "arguments": {"from": "USD", "to": "CNY", "at": 1e-05, "x": [1.0, 2.5, null, true]}}])"}},
            {{"from", "observation"}, {"value", "晴, 3°C"}},
            {{"from", "gpt"}, {"value", "北京晴，3°C。"}},
            {{"from", "human"}, {"value", "thanks"}},
            {{"from", "gpt"}, {"value", "You're welcome."}}}}},
         {{{"role", "user"}, {"content", "北京天气？还有美元兑人民币"}},
          {{"role", "assistant"},
           {"content", ""},
           {"tool_calls",
            {call("get_weather", R"({"city": "北京"})"),
             call("exchange_rate", R"({"from": "USD", "to": "CNY", "at": 1e-05, "x": [1.0, 2.5, null, true]})")}}},
          {{"role", "tool"}, {"content", "晴, 3°C"}},
          {{"role", "assistant"}, {"content", "北京晴，3°C。"}},
          {{"role", "user"}, {"content", "thanks"}},
          {{"role", "assistant"}, {"content", "You're welcome."}}},
         ojson::array({wrap(kWeatherTool), wrap(kRateTool)})});
    out.push_back(
        {"messages format: content with a call, consecutive tool results",
         {{"tools", tools2},
          {"messages",
           {{{"role", "system"}, {"content", "Be exact."}},
            {{"role", "user"}, {"content", "Rate and weather?"}},
            {{"role", "assistant"},
             {"content", "Looking both up."},
             {"tool_calls",
              R"([{"type": "function", "function": {"name": "exchange_rate", "arguments": {"from": "EUR", "to": "USD"}}}, {"name": "get_weather", "arguments": {"city": "Oslo"}}])"}},
            {{"role", "tool"}, {"content", "1.08"}},
            {{"role", "tool"}, {"content", "snow"}},
            {{"role", "assistant"}, {"content", "1.08, and snow in Oslo."}}}}},
         {{{"role", "system"}, {"content", "Be exact."}},
          {{"role", "user"}, {"content", "Rate and weather?"}},
          {{"role", "assistant"},
           {"content", "Looking both up."},
           {"tool_calls",
            {call("exchange_rate", R"({"from": "EUR", "to": "USD"})"), call("get_weather", R"({"city": "Oslo"})")}}},
          {{"role", "tool"}, {"content", "1.08"}},
          {{"role", "tool"}, {"content", "snow"}},
          {{"role", "assistant"}, {"content", "1.08, and snow in Oslo."}}},
         ojson::array({wrap(kWeatherTool), wrap(kRateTool)})});
    out.push_back({"no tools, no system: Qwen2.5's default system prompt",
                   {{"conversations", {{{"from", "human"}, {"value", "Hi"}}, {{"from", "gpt"}, {"value", "Hello!"}}}}},
                   {{{"role", "user"}, {"content", "Hi"}}, {{"role", "assistant"}, {"content", "Hello!"}}},
                   nullptr});
    return out;
}

}  // namespace

class TestToolChatGolden : public QObject {
    Q_OBJECT

private slots:
    void qwen25ToolCallsMatchTransformers() {
        QTemporaryDir dir;
        const auto cs = cases();
        ojson input = ojson::array();
        for (const Case& c : cs) input.push_back({{"messages", c.messages}, {"tools", c.tools}});
        const std::string path = dir.filePath("cases.json").toStdString();
        std::ofstream(path) << input.dump();
        QProcess py;
        py.start(QString::fromUtf8(FTS_TEST_PYTHON),
                 {(QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/datasets/tool_chat_reference.py")),
                  QString::fromStdString(kTok + "qwen3"), QString::fromStdString(kTok + "qwen2.5_chat_template.jinja"),
                  QString::fromStdString(path)});
        QVERIFY(py.waitForFinished(240000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        const json want = json::parse(py.readAllStandardOutput().toStdString());
        QCOMPARE(want.size(), cs.size());
        auto tok = Tokenizer::fromFile(kTok + "qwen3/tokenizer.json");
        for (size_t i = 0; i < cs.size(); ++i) {
            const std::vector<ChatMessage> messages =
                recordMessages(cs[i].record, SampleFormat::Auto, std::string("text"));
            const auto segs = renderChat(ChatTemplateKind::Qwen25, messages);
            std::string text, trained;
            std::vector<int32_t> ids;
            for (const RenderedSegment& s : segs) {
                text += s.text;
                if (s.trainable) trained += s.text;
                tok->encodeAppend(s.text, ids, false);  // segment by segment, as the SFT pipeline encodes
            }
            QVERIFY2(text == want[i]["text"].get<std::string>(),
                     (std::string(cs[i].name) + ":\n got  " + json(text).dump() + "\n want " + want[i]["text"].dump())
                         .c_str());
            QVERIFY2(json(ids) == want[i]["ids"], cs[i].name);
            // Trainable: every assistant turn after its "<|im_start|>assistant\n" through its <|im_end|>.
            std::string replies;
            size_t at = 0;
            for (const std::string open = "<|im_start|>assistant\n"; (at = text.find(open, at)) != std::string::npos;) {
                at += open.size();
                const size_t end = text.find("<|im_end|>", at) + std::string("<|im_end|>").size();
                replies += text.substr(at, end - at);
            }
            QCOMPARE(trained, replies);
            QVERIFY(trained.find("<tool_response>") == std::string::npos);
        }
    }

    void templatesWithoutToolsRefuseThem() {
        const json record = cases()[0].record;
        const std::vector<ChatMessage> messages = recordMessages(record, SampleFormat::Auto, std::string("text"));
        for (ChatTemplateKind k :
             {ChatTemplateKind::Llama3, ChatTemplateKind::Mistral, ChatTemplateKind::Alpaca, ChatTemplateKind::None}) {
            try {
                renderChat(k, messages);
                QFAIL("a template without tools rendered a tool conversation");
            } catch (const FormatError& e) {
                QVERIFY2(std::string(e.what()).find("cannot render") != std::string::npos, e.what());
            }
        }
    }

    void badToolRowsNameThePlace() {
        json bad = cases()[0].record;
        bad["conversations"][1]["value"] = "get_weather(Paris)";  // not JSON
        try {
            recordMessages(bad, SampleFormat::Auto, std::string("text"));
            QFAIL("accepted a function_call that is not JSON");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find("conversations[1]") != std::string::npos, e.what());
        }
        json noName = cases()[0].record;
        noName["conversations"][1]["value"] = R"({"arguments": {}})";
        QVERIFY_THROWS_EXCEPTION(FormatError, recordMessages(noName, SampleFormat::Auto, std::string("text")));
        json badTools = cases()[0].record;
        badTools["tools"] = "{\"name\": 1";
        QVERIFY_THROWS_EXCEPTION(FormatError, recordMessages(badTools, SampleFormat::Auto, std::string("text")));
    }

    void detectionAndNames() {
        QTemporaryDir dir;
        std::ifstream in(kTok + "qwen2.5_chat_template.jinja");
        std::string tpl((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(dir.filePath("tokenizer_config.json").toStdString()) << json{{"chat_template", tpl}}.dump();
        QCOMPARE(detectChatTemplate(dir.path().toStdString()).value(), ChatTemplateKind::Qwen25);
        QCOMPARE(chatTemplateFromName("qwen2.5"), ChatTemplateKind::Qwen25);
        QCOMPARE(chatTemplateName(ChatTemplateKind::Qwen25), std::string("qwen2.5"));
    }
};

QTEST_GUILESS_MAIN(TestToolChatGolden)
#include "test_tool_chat_golden.moc"
