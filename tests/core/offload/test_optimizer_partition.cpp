// OptimizerPartition (core/offload/optimizer_partition): the offloaded placements (host memory, NVMe swap) step as the
// device placement's LibTorch AdamW does (relative 1e-6 over several steps, fp32 and bf16 gradients, a gradient scale,
// both decay modes), NVMe equals host bit for bit whatever the sub-group size, buffer count and pipelining, the
// parameter copy is the master in the parameter dtype, checkpoint tensors move between placements exactly, the bytes
// are accounted where they rest, and the swap folder goes with the partition.
#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/offload/optimizer_partition.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kN = 10007;

OptimizerConfig adamConfig(bool adamW) {
    OptimizerConfig c;
    c.lr = 1e-3;
    c.beta1 = 0.9;
    c.beta2 = 0.95;
    c.eps = 1e-8;
    c.weightDecay = 0.1;
    c.adamWMode = adamW;
    return c;
}

std::vector<torch::Tensor> grads(int steps, torch::ScalarType t) {
    torch::manual_seed(7);
    std::vector<torch::Tensor> g;
    for (int k = 0; k < steps; ++k) g.push_back(torch::randn({kN}).to(t));
    return g;
}

double maxRel(const torch::Tensor& a, const torch::Tensor& b) {
    return ((a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max() / b.to(torch::kFloat64).abs().max())
        .item<double>();
}

PartitionPlacement nvme(const fs::path& dir, int64_t sub, int buffers, bool pipeline) {
    PartitionPlacement p;
    p.where = StatePlacement::Nvme;
    p.subGroupElems = sub;
    p.bufferCount = buffers;
    p.pipelineRead = p.pipelineWrite = pipeline;
    p.swapDir = dir / "run1" / "rank0";
    p.io.blockSize = 8192;
    p.io.queueDepth = 3;
    return p;
}

PartitionPlacement host(int64_t sub) {
    PartitionPlacement p;
    p.where = StatePlacement::Host;
    p.subGroupElems = sub;
    return p;
}

torch::Tensor stateOf(const OptimizerPartition& part, const std::string& name) {
    for (auto& [n, t] : part.stateTensors())
        if (n == name) return t.clone();
    return {};
}

}  // namespace

