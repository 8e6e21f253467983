// Dataset readers (.txt/.jsonl, bad rows reported with file and line) and causal-LM block building
// (EOS per document, exact blocks, dropped tail, held-out documents chosen by seed, minimum sizes).
// The oracle for blocks is the tokenizer itself, applied document by document.
#include "core/data/text_dataset.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using Ids = std::vector<int32_t>;

namespace {

const std::string kData = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

class Files {
public:
    std::string write(const std::string& name, const std::string& bytes) {
        const std::string path = m_dir.filePath(QString::fromStdString(name)).toStdString();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }

private:
    QTemporaryDir m_dir;
};

std::vector<TextDocument> readAll(const std::string& path, const std::string& field = "text") {
    TextDocumentReader reader(path, field);
    std::vector<TextDocument> docs;
    TextDocument d;
    while (reader.next(d)) docs.push_back(d);
    return docs;
}

// Distinct documents of varied length: "doc <i>: <words>".
std::vector<std::string> makeDocuments(int count) {
    static const char* const words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"};
    std::vector<std::string> docs;
    for (int i = 0; i < count; ++i) {
        std::string d = "doc " + std::to_string(i) + ":";
        for (int w = 0; w < 3 + (i * 7) % 11; ++w) d += std::string(" ") + words[(i + w * 3) % 8];
        docs.push_back(d);
    }
    return docs;
}

std::string asTxt(const std::vector<std::string>& docs) {
    std::string s;
    for (const auto& d : docs) s += d + "\n";
    return s;
}

Ids docTokens(const Tokenizer& tok, const std::string& text, bool special = true, bool eos = true) {
    Ids ids = tok.encode(text, special);
    if (eos && tok.eosTokenId() && (ids.empty() || ids.back() != *tok.eosTokenId())) ids.push_back(*tok.eosTokenId());
    return ids;
}

}  // namespace

class TestTextDataset : public QObject {
    Q_OBJECT

private slots:
    void txtReader() {
        Files f;
        const auto path = f.write("a.txt", "\xEF\xBB\xBFone\n\ntwo words\r\n\n\xE2\x80\xA8three\xC2\x85");
        TextDocumentReader reader(path);
        TextDocument d;
        QVERIFY(reader.next(d));
        QCOMPARE(d.text, std::string("one"));  // BOM dropped
        QCOMPARE(d.line, int64_t(1));
        QVERIFY(reader.next(d));
        QCOMPARE(d.text, std::string("two words"));  // '\r' dropped
        QCOMPARE(d.line, int64_t(3));
        QVERIFY(reader.next(d));
        QCOMPARE(d.text, std::string("\xE2\x80\xA8three\xC2\x85"));  // only '\n' separates lines
        QCOMPARE(d.line, int64_t(5));
        QVERIFY(!reader.next(d));
        QCOMPARE(reader.documents(), int64_t(3));
        QCOMPARE(reader.skippedEmpty(), int64_t(2));
        QCOMPARE(reader.lines(), int64_t(5));
    }

    void jsonlReader() {
        Files f;
        const auto path = f.write("a.JSONL",
                                  "{\"content\": \"first\", \"id\": 1}\n"
                                  "   \n"
                                  "{\"content\": \"\"}\n"
                                  "{\"content\": \"line\u2028sep \\u00e9\\n\", \"x\": null}\n");
        const auto docs = readAll(path, "content");
        QCOMPARE(docs.size(), size_t(2));
        QCOMPARE(docs[0].text, std::string("first"));
        QCOMPARE(docs[0].line, int64_t(1));
        QCOMPARE(docs[1].text, std::string("line\u2028sep \xC3\xA9\n"));
        QCOMPARE(docs[1].line, int64_t(4));
        TextDocumentReader reader(path, "content");
        TextDocument d;
        while (reader.next(d)) {
        }
        QCOMPARE(reader.skippedEmpty(), int64_t(2));  // the blank line and the empty text
    }

