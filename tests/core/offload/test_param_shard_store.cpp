// ParamShardStore (core/offload/param_shard_store), the resting place of a stage-3 parameter shard: with NVMe the
// first max_in_cpu elements stay in memory and the rest lives in a swap file; every read (inside, across and beyond
// the boundary, from a read-ahead buffer or not) returns the values last written; write passes with spans of uneven
// sizes replace them and make earlier read-aheads stale; the bytes say where the values rest; a buffer smaller than a
// parameter chunk, a missing folder and out-of-order spans are clear errors; the swap file and folders go with it.
#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <limits>
#include <random>

#include "core/offload/param_shard_store.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

class TestParamShardStore : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

    ParamStorePlacement nvme(int64_t maxInCpu, int buffers = 2, int64_t bufferElems = 1 << 20) {
        ParamStorePlacement p;
        p.where = StatePlacement::Nvme;
        p.maxInCpu = maxInCpu;
        p.bufferCount = buffers;
        p.bufferElems = bufferElems;
        p.swapDir = fs::path(m_tmp.path().toStdString()) / "run7" / "rank0";
        p.io.blockSize = 8192;
        p.io.queueDepth = 4;
        return p;
    }
    static torch::Tensor values(int64_t n, torch::ScalarType dt, int seed) {
        torch::manual_seed(uint64_t(seed));
        return torch::randn({n}).to(dt);
    }

