// `fts tokenize` stream contract: one {"ids": [...]} line per input line, lines split on '\n' only,
// --special applies the post-processor, a bad line is reported as stdin:<line> after earlier output.
#include "core/data/tokenize_stream.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <sstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {
const std::string kData = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

std::vector<json> outputLines(const std::string& out) {
    std::vector<json> rows;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line, '\n')) rows.push_back(json::parse(line));
    return rows;
}
}  // namespace

class TestTokenizeStream : public QObject {
    Q_OBJECT

private slots:
    void linesInLinesOut_data() {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<bool>("special");
        QTest::newRow("gpt2") << "gpt2/tokenizer.json" << false;
        QTest::newRow("template without special") << "toy/split_template.json" << false;
        QTest::newRow("template with special") << "toy/split_template.json" << true;
    }
    void linesInLinesOut() {
        QFETCH(QString, tokenizer);
        QFETCH(bool, special);
        auto tok = Tokenizer::fromFile(kData + tokenizer.toStdString());
        const std::vector<std::string> texts = {"Hello world", "",
                                                "a\xE2\x80\xA8"
                                                "b\xC2\x85"
                                                "c",
                                                "<|endoftext|> x\n y"};
        std::string input;
        for (const auto& t : texts) input += json({{"text", t}, {"meta", 1}}).dump(-1, ' ', false) + "\n";
        std::istringstream in(input);
        std::ostringstream out;
        tokenizeJsonlStream(in, out, *tok, special);
        const auto rows = outputLines(out.str());
        QCOMPARE(rows.size(), texts.size());
        for (size_t i = 0; i < texts.size(); ++i) {
            QCOMPARE(rows[i].size(), size_t(1));
            QCOMPARE(rows[i]["ids"].get<std::vector<int32_t>>(), tok->encode(texts[i], special));
        }
        if (special) QVERIFY(rows[1]["ids"].size() == 2);  // <s> </s> around an empty text
    }

    void badLine_data() {
        QTest::addColumn<QString>("badLine");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << "{\"text\": "
                                  << "stdin:3: invalid JSON";
        QTest::newRow("blank") << ""
                               << "stdin:3: invalid JSON";
        QTest::newRow("array") << "[1]"
                               << "stdin:3: expected a JSON object";
        QTest::newRow("missing text") << "{\"body\": \"x\"}"
                                      << "stdin:3: missing field \"text\"";
        QTest::newRow("number text") << "{\"text\": 3}"
                                     << "stdin:3: field \"text\" must be a string";
    }
    void badLine() {
        QFETCH(QString, badLine);
        QFETCH(QString, expected);
        auto tok = Tokenizer::fromFile(kData + "gpt2/tokenizer.json");
        std::istringstream in("{\"text\": \"one\"}\n{\"text\": \"two\"}\n" + badLine.toStdString() +
                              "\n{\"text\": \"four\"}\n");
        std::ostringstream out;
        try {
            tokenizeJsonlStream(in, out, *tok, false);
            QFAIL("expected a FormatError");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find(expected.toStdString()) == 0, e.what());
        }
        QCOMPARE(outputLines(out.str()).size(), size_t(2));  // the lines before the bad one were written
    }
};

QTEST_APPLESS_MAIN(TestTokenizeStream)
#include "test_tokenize_stream.moc"
