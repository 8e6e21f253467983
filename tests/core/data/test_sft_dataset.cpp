// Instruction / chat datasets: formats (Alpaca, ShareGPT, OpenAI messages, plain text) with the
// Qwen3 tokenizer and ChatML; loss only on the assistant replies; truncation and dropping; packing
// (position ids restart per sample, boundaries, nothing lost); seeded split and shuffle; bad rows
// counted with their lines under both policies; the preview API and its statistics.
#include "core/data/sft_dataset.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {

const std::string kQwen = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/qwen3/tokenizer.json");

const Tokenizer& qwen() {
    static auto tok = Tokenizer::fromFile(kQwen);
    return *tok;
}

std::string writeLines(const QTemporaryDir& dir, const std::string& name, const std::vector<json>& rows) {
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream out(path, std::ios::binary);
    for (const json& r : rows) out << r.dump() << '\n';
    return path;
}

json chat(const std::string& u, const std::string& a) {
    return {{"messages", {{{"role", "user"}, {"content", u}}, {{"role", "assistant"}, {"content", a}}}}};
}

std::vector<json> manyChats(int n) {
    std::vector<json> rows;
    for (int i = 0; i < n; ++i)
        rows.push_back(chat("question " + std::to_string(i) + std::string(i % 7, '?'),
                            "answer number " + std::to_string(i * 31) + std::string(i % 5, '!')));
    return rows;
}

SftOptions options(const std::string& train) {
    SftOptions o;
    o.trainPath = train;
    o.chatTemplate = "chatml";
    o.maxLength = 64;
    o.packing = false;
    o.shuffle = false;
    return o;
}

}  // namespace

class TestSftDataset : public QObject {
    Q_OBJECT

private slots:
    // Tokens with a label are exactly the assistant reply and its <|im_end|>; the ids equal the
    // tokenizer's ids of the whole rendered text.
    void labelsOnlyOnResponses_data() {
        QTest::addColumn<QString>("row");
        QTest::addColumn<QString>("reply");
        QTest::newRow("messages") << QString::fromStdString(
                                         json{{"messages",
                                               {{{"role", "system"}, {"content", "Be nice."}},
                                                {{"role", "user"}, {"content", "Hi there"}},
                                                {{"role", "assistant"}, {"content", "Hello, friend."}}}}}
                                             .dump())
                                  << "Hello, friend.";
        QTest::newRow("sharegpt") << QString::fromStdString(json{
                                         {"conversations",
                                          {{{"from", "human"}, {"value", "2+2?"}}, {{"from", "gpt"}, {"value", "4"}}}}}
                                                                .dump())
                                  << "4";
        QTest::newRow("alpaca") << QString::fromStdString(
                                       json{{"instruction", "Translate"}, {"input", "chat"}, {"output", "cat"}}.dump())
                                << "cat";
    }
    void labelsOnlyOnResponses() {
        QFETCH(QString, row);
        QFETCH(QString, reply);
        QTemporaryDir dir;
        const auto path = writeLines(dir, "d.jsonl", {json::parse(row.toStdString())});
        const SftData d = buildSftData(options(path), qwen());
        QCOMPARE(d.train.size(), int64_t(1));
        std::vector<int32_t> learned;
        for (size_t i = 0; i < d.train.labels.size(); ++i) {
            if (d.train.labels[i] != -100) {
                QCOMPARE(d.train.labels[i], d.train.inputIds[i]);
                learned.push_back(d.train.inputIds[i]);
            }
        }
        QCOMPARE(qwen().decode(learned), reply.toStdString() + "<|im_end|>");
        const DataPreview p = previewSftData(options(path), qwen(), 1);
        std::string full;
        for (const auto& s : p.samples.at(0).segments) full += s.text;
        QCOMPARE(d.train.inputIds, qwen().encode(full));
        QVERIFY(full.rfind("<|im_start|>", 0) == 0);
    }

