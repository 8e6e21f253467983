// RecordReader: JSONL, JSON arrays, CSV and TXT, streaming, with bad rows reported by line. CSV
// parsing is checked against Python's csv module (RFC 4180 quoting) on a file full of edge cases.
#include "core/data/record_reader.h"
#include "core/util/error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::BadRow;
using fts::Record;
using fts::RecordReader;
using nlohmann::json;

namespace {

std::string write(const QTemporaryDir& dir, const std::string& name, const std::string& content) {
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

struct ReadResult {
    std::vector<Record> records;
    std::vector<BadRow> bad;
};

ReadResult readAll(const std::string& path) {
    RecordReader reader(path);
    ReadResult r;
    Record rec;
    BadRow bad;
    while (true) {
        const auto s = reader.next(rec, bad);
        if (s == RecordReader::Status::End) break;
        if (s == RecordReader::Status::Bad)
            r.bad.push_back(bad);
        else
            r.records.push_back(rec);
    }
    return r;
}

}  // namespace

class TestRecordReader : public QObject {
    Q_OBJECT

private slots:
    void jsonlWithBadRows() {
        QTemporaryDir dir;
        const auto path = write(dir, "d.jsonl", "{\"a\": 1}\n\n{bad json}\n[1, 2]\n{\"a\": 2}\r\n\xff\xfe\n{\"a\": 3}");
        const auto r = readAll(path);
        QCOMPARE(r.records.size(), size_t(3));
        QCOMPARE(r.records[0].line, int64_t(1));
        QCOMPARE(r.records[1].line, int64_t(5));
        QCOMPARE(r.records[2].line, int64_t(7));
        QCOMPARE(r.records[2].value["a"].get<int>(), 3);
        QCOMPARE(r.bad.size(), size_t(3));
        QCOMPARE(r.bad[0].line, int64_t(3));
        QVERIFY2(r.bad[0].message.find("d.jsonl:3: invalid JSON") != std::string::npos, r.bad[0].message.c_str());
        QCOMPARE(r.bad[1].line, int64_t(4));
        QVERIFY(r.bad[1].message.find("expected a JSON object") != std::string::npos);
        QCOMPARE(r.bad[2].line, int64_t(6));
        QVERIFY(r.bad[2].message.find("UTF-8") != std::string::npos);
    }

    void jsonArrayElementByElement() {
        QTemporaryDir dir;
        const std::string text =
            "\xEF\xBB\xBF [\n"
            "  {\"instruction\": \"a ] b } [ {\", \"output\": \"x\\\"y\"},\n"
            "  {\"nested\": {\"k\": [1, [2, {\"z\": \"]\"}]]},\n"
            "   \"s\": \"multi\\nline\"},\n"
            "  42,\n"
            "  {\"broken\": tru},\n"
            "  {\"last\": true}\n"
            "]\n";
        const auto path = write(dir, "d.json", text);
        const auto r = readAll(path);
        // Python's json on the same text is the reference for the good elements.
        QCOMPARE(r.records.size(), size_t(3));
        QCOMPARE(r.records[0].value["instruction"].get<std::string>(), std::string("a ] b } [ {"));
        QCOMPARE(r.records[0].value["output"].get<std::string>(), std::string("x\"y"));
        QCOMPARE(r.records[0].line, int64_t(2));
        QCOMPARE(r.records[1].line, int64_t(3));
        QCOMPARE(r.records[1].value["nested"]["k"][1][1]["z"].get<std::string>(), std::string("]"));
        QCOMPARE(r.records[2].line, int64_t(7));
        QCOMPARE(r.bad.size(), size_t(2));
        QCOMPARE(r.bad[0].line, int64_t(5));
        QCOMPARE(r.bad[1].line, int64_t(6));
    }

    void jsonArrayUnterminated() {
        QTemporaryDir dir;
        const auto r = readAll(write(dir, "d.json", "[{\"a\": 1}, {\"b\": \"open"));
        QCOMPARE(r.records.size(), size_t(1));
        QCOMPARE(r.bad.size(), size_t(1));
        QVERIFY(r.bad[0].message.find("unterminated") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(fts::FormatError, RecordReader(write(dir, "e.json", "{\"a\": 1}")));
    }

    // Our CSV records equal Python csv.DictReader's on the same bytes.
    void csvMatchesPython() {
        QTemporaryDir dir;
        const std::string text =
            "instruction,input,output\r\n"
            "plain,,done\r\n"
            "\"with, comma\",\"say \"\"hi\"\"\",\"multi\nline\r\nfield\"\n"
            "\n"
            "caf\xC3\xA9,\"\",\"trailing\"\n"
            "a,b,c";
        const auto path = write(dir, "d.csv", text);
        const auto r = readAll(path);
        QCOMPARE(r.bad.size(), size_t(0));
        QProcess py;
        py.start(QString::fromUtf8(FTS_TEST_PYTHON), {"-c",
                                                      "import csv,json,sys\n"
                                                      "with open(sys.argv[1], newline='', encoding='utf-8') as f:\n"
                                                      "    print(json.dumps([dict(r) for r in csv.DictReader(f)]))",
                                                      QString::fromStdString(path)});
        QVERIFY(py.waitForFinished(60000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        const json want = json::parse(py.readAllStandardOutput().toStdString());
        QCOMPARE(r.records.size(), want.size());
        for (size_t i = 0; i < r.records.size(); ++i)
            QVERIFY2(r.records[i].value == want[i], (r.records[i].value.dump() + " vs " + want[i].dump()).c_str());
        QCOMPARE(r.records[1].line, int64_t(3));
        QCOMPARE(r.records[2].line, int64_t(7));
    }

    void csvBadRows() {
        QTemporaryDir dir;
        const auto r = readAll(write(dir, "d.csv", "a,b\n1,2\n1,2,3\n\"open,4\n"));
        QCOMPARE(r.records.size(), size_t(1));
        QCOMPARE(r.bad.size(), size_t(2));
        QCOMPARE(r.bad[0].line, int64_t(3));
        QVERIFY(r.bad[0].message.find("expected 2 CSV fields") != std::string::npos);
        QVERIFY(r.bad[1].message.find("unterminated") != std::string::npos);
    }

    void txtAndUnknownExtension() {
        QTemporaryDir dir;
        const auto r = readAll(write(dir, "d.txt", "one\n\ntwo\r\n"));
        QCOMPARE(r.records.size(), size_t(2));
        QCOMPARE(r.records[1].value["text"].get<std::string>(), std::string("two"));
        QCOMPARE(r.records[1].line, int64_t(3));
        QVERIFY_THROWS_EXCEPTION(fts::FormatError, RecordReader(write(dir, "d.parquet", "x")));
        QVERIFY_THROWS_EXCEPTION(fts::IoError, RecordReader(dir.filePath("missing.jsonl").toStdString()));
    }
};

QTEST_APPLESS_MAIN(TestRecordReader)
#include "test_record_reader.moc"
