// BlockSampler: seeded epoch permutations, rank partition covering each epoch exactly once, and
// resume from a saved (JSON round-tripped) state continuing the uninterrupted sequence exactly.
#include "core/data/block_sampler.h"
#include "core/util/error.h"

#include <QtTest>

#include <algorithm>
#include <numeric>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

std::vector<int64_t> take(BlockSampler& s, int64_t n) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < n; ++i) out.push_back(s.next());
    return out;
}

}  // namespace

class TestBlockSampler : public QObject {
    Q_OBJECT

private slots:
    void epochsArePermutations() {
        BlockSampler s(97, 1234);
        std::vector<std::vector<int64_t>> epochs;
        for (int e = 0; e < 3; ++e) {
            QCOMPARE(s.blocksPerEpoch(), int64_t(97));
            auto ids = take(s, 97);
            QCOMPARE(s.epoch(), int64_t(e));
            epochs.push_back(ids);
            std::sort(ids.begin(), ids.end());
            std::vector<int64_t> all(97);
            std::iota(all.begin(), all.end(), 0);
            QCOMPARE(ids, all);
        }
        QVERIFY(epochs[0] != epochs[1]);  // reshuffled every epoch
        QVERIFY(epochs[1] != epochs[2]);
        s.next();
        QCOMPARE(s.epoch(), int64_t(3));
    }

    void deterministic() {
        BlockSampler a(50, 9), b(50, 9), c(50, 10);
        const auto sa = take(a, 160), sb = take(b, 160), sc = take(c, 160);
        QCOMPARE(sa, sb);
        QVERIFY(sa != sc);
        QCOMPARE(BlockSampler::epochPermutation(50, 9, 1).size(), size_t(50));
    }

    void rankPartition_data() {
        QTest::addColumn<int>("numBlocks");
        QTest::addColumn<int>("worldSize");
        QTest::newRow("even") << 40 << 4;
        QTest::newRow("uneven") << 10 << 3;
        QTest::newRow("one block each") << 5 << 5;
        QTest::newRow("prime") << 101 << 8;
    }
    // Within every epoch the ranks together take each block exactly once; rank r takes the
    // permutation positions r, r+N, ...; per-rank counts differ by at most one.
    void rankPartition() {
        QFETCH(int, numBlocks);
        QFETCH(int, worldSize);
        const uint64_t seed = 77;
        std::vector<BlockSampler> ranks;
        for (int r = 0; r < worldSize; ++r) ranks.emplace_back(numBlocks, seed, r, worldSize);
        int64_t minCount = numBlocks, maxCount = 0;
        for (int64_t e = 0; e < 3; ++e) {
            const auto perm = BlockSampler::epochPermutation(numBlocks, seed, e);
            std::vector<int> seen(static_cast<size_t>(numBlocks), 0);
            for (int r = 0; r < worldSize; ++r) {
                const int64_t count = ranks[r].blocksPerEpoch();
                minCount = std::min(minCount, count);
                maxCount = std::max(maxCount, count);
                for (int64_t i = 0; i < count; ++i) {
                    const int64_t b = ranks[r].next();
                    QCOMPARE(ranks[r].epoch(), e);
                    QCOMPARE(b, int64_t(perm[static_cast<size_t>(r + i * worldSize)]));
                    ++seen[static_cast<size_t>(b)];
                }
            }
            for (int b = 0; b < numBlocks; ++b) QCOMPARE(seen[b], 1);
        }
        QVERIFY(maxCount - minCount <= 1);
    }

    void resume_data() {
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("worldSize");
        QTest::addColumn<int>("stop");
        QTest::newRow("mid epoch") << 0 << 1 << 13;
        QTest::newRow("epoch end") << 0 << 1 << 23;
        QTest::newRow("later epoch") << 0 << 1 << 57;
        QTest::newRow("rank 2 of 3") << 2 << 3 << 11;
        QTest::newRow("rank 1 of 3 at boundary") << 1 << 3 << 8;
        QTest::newRow("fresh") << 0 << 2 << 0;
    }
    // Saving after `stop` blocks and restoring into a new sampler continues exactly.
    void resume() {
        QFETCH(int, rank);
        QFETCH(int, worldSize);
        QFETCH(int, stop);
        const int64_t numBlocks = 23;
        BlockSampler uninterrupted(numBlocks, 5, rank, worldSize);
        const auto whole = take(uninterrupted, stop + 60);

        BlockSampler first(numBlocks, 5, rank, worldSize);
        const auto before = take(first, stop);
        const std::string saved = first.state().toJson().dump();

        BlockSampler resumed(numBlocks, 5, rank, worldSize);
        resumed.restore(SamplerState::fromJson(nlohmann::json::parse(saved)));
        QCOMPARE(resumed.epoch(), first.epoch());
        auto joined = before;
        const auto after = take(resumed, 60);
        joined.insert(joined.end(), after.begin(), after.end());
        QCOMPARE(joined, whole);
    }

    void invalidUse() {
        QVERIFY_THROWS_EXCEPTION(Error, BlockSampler(3, 1, 0, 4));   // fewer blocks than ranks
        QVERIFY_THROWS_EXCEPTION(Error, BlockSampler(10, 1, 4, 4));  // rank out of range
        QVERIFY_THROWS_EXCEPTION(Error, BlockSampler(10, 1, -1, 4));
        QVERIFY_THROWS_EXCEPTION(Error, BlockSampler(0, 1));

        BlockSampler a(10, 1, 0, 2);
        take(a, 3);
        SamplerState s = a.state();
        BlockSampler otherSeed(10, 2, 0, 2);
        QVERIFY_THROWS_EXCEPTION(Error, otherSeed.restore(s));
        BlockSampler otherWorld(10, 1, 0, 1);
        QVERIFY_THROWS_EXCEPTION(Error, otherWorld.restore(s));
        s.position = 99;
        BlockSampler same(10, 1, 0, 2);
        QVERIFY_THROWS_EXCEPTION(Error, same.restore(s));

        nlohmann::json j = a.state().toJson();
        j.erase("position");
        try {
            SamplerState::fromJson(j);
            QFAIL("expected a FormatError");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find(R"(key "position" is missing)") != std::string::npos, e.what());
        }
        j = a.state().toJson();
        j["epoch"] = "one";
        QVERIFY_THROWS_EXCEPTION(FormatError, SamplerState::fromJson(j));
    }
};

QTEST_APPLESS_MAIN(TestBlockSampler)
#include "test_block_sampler.moc"