    void autoFormatAndText() {
        QTemporaryDir dir;
        const auto path = writeLines(dir, "d.jsonl", {json{{"text", "Plain text document."}}, chat("q", "a")});
        SftOptions o = options(path);
        const SftData d = buildSftData(o, qwen());
        QCOMPARE(d.train.size(), int64_t(2));
        // Plain text: every token is learned, EOS appended.
        std::vector<int32_t> first(d.train.inputIds.begin(), d.train.inputIds.begin() + d.train.length(0));
        std::vector<int32_t> want = qwen().encode("Plain text document.", true);
        want.push_back(*qwen().eosTokenId());
        QCOMPARE(first, want);
        QVERIFY(std::equal(first.begin(), first.end(), d.train.labels.begin()));
    }

    void truncationAndDropping() {
        QTemporaryDir dir;
        std::string longText;
        for (int i = 0; i < 100; ++i) longText += " w" + std::to_string(i);
        const auto path = writeLines(dir, "d.jsonl", {chat(longText, "never seen"), chat("short", longText)});
        const SftData d = buildSftData(options(path), qwen());
        QCOMPARE(d.stats.dropped, int64_t(1));  // the reply lies beyond max_length
        QCOMPARE(d.stats.truncated, int64_t(2));
        QCOMPARE(d.train.size(), int64_t(1));
        QCOMPARE(d.train.length(0), int64_t(64));
    }

    void packing() {
        QTemporaryDir dir;
        const auto path = writeLines(dir, "d.jsonl", manyChats(40));
        SftOptions o = options(path);
        const SftData plain = buildSftData(o, qwen());
        o.packing = true;
        const SftData packed = buildSftData(o, qwen());
        QVERIFY(packed.train.size() < plain.train.size());
        QCOMPARE(packed.train.inputIds, plain.train.inputIds);  // same order, nothing lost or split
        QCOMPARE(packed.train.positionIds, plain.train.positionIds);
        int64_t samples = 0;
        for (int64_t i = 0; i < packed.train.size(); ++i) {
            QVERIFY(packed.train.length(i) <= o.maxLength);
            const auto cu = packed.train.sampleBoundaries(i);
            QCOMPARE(cu.front(), 0);
            QCOMPARE(int64_t(cu.back()), packed.train.length(i));
            samples += static_cast<int64_t>(cu.size()) - 1;
            // No loss on the first token of a packed sample (nothing before it in its own sample).
            for (size_t k = 1; k + 1 < cu.size(); ++k)
                QCOMPARE(packed.train.labels[packed.train.offsets[i] + cu[k]], -100);
        }
        QCOMPARE(samples, plain.train.size());
    }

    // Tokenizing threads do not change the result (batches are applied in file order).
    void threadCountIndependent() {
        QTemporaryDir dir;
        std::vector<json> rows = manyChats(700);
        rows[300] = json{{"instruction", 5}};
        const auto path = writeLines(dir, "d.jsonl", rows);
        SftOptions o = options(path);
        o.packing = true;
        o.shuffle = true;
        o.threads = 1;
        const SftData one = buildSftData(o, qwen());
        o.threads = 3;
        const SftData three = buildSftData(o, qwen());
        QCOMPARE(three.train.inputIds, one.train.inputIds);
        QCOMPARE(three.train.labels, one.train.labels);
        QCOMPARE(three.train.offsets, one.train.offsets);
        QCOMPARE(three.stats.badRowMessages, one.stats.badRowMessages);
        QCOMPARE(one.stats.badRows, int64_t(1));
        QVERIFY(one.stats.badRowMessages.at(0).find("d.jsonl:301:") != std::string::npos);
    }

    void splitAndShuffle() {
        QTemporaryDir dir;
        const auto path = writeLines(dir, "d.jsonl", manyChats(50));
        SftOptions o = options(path);
        o.evalFraction = 0.2;
        o.shuffle = true;
        const SftData a = buildSftData(o, qwen());
        const SftData b = buildSftData(o, qwen());
        QCOMPARE(a.eval.size(), int64_t(10));
        QCOMPARE(a.train.size(), int64_t(40));
        QCOMPARE(a.train.inputIds, b.train.inputIds);
        QCOMPARE(a.eval.inputIds, b.eval.inputIds);
        o.seed = 7;
        const SftData c = buildSftData(o, qwen());
        QVERIFY(c.train.inputIds != a.train.inputIds);
        // Train and eval are disjoint and together are all samples.
        auto sampleSet = [](const SftSequences& s) {
            std::vector<std::vector<int32_t>> v;
            for (int64_t i = 0; i < s.size(); ++i)
                v.emplace_back(s.inputIds.begin() + s.offsets[i], s.inputIds.begin() + s.offsets[i + 1]);
            return v;
        };
        auto all = sampleSet(a.train);
        for (auto& e : sampleSet(a.eval)) {
            QVERIFY(std::find(all.begin(), all.end(), e) == all.end());
            all.push_back(e);
        }
        const SftData full = buildSftData(options(path), qwen());
        auto want = sampleSet(full.train);
        std::sort(all.begin(), all.end());
        std::sort(want.begin(), want.end());
        QCOMPARE(all, want);
    }