    void badRows_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");  // after "<file>"
        QTest::newRow("invalid JSON") << "d.jsonl"
                                      << QByteArray("{\"text\": \"a\"}\n{\"text\": \"b\"}\n{\"text\": oops}\n")
                                      << ":3: invalid JSON";
        QTest::newRow("nested 100000 deep")
            << "d.jsonl" << QByteArray("{\"text\": \"a\"}\n{\"text\": ") + QByteArray(100000, '[') + "\n"
            << ":2: invalid JSON: [json.exception.parse_error.101] parse error at byte 521";
        QTest::newRow("not an object") << "d.jsonl" << QByteArray("{\"text\": \"a\"}\n[\"text\"]\n")
                                       << ":2: expected a JSON object";
        QTest::newRow("missing field") << "d.jsonl" << QByteArray("{\"body\": \"a\"}\n")
                                       << ":1: missing field \"text\" (the object has: body)";
        QTest::newRow("number field") << "d.jsonl" << QByteArray("{\"text\": \"a\"}\n{\"text\": 5}\n")
                                      << ":2: field \"text\" must be a string, found number";
        QTest::newRow("null field") << "d.jsonl" << QByteArray("{\"text\": null}\n")
                                    << ":1: field \"text\" must be a string, found null";
        QTest::newRow("invalid UTF-8 in JSON")
            << "d.jsonl" << QByteArray("{\"text\": \"a\xFF\"}\n") << ":1: invalid JSON";
        QTest::newRow("invalid UTF-8 in txt")
            << "d.txt" << QByteArray("fine\nbad \xC3\x28 byte\n") << ":2: not valid UTF-8 (byte 5";
        QTest::newRow("empty file") << "d.txt" << QByteArray() << ": the file is empty";
        QTest::newRow("only empty lines")
            << "d.txt" << QByteArray("\n\n\r\n") << ": no documents: all 3 line(s) are empty";
        QTest::newRow("jsonl of empty texts") << "d.jsonl" << QByteArray("{\"text\": \"\"}\n\n") << ": no documents";
        QTest::newRow("unknown extension")
            << "d.csv" << QByteArray("text\nhello\n") << ": unsupported dataset file extension '.csv'";
    }
    void badRows() {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        Files f;
        const auto path = f.write(name.toStdString(), content.toStdString());
        try {
            readAll(path);
            QFAIL("expected a FormatError");
        } catch (const FormatError& e) {
            const std::string want = path + expected.toStdString();
            QVERIFY2(std::string(e.what()).find(want) != std::string::npos,
                     (std::string(e.what()) + "\n  wanted: " + want).c_str());
        }
    }

    void missingFile() { QVERIFY_THROWS_EXCEPTION(IoError, TextDocumentReader("/nonexistent/data.jsonl")); }

    // Blocks are the documents' tokens (+EOS) concatenated in file order and cut every maxLength.
    void blocksWithEvalFile() {
        auto tok = Tokenizer::fromFile(kData + "gpt2/tokenizer.json");
        const auto trainDocs = makeDocuments(30);
        const auto evalDocs = makeDocuments(8);
        Files f;
        LmDataOptions o;
        o.trainPath = f.write("train.txt", asTxt(trainDocs) + "\n\n");
        o.evalPath = f.write("eval.jsonl", [&] {
            std::string s;
            for (const auto& d : evalDocs) s += nlohmann::json({{"text", d}}).dump() + "\n";
            return s;
        }());
        o.maxLength = 7;
        const LmDataSplit split = buildLmData(o, *tok);

        Ids stream;
        for (const auto& d : trainDocs) {
            const Ids ids = docTokens(*tok, d);
            QCOMPARE(ids.back(), int32_t(50256));
            stream.insert(stream.end(), ids.begin(), ids.end());
        }
        const int64_t blocks = static_cast<int64_t>(stream.size()) / 7;
        QCOMPARE(split.train.numBlocks(), blocks);
        QCOMPARE(split.train.blockLength, int64_t(7));
        stream.resize(static_cast<size_t>(blocks * 7));
        QCOMPARE(split.train.tokens, stream);
        QCOMPARE(split.stats.trainTokensDropped, int64_t(split.stats.trainTokens - blocks * 7));
        QVERIFY(split.stats.trainTokensDropped < 7);
        QCOMPARE(split.stats.trainDocuments, int64_t(30));
        QCOMPARE(split.stats.evalDocuments, int64_t(8));
        QCOMPARE(split.stats.skippedEmpty, int64_t(2));
        QCOMPARE(Ids(split.train.block(2), split.train.block(2) + 7), Ids(stream.begin() + 14, stream.begin() + 21));
        QVERIFY_THROWS_EXCEPTION(Error, split.train.block(blocks));

        Ids evalStream;
        for (const auto& d : evalDocs) {
            const Ids ids = docTokens(*tok, d);
            evalStream.insert(evalStream.end(), ids.begin(), ids.end());
        }
        evalStream.resize(evalStream.size() / 7 * 7);
        QCOMPARE(split.eval.tokens, evalStream);
    }

    // The thread count changes nothing but speed.
    void threadsGiveSameBlocks() {
        auto tok = Tokenizer::fromFile(kData + "qwen3/tokenizer.json");
        Files f;
        LmDataOptions o;
        o.trainPath = f.write("train.txt", asTxt(makeDocuments(3000)));
        o.maxLength = 64;
        o.threads = 1;
        const LmDataSplit one = buildLmData(o, *tok);
        o.threads = 3;
        const LmDataSplit three = buildLmData(o, *tok);
        QCOMPARE(three.train.tokens, one.train.tokens);
        QCOMPARE(three.eval.tokens, one.eval.tokens);
        QCOMPARE(three.stats.trainTokens, one.stats.trainTokens);
        QVERIFY(one.train.numBlocks() > 100);
    }

    // Held-out DOCUMENTS: every document lands whole on exactly one side, file order is kept on
    // both, the choice depends only on the seed. maxLength 1 drops no tail, so both streams can be
    // decomposed exactly into documents (they are distinct from their first tokens on).
    void heldOutDocuments() {
        auto tok = Tokenizer::fromFile(kData + "gpt2/tokenizer.json");
        const auto docs = makeDocuments(200);
        Files f;
        LmDataOptions o;
        o.trainPath = f.write("train.txt", asTxt(docs));
        o.evalFraction = 0.1;
        o.maxLength = 1;
        o.seed = 7;
        const LmDataSplit a = buildLmData(o, *tok);
        QCOMPARE(a.stats.evalDocuments, int64_t(20));
        QCOMPARE(a.stats.trainDocuments, int64_t(180));
        QCOMPARE(a.eval.numDocuments, int64_t(20));

        std::set<int> evalDocs;
        size_t p = 0, q = 0;
        for (int i = 0; i < 200; ++i) {
            const Ids t = docTokens(*tok, docs[i]);
            auto matchesAt = [&](const Ids& stream, size_t at) {
                return at + t.size() <= stream.size() &&
                       std::equal(t.begin(), t.end(), stream.begin() + static_cast<std::ptrdiff_t>(at));
            };
            if (matchesAt(a.eval.tokens, p)) {
                evalDocs.insert(i);
                p += t.size();
            } else {
                QVERIFY2(matchesAt(a.train.tokens, q),
                         ("document " + std::to_string(i) + " is on neither side in order").c_str());
                q += t.size();
            }
        }
        QCOMPARE(p, a.eval.tokens.size());
        QCOMPARE(q, a.train.tokens.size());
        QCOMPARE(evalDocs.size(), size_t(20));

        // Same seed: same split. Another seed: another choice of documents.
        const LmDataSplit again = buildLmData(o, *tok);
        QCOMPARE(again.train.tokens, a.train.tokens);
        QCOMPARE(again.eval.tokens, a.eval.tokens);
        o.seed = 8;
        const LmDataSplit other = buildLmData(o, *tok);
        QVERIFY(other.eval.tokens != a.eval.tokens);
        QCOMPARE(other.stats.evalDocuments, int64_t(20));
    }

    // A tiny fraction still holds out one document, and more while eval is shorter than a block.
    void minimumEvalBlock() {
        auto tok = Tokenizer::fromFile(kData + "gpt2/tokenizer.json");
        const auto docs = makeDocuments(10);
        Files f;
        LmDataOptions o;
        o.trainPath = f.write("train.txt", asTxt(docs));
        o.evalFraction = 0.001;  // rounds to 0 documents
        o.maxLength = 40;        // longer than any one document
        const LmDataSplit s = buildLmData(o, *tok);
        QVERIFY(s.stats.evalDocuments >= 2);
        QCOMPARE(s.eval.numBlocks(), int64_t(1));
        QVERIFY(s.train.numBlocks() >= 1);
        QCOMPARE(s.stats.evalDocuments + s.stats.trainDocuments, int64_t(10));
    }

    void notEnoughData_data() {
        QTest::addColumn<int>("documents");
        QTest::addColumn<int>("maxLength");
        QTest::addColumn<bool>("withEvalFile");
        QTest::addColumn<QString>("expected");
        QTest::newRow("one document") << 1 << 4 << false << "at least 2 are needed";
        QTest::newRow("no eval block possible")
            << 3 << 30 << false << "not enough data to hold out one eval block of max_length=30";
        QTest::newRow("no training block") << 2 << 1000 << true << "make no block of max_length=1000";
    }
    void notEnoughData() {
        QFETCH(int, documents);
        QFETCH(int, maxLength);
        QFETCH(bool, withEvalFile);
        QFETCH(QString, expected);
        auto tok = Tokenizer::fromFile(kData + "gpt2/tokenizer.json");
        Files f;
        LmDataOptions o;
        o.trainPath = f.write("train.txt", asTxt(makeDocuments(documents)));
        if (withEvalFile) o.evalPath = f.write("eval.txt", asTxt(makeDocuments(documents)));
        o.maxLength = maxLength;
        try {
            buildLmData(o, *tok);
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("train.txt") != std::string::npos, e.what());
        }
    }

    void noEvalSplit() {
        auto tok = Tokenizer::fromFile(kData + "gpt2/tokenizer.json");
        Files f;
        LmDataOptions o;
        o.trainPath = f.write("train.txt", asTxt(makeDocuments(5)));
        o.evalFraction = 0.0;
        o.maxLength = 8;
        const LmDataSplit s = buildLmData(o, *tok);
        QCOMPARE(s.eval.numBlocks(), int64_t(0));
        QCOMPARE(s.stats.trainDocuments, int64_t(5));
        o.maxLength = 0;
        QVERIFY_THROWS_EXCEPTION(ConfigError, buildLmData(o, *tok));
        o.maxLength = 8;
        o.evalFraction = 1.0;
        QVERIFY_THROWS_EXCEPTION(ConfigError, buildLmData(o, *tok));
    }

    // A template that already ends with EOS (</s>) gets no second EOS; appendEos=false adds none.
    void eosNotDoubled() {
        auto tok = Tokenizer::fromFile(kData + "toy/split_template.json");
        QVERIFY(tok->eosTokenId().has_value());
        Files f;
        LmDataOptions o;
        o.trainPath = f.write("train.txt", "abc\ndef\n");
        o.evalFraction = 0.0;
        o.maxLength = 1;
        const LmDataSplit s = buildLmData(o, *tok);
        Ids want = tok->encode("abc", true);
        QCOMPARE(want.back(), *tok->eosTokenId());
        const Ids second = tok->encode("def", true);
        want.insert(want.end(), second.begin(), second.end());
        QCOMPARE(s.train.tokens, want);

        o.addSpecialTokens = false;
        o.appendEos = false;
        const LmDataSplit plain = buildLmData(o, *tok);
        Ids bare = tok->encode("abc");
        const Ids bare2 = tok->encode("def");
        bare.insert(bare.end(), bare2.begin(), bare2.end());
        QCOMPARE(plain.train.tokens, bare);
    }
};

QTEST_APPLESS_MAIN(TestTextDataset)
#include "test_text_dataset.moc"
