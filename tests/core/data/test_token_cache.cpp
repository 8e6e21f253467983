// Token cache: the first run builds and writes, the second maps the same file and sees exactly the
// sequences buildSftData produces; any change of data, tokenizer or options changes the key; a
// truncated or foreign file is rebuilt, never trusted; no temporary file is left behind.
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

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

void writeData(const std::string& path, int n) {
    std::ofstream out(path);
    for (int i = 0; i < n; ++i)
        out << json{{"instruction", "Say " + std::to_string(i)}, {"output", "Number " + std::to_string(i * 7)}}.dump()
            << "\n";
}

template <class A, class B>
bool sameSequences(const A& view, const B& seqs) {
    if (view.size() != seqs.size()) return false;
    for (int64_t i = 0; i <= view.size(); ++i)
        if (view.offsets[i] != seqs.offsets[i]) return false;
    const auto n = static_cast<size_t>(seqs.offsets.back());
    return std::equal(view.inputIds, view.inputIds + n, seqs.inputIds.begin()) &&
           std::equal(view.labels, view.labels + n, seqs.labels.begin()) &&
           std::equal(view.positionIds, view.positionIds + n, seqs.positionIds.begin());
}

}  // namespace

class TestTokenCache : public QObject {
    Q_OBJECT

private slots:
    // Built once, then mapped: the same arrays as building in memory, with every int64 array 8-byte aligned in the
    // mapping whatever the token counts (an odd train token count misaligned the eval offsets in layout 01).
    void secondRunReusesTheCache() {
        bool sawOddTrainTokens = false;
        for (int rows : {60, 61, 62, 63}) {
            QTemporaryDir dir;
            const std::string data = dir.filePath("d.jsonl").toStdString();
            writeData(data, rows);
            const std::string cache = dir.filePath("cache").toStdString();
            const Tokenizer* tok = &qwen();
            SftOptions o;
            o.trainPath = data;
            o.chatTemplate = "alpaca";
            o.maxLength = 48;
            o.evalFraction = 0.1;
            const SftData reference = buildSftData(o, *tok);
            sawOddTrainTokens |= reference.train.offsets.back() % 2 == 1;

            auto first = loadOrBuildSftData(o, *tok, cache);
            QVERIFY(!first->fromCache());
            auto second = loadOrBuildSftData(o, *tok, cache);
            QVERIFY(second->fromCache());
            QCOMPARE(second->file(), first->file());
            QVERIFY(sameSequences(second->train(), reference.train));
            QVERIFY(sameSequences(second->eval(), reference.eval));
            for (const SftSequencesView* v : {&second->train(), &second->eval()}) {
                QCOMPARE(reinterpret_cast<uintptr_t>(v->offsets) % alignof(int64_t), uintptr_t(0));
                QCOMPARE(reinterpret_cast<uintptr_t>(v->inputIds) % alignof(int32_t), uintptr_t(0));
            }
            QCOMPARE(second->stats().samples, reference.stats.samples);
            QCOMPARE(second->stats().p95Tokens, reference.stats.p95Tokens);
            QCOMPARE(second->stats().chatTemplate, std::string("alpaca"));
            int files = 0;
            for (const auto& e : std::filesystem::directory_iterator(cache)) {
                ++files;
                QVERIFY2(e.path().extension() == ".bin", e.path().c_str());
            }
            QCOMPARE(files, 1);
        }
        QVERIFY(sawOddTrainTokens);  // the case that was misaligned
    }

    void keyChangesWithInputs() {
        QTemporaryDir dir;
        const std::string data = dir.filePath("d.jsonl").toStdString();
        writeData(data, 5);
        const Tokenizer* tok = &qwen();
        SftOptions o;
        o.trainPath = data;
        const std::string k0 = sftCacheKey(o, *tok);
        QCOMPARE(sftCacheKey(o, *tok), k0);
        QCOMPARE(k0.size(), size_t(32));
        SftOptions o2 = o;
        o2.maxLength = 513;
        QVERIFY(sftCacheKey(o2, *tok) != k0);
        o2 = o;
        o2.chatTemplate = "llama3";
        QVERIFY(sftCacheKey(o2, *tok) != k0);
        auto other = Tokenizer::fromFile((std::string(FTS_TEST_DATA_DIR) + "/tokenizers/gpt2/tokenizer.json"));
        QVERIFY(sftCacheKey(o, *other) != k0);
        writeData(data, 6);
        QVERIFY(sftCacheKey(o, *tok) != k0);
    }

    void corruptFileIsRebuilt() {
        QTemporaryDir dir;
        const std::string data = dir.filePath("d.jsonl").toStdString();
        writeData(data, 10);
        const std::string cache = dir.filePath("cache").toStdString();
        const Tokenizer* tok = &qwen();
        SftOptions o;
        o.trainPath = data;
        auto first = loadOrBuildSftData(o, *tok, cache);
        const auto file = first->file();
        first.reset();
        std::filesystem::resize_file(file, std::filesystem::file_size(file) - 3);
        QVERIFY(CachedSftData::open(file, sftCacheKey(o, *tok)) == nullptr);
        auto again = loadOrBuildSftData(o, *tok, cache);
        QVERIFY(!again->fromCache());
        QVERIFY(sameSequences(again->train(), buildSftData(o, *tok).train));
        QVERIFY(CachedSftData::open(file, std::string(32, '0')) == nullptr);
    }
};

QTEST_APPLESS_MAIN(TestTokenCache)
#include "test_token_cache.moc"