    void badRows() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("d.jsonl").toStdString();
        {
            std::ofstream out(path);
            out << chat("a", "b").dump() << "\n"
                << "{not json\n"
                << json{{"messages", "not a list"}}.dump() << "\n"
                << json{{"instruction", "x"}}.dump() << "\n"
                << json{{"messages", {{{"role", "robot"}, {"content", "x"}}}}}.dump() << "\n"
                << json{{"conversations", {{{"from", "human"}, {"value", 3}}}}}.dump() << "\n"
                << chat("c", "d").dump() << "\n";
        }
        SftOptions o = options(path);
        o.maxBadRowsShown = 3;
        const SftData d = buildSftData(o, qwen());
        QCOMPARE(d.stats.badRows, int64_t(5));
        QCOMPARE(d.stats.records, int64_t(7));
        QCOMPARE(d.train.size(), int64_t(2));
        QCOMPARE(d.stats.badRowMessages.size(), size_t(3));
        QVERIFY2(d.stats.badRowMessages[0].find("d.jsonl:2:") != std::string::npos, d.stats.badRowMessages[0].c_str());
        QVERIFY2(d.stats.badRowMessages[1].find("d.jsonl:3:") != std::string::npos, d.stats.badRowMessages[1].c_str());
        QVERIFY2(d.stats.badRowMessages[2].find("d.jsonl:4: missing field 'output'") != std::string::npos,
                 d.stats.badRowMessages[2].c_str());
        o.badRows = BadRowPolicy::Stop;
        try {
            buildSftData(o, qwen());
            QFAIL("expected a FormatError");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find("d.jsonl:2:") != std::string::npos, e.what());
        }
    }

    // First N samples with the masked spans marked; token statistics over all samples (nearest-rank
    // percentiles of the untruncated lengths, recomputed here from the samples themselves).
    void preview() {
        QTemporaryDir dir;
        const auto rows = manyChats(30);
        const auto path = writeLines(dir, "d.jsonl", rows);
        SftOptions o = options(path);
        o.maxLength = 4096;
        const DataPreview p = previewSftData(o, qwen(), 3);
        QCOMPARE(p.samples.size(), size_t(3));
        QCOMPARE(p.samples[1].line, int64_t(2));
        QCOMPARE(
            markMaskedSpans(p.samples[0].segments),
            std::string(
                "[[<|im_start|>user\nquestion 0<|im_end|>\n<|im_start|>assistant\n]]answer number 0<|im_end|>[[\n]]"));
        std::vector<int64_t> lengths;
        for (const json& r : rows) {
            std::string text;
            for (const auto& m : r["messages"])
                text += "<|im_start|>" + m["role"].get<std::string>() + "\n" + m["content"].get<std::string>() +
                        "<|im_end|>\n";
            lengths.push_back(static_cast<int64_t>(qwen().encode(text).size()));
        }
        std::sort(lengths.begin(), lengths.end());
        double mean = 0;
        for (auto l : lengths) mean += l;
        mean /= lengths.size();
        QCOMPARE(p.stats.samples, int64_t(30));
        QCOMPARE(p.stats.maxTokens, lengths.back());
        QCOMPARE(p.stats.p50Tokens, double(lengths[14]));  // ceil(0.5 * 30) = 15th
        QCOMPARE(p.stats.p95Tokens, double(lengths[28]));  // ceil(0.95 * 30) = 29th
        QVERIFY(std::abs(p.stats.meanTokens - mean) < 1e-9);
        QCOMPARE(p.stats.chatTemplate, std::string("chatml"));
    }
};

QTEST_APPLESS_MAIN(TestSftDataset)
#include "test_sft_dataset.moc"