class TestOptimizerPartition : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void nvmeHostBytesAreWhatIsResident() {
        // The host bytes an NVMe partition reports are its swap buffers, and they are what the process's resident
        // memory grows by (within 10%). The default sub_group_size (1e9) swaps in units of kSwapGroupElements.
        const int64_t n = int64_t(3) << 22;  // 12.6 M elements, under one swap unit: one buffer of 3 x 48 MiB
        const torch::Tensor init = torch::randn({n});
        QTemporaryDir tmp;
        PartitionPlacement p = nvme(tmp.path().toStdString(), 1000000000, 4, true);
        p.io.blockSize = 1 << 20;
        auto rss = [] {
            std::ifstream in("/proc/self/status");
            std::string key;
            int64_t kb = 0;
            while (in >> key)
                if (key == "VmRSS:" && (in >> kb)) return kb * 1024;
            return int64_t(0);
        };
        const int64_t before = rss();
        OptimizerPartition part(init, adamConfig(true), p);
        const int64_t grown = rss() - before;
        const PartitionBytes b = part.bytes();
        QCOMPARE(b.host, 3 * n * 4);
        QVERIFY2(std::abs(double(grown) / double(b.host) - 1) <= 0.10,
                 qPrintable(QString("reported %1, resident growth %2").arg(b.host).arg(grown)));
        QCOMPARE(b.nvme, 3 * n * 4);
        // Above one unit: buffers of kSwapGroupElements, at most buffer_count of them, whatever the sub-group.
        QTemporaryDir tmp2;
        OptimizerPartition big(torch::zeros({kSwapGroupElements + 3}), adamConfig(true),
                               nvme(tmp2.path().toStdString(), 1000000000, 1, true));
        QCOMPARE(big.bytes().host, 3 * kSwapGroupElements * 4);
        QCOMPARE(big.bytes().nvme, 2 * 3 * kSwapGroupElements * 4);
    }

    void offloadedStepEqualsDeviceAdamW_data() {
        QTest::addColumn<int>("where");
        QTest::addColumn<bool>("adamW");
        QTest::addColumn<bool>("bf16Grad");
        for (StatePlacement w : {StatePlacement::Host, StatePlacement::Nvme})
            for (bool adamW : {true, false})
                for (bool bf16 : {false, true})
                    QTest::newRow(qPrintable(QString("%1 %2 %3")
                                                 .arg(statePlacementName(w))
                                                 .arg(adamW ? "adamw" : "adam-l2")
                                                 .arg(bf16 ? "bf16 grads" : "fp32 grads")))
                        << int(w) << adamW << bf16;
    }
    void offloadedStepEqualsDeviceAdamW() {
        QFETCH(int, where);
        QFETCH(bool, adamW);
        QFETCH(bool, bf16Grad);
        const auto gt = bf16Grad ? torch::kBFloat16 : torch::kFloat32;
        torch::manual_seed(1);
        const torch::Tensor init = torch::randn({kN});
        const OptimizerConfig cfg = adamConfig(adamW);
        OptimizerPartition dev(init, cfg, PartitionPlacement{});
        const fs::path dir = fs::path(m_tmp.path().toStdString()) /
                             ("p" + std::to_string(where) + std::to_string(adamW) + std::to_string(bf16Grad));
        fs::create_directories(dir);
        OptimizerPartition off(init, cfg,
                               StatePlacement(where) == StatePlacement::Host ? host(3001) : nvme(dir, 3001, 2, true));
        QVERIFY(off.offloaded());
        torch::Tensor out = torch::empty({kN}, torch::kFloat32);
        const double scale = 0.25;
        const auto g = grads(5, gt);
        for (int k = 0; k < 5; ++k) {
            const double lr = 1e-3 * (k + 1);
            dev.deviceMaster().mutable_grad() = g[size_t(k)].to(torch::kFloat32) * scale;
            dev.stepDevice(lr);
            off.stepOffloaded(g[size_t(k)], scale, lr, out);
        }
        QCOMPARE(off.stepCount(), int64_t(5));
        const double d = maxRel(stateOf(off, "master"), dev.deviceMaster().detach());
        QVERIFY2(d <= 1e-6, qPrintable(QString("master: max relative difference %1").arg(d)));
        QVERIFY2(maxRel(stateOf(off, "exp_avg_sq.0"), stateOf(dev, "exp_avg_sq.0")) <= 1e-6, "exp_avg_sq");
        QVERIFY2(maxRel(stateOf(off, "exp_avg.0"), stateOf(dev, "exp_avg.0")) <= 1e-6, "exp_avg");
        QVERIFY(torch::equal(out, stateOf(off, "master")));  // the fp32 parameter copy is the master
    }

    void nvmeEqualsHostBitForBit_data() {
        QTest::addColumn<qint64>("sub");
        QTest::addColumn<int>("buffers");
        QTest::addColumn<bool>("pipeline");
        QTest::newRow("one sub-group") << qint64(1000000000) << 4 << true;
        QTest::newRow("uneven sub-groups, 1 buffer") << qint64(999) << 1 << true;
        QTest::newRow("uneven sub-groups, 2 buffers") << qint64(2500) << 2 << true;
        QTest::newRow("4 buffers, no pipelining") << qint64(1024) << 4 << false;
    }
    void nvmeEqualsHostBitForBit() {
        QFETCH(qint64, sub);
        QFETCH(int, buffers);
        QFETCH(bool, pipeline);
        torch::manual_seed(2);
        const torch::Tensor init = torch::randn({kN}).to(torch::kBFloat16);
        const fs::path dir =
            fs::path(m_tmp.path().toStdString()) / ("n" + std::to_string(sub) + "b" + std::to_string(buffers));
        fs::create_directories(dir);
        OptimizerPartition h(init, adamConfig(true), host(sub));
        torch::Tensor outH = torch::empty({kN}, torch::kBFloat16), outN = torch::empty({kN}, torch::kBFloat16);
        {
            OptimizerPartition n(init, adamConfig(true), nvme(dir, sub, buffers, pipeline));
            QVERIFY(fs::exists(dir / "run1" / "rank0" / "optimizer_states.swp"));
            const auto g = grads(4, torch::kBFloat16);
            for (int k = 0; k < 4; ++k) {
                h.stepOffloaded(g[size_t(k)], 0.5, 1e-2, outH);
                n.stepOffloaded(g[size_t(k)], 0.5, 1e-2, outN);
            }
            for (const char* name : {"master", "exp_avg.0", "exp_avg_sq.0"})
                QVERIFY2(torch::equal(stateOf(h, name), stateOf(n, name)), name);
            QVERIFY(torch::equal(outH, outN));
            QVERIFY(
                torch::equal(outN, stateOf(n, "master").to(torch::kBFloat16)));  // the bf16 copy is the rounded master
            QVERIFY(n.swapBytesWritten() > 0 && n.swapBytesRead() > 0);
            const PartitionBytes b = n.bytes();
            QVERIFY(b.nvme >= 12 * kN);
            QVERIFY(b.host > 0 && b.host <= int64_t(buffers) * (12 * std::min<int64_t>(sub, kN) + 3 * 4096));
            QCOMPARE(b.device, int64_t(0));
        }
        QVERIFY2(!fs::exists(dir / "run1"), "the swap folders go with the partition");
        QCOMPARE(h.bytes().host, 12 * kN);
    }

    // A sink that takes at most 37 elements per span (the NVMe parameter store takes one write buffer): the step and
    // the master copy come in pieces, in order, with the values of a whole-tensor sink bit for bit.
    void narrowSinkGetsTheSameValuesInPieces() {
        struct Narrow : TensorSink {
            using TensorSink::TensorSink;
            int64_t maxSpan() const override { return 37; }
            torch::Tensor span(int64_t offset, int64_t n) override {
                if (n > 37 || offset != next)
                    throw Error("span of " + std::to_string(n) + " at " + std::to_string(offset));
                return TensorSink::span(offset, n);
            }
            void commit(int64_t offset, int64_t n) override { next = offset + n; }
            void finish() override { next = 0, ++passes; }
            int64_t next = 0;
            int passes = 0;
        };
        torch::manual_seed(5);
        const torch::Tensor init = torch::randn({kN}).to(torch::kBFloat16);
        OptimizerPartition whole(init, adamConfig(true), host(1000)), pieces(init, adamConfig(true), host(1000));
        torch::Tensor outW = torch::empty({kN}, torch::kBFloat16), outP = torch::empty({kN}, torch::kBFloat16);
        Narrow sink(outP);
        const auto g = grads(3, torch::kBFloat16);
        for (int k = 0; k < 3; ++k) {
            whole.stepOffloaded(g[size_t(k)], 0.5, 1e-2, outW);
            pieces.stepOffloaded(g[size_t(k)], 0.5, 1e-2, &sink);
        }
        QVERIFY(torch::equal(outW, outP));
        QVERIFY(torch::equal(stateOf(whole, "master"), stateOf(pieces, "master")));
        outP.zero_();
        pieces.copyMasterTo(sink);
        QVERIFY(torch::equal(outW, outP));
        QCOMPARE(sink.passes, 4);
    }

    // A checkpoint of one placement loads into another: the next steps are the same.
    void stateMovesBetweenPlacements() {
        torch::manual_seed(3);
        const torch::Tensor init = torch::randn({kN});
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "move";
        fs::create_directories(dir);
        const auto g = grads(4, torch::kFloat32);
        OptimizerPartition a(init, adamConfig(true), nvme(dir, 4000, 2, true));
        torch::Tensor out = torch::empty({kN});
        for (int k = 0; k < 2; ++k) a.stepOffloaded(g[size_t(k)], 1.0, 1e-3, out);
        auto saved = a.stateTensors();
        for (auto& [n, t] : saved) t = t.clone();
        OptimizerPartition b(torch::zeros({kN}), adamConfig(true), host(1000000000));
        b.loadState(saved, a.stepCount(), "test partition", "test.safetensors");
        fs::create_directories(dir / "c");
        OptimizerPartition c(torch::zeros({kN}), adamConfig(true), nvme(dir / "c", 777, 3, true));
        c.loadState(saved, a.stepCount(), "test partition", "test.safetensors");
        torch::Tensor outB = torch::empty({kN}), outC = torch::empty({kN});
        c.copyMasterTo(outC);
        QVERIFY(torch::equal(outC, saved[0].second));
        for (int k = 2; k < 4; ++k) {
            a.stepOffloaded(g[size_t(k)], 1.0, 1e-3, out);
            b.stepOffloaded(g[size_t(k)], 1.0, 1e-3, outB);
            c.stepOffloaded(g[size_t(k)], 1.0, 1e-3, outC);
        }
        QVERIFY(torch::equal(out, outB));
        QVERIFY(torch::equal(out, outC));
        // and into the device placement (LibTorch's AdamW from then on)
        OptimizerPartition d(torch::zeros({kN}), adamConfig(true), PartitionPlacement{});
        d.loadState(saved, 2, "test partition", "test.safetensors");
        QVERIFY(torch::equal(d.deviceMaster().detach(), saved[0].second));
    }

    void badCheckpointTensorsNameTheFile() {
        OptimizerPartition p(torch::zeros({kN}), adamConfig(true), host(1000));
        try {
            p.loadState({{"master", torch::zeros({5})}}, 1, "rank 0's partition", "opt.safetensors");
            QFAIL("expected an error");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find("opt.safetensors") != std::string::npos, e.what());
        }
        try {
            p.loadState({{"master", torch::zeros({kN})}}, 1, "rank 0's partition", "opt.safetensors");
            QFAIL("expected an error");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find("exp_avg") != std::string::npos, e.what());
        }
    }

    void missingNvmePathIsAConfigError() {
        PartitionPlacement p = nvme("/nonexistent-fts/path", 1000, 2, true);
        try {
            OptimizerPartition part(torch::zeros({100}), adamConfig(true), p);
            QFAIL("expected an error");
        } catch (const ConfigError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("offload_optimizer.nvme_path") != std::string::npos &&
                         m.find("/nonexistent-fts/path") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestOptimizerPartition)
#include "test_optimizer_partition.moc"
