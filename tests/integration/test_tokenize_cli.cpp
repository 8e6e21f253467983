// The `fts tokenize --tokenizer FILE [--special]` contract, end to end through the real binary: the
// corpus on stdin gives one {"ids": [...]} line per input line, equal to HF tokenizers' ids (live, via
// FTS_TEST_PYTHON) for every golden tokenizer, with and without special tokens; a bad line fails
// with its line number on stderr after the good lines before it were written.
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;

namespace {

const std::string kData = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

struct Result {
    int exitCode = -1;
    QByteArray out, err;
};

Result run(const QString& program, const QStringList& args, const QByteArray& input) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted(60000)) return {};
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(240000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

std::vector<json> jsonLines(const QByteArray& bytes) {
    std::vector<json> rows;
    std::istringstream in(bytes.toStdString());
    std::string line;
    while (std::getline(in, line, '\n'))
        if (!line.empty()) rows.push_back(json::parse(line));
    return rows;
}

QByteArray readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return QByteArray::fromStdString(ss.str());
}

}  // namespace

class TestTokenizeCli : public QObject {
    Q_OBJECT

private slots:
    void matchesHf_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"gpt2", "qwen3", "mistral-7b", "bert-base-uncased"}) QTest::newRow(n) << n;
    }

    void matchesHf() {
        QFETCH(QString, name);
        const std::string tokPath = kData + name.toStdString() + "/tokenizer.json";
        const std::string corpusPath = kData + "corpus.jsonl";
        const QByteArray corpus = readAll(corpusPath);
        QVERIFY(!corpus.isEmpty());

        const Result ref = run(QString::fromUtf8(FTS_TEST_PYTHON),
                               {QString::fromStdString(kData + "hf_reference.py"), QString::fromStdString(tokPath),
                                QString::fromStdString(corpusPath)},
                               {});
        QVERIFY2(ref.exitCode == 0, (std::string("the HF reference (tokenizers in ") + FTS_TEST_PYTHON +
                                     ") failed: " + ref.err.toStdString())
                                        .c_str());
        const auto want = jsonLines(ref.out);

        for (bool special : {false, true}) {
            QStringList args{"tokenize", "--tokenizer", QString::fromStdString(tokPath)};
            if (special) args << "--special";
            const Result got = run(QString::fromUtf8(FTS_CLI_PATH), args, corpus);
            QVERIFY2(got.exitCode == 0, got.err.constData());
            const auto rows = jsonLines(got.out);
            QCOMPARE(rows.size(), want.size());
            for (size_t i = 0; i < rows.size(); ++i) {
                QVERIFY2(rows[i].is_object() && rows[i].size() == 1 && rows[i].contains("ids"), rows[i].dump().c_str());
                const json& expected = want[i][special ? "ids_special" : "ids"];
                QVERIFY2(rows[i]["ids"] == expected, ("line " + std::to_string(i + 1) + (special ? " --special" : "") +
                                                      ": got " + rows[i]["ids"].dump() + " want " + expected.dump())
                                                         .c_str());
            }
        }
    }

    void badLineNamesItsNumber() {
        const QByteArray input = "{\"text\": \"hello\"}\n{\"text\": 5}\n{\"text\": \"never\"}\n";
        const Result got =
            run(QString::fromUtf8(FTS_CLI_PATH),
                {"tokenize", "--tokenizer", QString::fromStdString(kData + "gpt2/tokenizer.json")}, input);
        QVERIFY(got.exitCode != 0);
        QVERIFY2(got.err.contains("stdin:2"), got.err.constData());
        QCOMPARE(jsonLines(got.out).size(), size_t(1));
    }
};

QTEST_APPLESS_MAIN(TestTokenizeCli)
#include "test_tokenize_cli.moc"