private slots:
    void readsMatchAcrossTheBoundary_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<qint64>("maxInCpu");
        for (int dt : {int(torch::kFloat32), int(torch::kBFloat16)})
            for (qint64 m : {qint64(0), qint64(1234), qint64(10007), qint64(20000)})
                QTest::newRow(
                    qPrintable(QString("%1, max_in_cpu %2").arg(dt == int(torch::kFloat32) ? "fp32" : "bf16").arg(m)))
                    << dt << m;
    }
    void readsMatchAcrossTheBoundary() {
        QFETCH(int, dtype);
        QFETCH(qint64, maxInCpu);
        const int64_t n = 10007;  // an odd count: the file's last block is partly padding
        const torch::Tensor init = values(n, torch::ScalarType(dtype), 1);
        ParamShardStore store(init, nvme(maxInCpu), 3000, "w");
        const int64_t swapped = n - std::min<int64_t>(n, maxInCpu);
        QCOMPARE(store.nvmeBytes(), swapped * int64_t(init.element_size()));
        QCOMPARE(store.wholeTensor().defined(), swapped == 0);
        QCOMPARE(fs::exists(nvme(maxInCpu).swapDir / "parameters.swp"), swapped > 0);
        std::mt19937 rng(3);
        for (int i = 0; i < 200; ++i) {
            const int64_t a = int64_t(rng() % uint32_t(n)), len = int64_t(rng() % uint32_t(n - a + 1));
            QVERIFY2(torch::equal(store.read(a, len), init.narrow(0, a, len)),
                     qPrintable(QString("[%1, +%2)").arg(a).arg(len)));
        }
        QVERIFY(torch::equal(store.read(0, n), init));
    }

    // Read-ahead ranges serve the reads inside them without another disk read.
    void prefetchedReadsComeFromTheBuffers() {
        const int64_t n = 50000;
        const torch::Tensor init = values(n, torch::kFloat32, 2);
        ParamShardStore store(init, nvme(0, 2), 3000, "w");
        store.setReadAheadBound(2, 20000);
        store.prefetch(1000, 20000);
        store.prefetch(30000, 15000);
        QVERIFY(torch::equal(store.read(1000, 5000), init.narrow(0, 1000, 5000)));
        QVERIFY(torch::equal(store.read(6001, 14999), init.narrow(0, 6001, 14999)));
        QVERIFY(torch::equal(store.read(30000, 15000), init.narrow(0, 30000, 15000)));
        // Only the two read-aheads touched the disk: bytes [4000, 84000) and [120000, 180000), aligned to 4096.
        const int64_t before = store.swapBytesRead();
        QCOMPARE(before, int64_t(86016 + 61440));
        QVERIFY(torch::equal(store.read(25000, 10), init.narrow(0, 25000, 10)));  // outside both: read from disk
        QVERIFY(store.swapBytesRead() > before);
        // A range larger than a buffer is not read ahead (buffer_size bounds the buffers).
        ParamShardStore small(init, nvme(0, 2, 4000), 3000, "w");
        small.setReadAheadBound(2, 4001);
        small.prefetch(0, 4001);
        QCOMPARE(small.swapBytesRead(), int64_t(0));
    }

    // Read-ahead takes as many ranges as there are buffers (at most the two announced), none when a range exceeds
    // buffer_size; a write span is at most one 8 MiB write buffer when part of the shard is on disk.
    void readAheadAndSpansFollowTheBuffers() {
        const torch::Tensor init = values(10000, torch::kFloat32, 7);
        ParamShardStore one(init, nvme(0, 1), 3000, "w"), three(init, nvme(0, 3), 3000, "w"),
            small(init, nvme(0, 3, 3000), 3000, "w");
        for (ParamShardStore* st : {&one, &three, &small}) st->setReadAheadBound(2, 4000);
        QCOMPARE(one.readAheadRanges(), 1);
        QCOMPARE(three.readAheadRanges(), 2);
        QCOMPARE(small.readAheadRanges(), 0);
        QCOMPARE(one.maxSpan(), int64_t((8 << 20) / 4));
        ParamShardStore inMemory(init, nvme(1 << 20), 3000, "w");
        QCOMPARE(inMemory.maxSpan(), std::numeric_limits<int64_t>::max());
        QCOMPARE(inMemory.readAheadRanges(), 0);
        // One buffer: a second read-ahead replaces the first, and reads still return the stored values.
        one.prefetch(0, 4000);
        one.prefetch(4000, 4000);
        QVERIFY(torch::equal(one.read(0, 4000), init.narrow(0, 0, 4000)));
        QVERIFY(torch::equal(one.read(4000, 4000), init.narrow(0, 4000, 4000)));
    }

    void writePassesReplaceTheValues_data() {
        QTest::addColumn<qint64>("maxInCpu");
        QTest::newRow("all on disk") << qint64(0);
        QTest::newRow("boundary inside a span") << qint64(4100);
        QTest::newRow("all in memory") << qint64(1 << 20);
    }
    void writePassesReplaceTheValues() {
        QFETCH(qint64, maxInCpu);
        const int64_t n = 12345;
        const torch::Tensor init = values(n, torch::kBFloat16, 3);
        ParamShardStore store(init, nvme(maxInCpu, 3), 3000, "w");
        store.setReadAheadBound(2, 3000);
        store.prefetch(0, 3000);  // made stale by the pass below
        for (int pass = 0; pass < 2; ++pass) {
            const torch::Tensor next = values(n, torch::kBFloat16, 10 + pass);
            int64_t off = 0;
            for (int64_t len : {int64_t(1), int64_t(4095), int64_t(3), int64_t(5000), n - 9099}) {
                store.span(off, len).copy_(next.narrow(0, off, len));
                store.commit(off, len);
                off += len;
            }
            store.finish();
            QVERIFY2(torch::equal(store.read(0, n), next), qPrintable(QString("pass %1").arg(pass)));
            QVERIFY(torch::equal(store.read(100, 2000), next.narrow(0, 100, 2000)));
            store.prefetch(4000, 3000);
            QVERIFY(torch::equal(store.read(4000, 3000), next.narrow(0, 4000, 3000)));
        }
        // Spans must come in order and cover the shard.
        store.span(0, 10);
        store.commit(0, 10);
        QVERIFY_THROWS_EXCEPTION(Error, store.span(20, 5));
        if (store.nvmeBytes() > 0) QVERIFY_THROWS_EXCEPTION(Error, store.finish());
    }

    void badSettingsAreConfigErrors() {
        const torch::Tensor init = values(5000, torch::kFloat32, 4);
        try {
            ParamShardStore store(init, nvme(0, 2, 100), 2500, "model.layers.0.mlp.up_proj.weight");
            QFAIL("a buffer smaller than a parameter chunk was accepted");
        } catch (const ConfigError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("offload_param.buffer_size") != std::string::npos &&
                         m.find("model.layers.0.mlp.up_proj.weight") != std::string::npos &&
                         m.find("2500") != std::string::npos,
                     e.what());
        }
        ParamStorePlacement missing = nvme(0);
        missing.swapDir = "/nonexistent/fts/run1/rank0";
        try {
            ParamShardStore store(init, missing, 10, "w");
            QFAIL("a missing nvme_path was accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(std::string(e.what()).find("offload_param.nvme_path: /nonexistent/fts does not exist") !=
                         std::string::npos,
                     e.what());
        }
    }

    void swapFileGoesWithTheStore() {
        const fs::path dir = nvme(0).swapDir;
        {
            ParamShardStore store(values(3000, torch::kFloat32, 5), nvme(0), 10, "w");
            QVERIFY(fs::exists(dir / "parameters.swp"));
            QCOMPARE(fs::file_size(dir / "parameters.swp"), uintmax_t(12288));
        }
        QVERIFY(!fs::exists(dir));
        QVERIFY(!fs::exists(dir.parent_path()));
    }

    // "cpu" on a CPU device: the shard already rests in host memory; the store keeps the tensor it was given.
    void hostPlacementOnTheCpuKeepsOneCopy() {
        ParamStorePlacement host;
        host.where = StatePlacement::Host;
        const torch::Tensor init = values(4096, torch::kFloat32, 6);
        ParamShardStore store(init, host, 10, "w");
        QCOMPARE(store.wholeTensor().data_ptr(), init.data_ptr());
        QCOMPARE(store.deviceBytes(), int64_t(4096 * 4));
        QCOMPARE(store.hostBytes(), int64_t(0));
        QCOMPARE(store.nvmeBytes(), int64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestParamShardStore)
#include "test_param_shard_store.moc"
