// The CPU scalar references of fts_kernels against independent implementations, on random data of awkward sizes:
// AdamW / Adam-L2 against LibTorch's torch::optim::AdamW / Adam and against core/optim's AdamW; the unscale +
// overflow check against LibTorch's _amp_foreach_non_finite_check_and_unscale_ (bit for bit); the bf16/fp16
// conversions against c10's; and the multi-tensor launch packing of the CUDA kernels (every chunk exactly once).
// These run everywhere; kernels_test_cuda_kernels then holds the CUDA kernels to these references.
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "core/optim/adamw.h"
#include "kernels/cpu/adamw_reference.h"
#include "kernels/cpu/half_convert.h"
#include "kernels/cpu/unscale_reference.h"
#include "kernels/cuda/multi_tensor.cuh"

// Qt after LibTorch and the kernels (Qt's `slots` macro).
#include <QtTest>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace k = fts::kernels;

namespace {

// Max |a - b| / (1 + max |b|): float32 arithmetic in a different order (fma, lerp vs mul+add) differs by a few ulps.
double maxRelDiff(const torch::Tensor& a, const torch::Tensor& b) {
    return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>() /
           (1.0 + b.to(torch::kFloat64).abs().max().item<double>());
}

struct AdamCase {
    k::AdamWHyper h;
    int64_t numel;
    torch::ScalarType gradType;
};

}  // namespace

class TestKernelReferences : public QObject {
    Q_OBJECT
private slots:
    void adamwReferenceMatchesLibTorchAndCore_data() {
        QTest::addColumn<bool>("decoupled");
        QTest::addColumn<double>("weightDecay");
        QTest::addColumn<int>("gradDtype");  // torch::ScalarType
        QTest::addColumn<qlonglong>("numel");
        QTest::addColumn<double>("beta1");
        QTest::newRow("adamw wd 0.01, fp32 grads, 1") << true << 0.01 << int(torch::kFloat32) << 1LL << 0.9;
        QTest::newRow("adamw wd 0.01, fp32 grads, 4099") << true << 0.01 << int(torch::kFloat32) << 4099LL << 0.9;
        QTest::newRow("adamw wd 0, fp32 grads, 777") << true << 0.0 << int(torch::kFloat32) << 777LL << 0.9;
        QTest::newRow("adamw wd 0.1, bf16 grads, 1031") << true << 0.1 << int(torch::kBFloat16) << 1031LL << 0.9;
        QTest::newRow("adamw wd 0.1, fp16 grads, 999") << true << 0.1 << int(torch::kFloat16) << 999LL << 0.9;
        QTest::newRow("adam l2 0.01, fp32 grads, 4099") << false << 0.01 << int(torch::kFloat32) << 4099LL << 0.9;
        QTest::newRow("adam l2 0.05, bf16 grads, 513") << false << 0.05 << int(torch::kBFloat16) << 513LL << 0.9;
        QTest::newRow("adamw beta1 0.3 (the other lerp branch)")
            << true << 0.01 << int(torch::kFloat32) << 301LL << 0.3;
    }
    void adamwReferenceMatchesLibTorchAndCore() {
        QFETCH(bool, decoupled);
        QFETCH(double, weightDecay);
        QFETCH(int, gradDtype);
        QFETCH(qlonglong, numel);
        QFETCH(double, beta1);
        const auto gtype = torch::ScalarType(gradDtype);
        torch::manual_seed(11);
        const double lr = 3e-3, beta2 = 0.95, eps = 1e-8;
        torch::Tensor p0 = torch::randn({numel});

        // The reference's state.
        torch::Tensor pRef = p0.clone(), mRef = torch::zeros({numel}), vRef = torch::zeros({numel});
        // LibTorch's own optimizer (torch::optim, the C++ twin of torch.optim) and core/optim's AdamW.
        torch::Tensor pTorch = p0.clone().requires_grad_(true), pCore = p0.clone().requires_grad_(true);
        std::unique_ptr<torch::optim::Optimizer> torchOpt;
        if (decoupled)
            torchOpt = std::make_unique<torch::optim::AdamW>(
                std::vector<torch::Tensor>{pTorch},
                torch::optim::AdamWOptions(lr).betas(std::make_tuple(beta1, beta2)).eps(eps).weight_decay(weightDecay));
        else
            torchOpt = std::make_unique<torch::optim::Adam>(
                std::vector<torch::Tensor>{pTorch},
                torch::optim::AdamOptions(lr).betas(std::make_tuple(beta1, beta2)).eps(eps).weight_decay(weightDecay));
        fts::OptimizerConfig cfg;
        cfg.lr = lr;
        cfg.beta1 = beta1;
        cfg.beta2 = beta2;
        cfg.eps = eps;
        cfg.weightDecay = weightDecay;
        cfg.adamWMode = decoupled;
        fts::AdamW core({pCore}, cfg);

        for (int step = 1; step <= 6; ++step) {
            // Gradients of the given dtype; LibTorch and core see their exact float32 widening.
            torch::Tensor g = (torch::randn({numel}) * (step % 2 ? 0.5 : 2.0)).to(gtype);
            torch::Tensor g32 = g.to(torch::kFloat32);
            k::AdamWHyper h;
            h.lr = lr;
            h.beta1 = beta1;
            h.beta2 = beta2;
            h.eps = eps;
            h.weightDecay = weightDecay;
            h.decoupled = decoupled;
            h.step = step;
            const k::DType dt = gtype == torch::kFloat32    ? k::DType::Float32
                                : gtype == torch::kBFloat16 ? k::DType::BFloat16
                                                            : k::DType::Float16;
            k::adamwReference({pRef.data_ptr<float>(), g.contiguous().data_ptr(), mRef.data_ptr<float>(),
                               vRef.data_ptr<float>(), numel},
                              dt, h);
            pTorch.mutable_grad() = g32.clone();
            torchOpt->step();
            pCore.mutable_grad() = g32.clone();
            core.step(lr);
        }
        const double dTorch = maxRelDiff(pRef, pTorch.detach()), dCore = maxRelDiff(pRef, pCore.detach());
        const double moved = maxRelDiff(p0, pRef);
        qInfo("max relative difference after 6 steps: vs torch::optim %.3g, vs core AdamW %.3g (update size %.3g)",
              dTorch, dCore, moved);
        QVERIFY(moved > 1e-3);  // the parameters did move, so agreement means something
        // A few float32 ulps per step on parameters of size ~1 (ulp 1.2e-7), far below one update (lr = 3e-3).
        QVERIFY2(dTorch < 2e-6, qPrintable(QString::number(dTorch)));
        QVERIFY2(dCore < 2e-6, qPrintable(QString::number(dCore)));
        // The moments too, against core's (same arithmetic, LibTorch kernels).
        auto state = core.stateTensors();
        QVERIFY(maxRelDiff(mRef, state.at(0).second) < 1e-6);
        QVERIFY(maxRelDiff(vRef, state.at(1).second) < 1e-6);
    }

    void unscaleReferenceMatchesLibTorchBitForBit_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<double>("scale");
        QTest::addColumn<int>("poison");  // 0 none, 1 inf, 2 nan, 3 -inf
        QTest::addColumn<qlonglong>("numel");
        for (int dt : {int(torch::kFloat32), int(torch::kBFloat16), int(torch::kFloat16)}) {
            const char* name = dt == int(torch::kFloat32) ? "fp32" : dt == int(torch::kBFloat16) ? "bf16" : "fp16";
            QTest::newRow(qPrintable(QString("%1 scale 2^16 clean").arg(name))) << dt << 65536.0 << 0 << 10007LL;
            QTest::newRow(qPrintable(QString("%1 scale 3 clean").arg(name))) << dt << 3.0 << 0 << 333LL;
            QTest::newRow(qPrintable(QString("%1 scale 2^10 inf").arg(name))) << dt << 1024.0 << 1 << 4097LL;
            QTest::newRow(qPrintable(QString("%1 scale 2^10 nan").arg(name))) << dt << 1024.0 << 2 << 65LL;
            QTest::newRow(qPrintable(QString("%1 scale 1 -inf").arg(name))) << dt << 1.0 << 3 << 7LL;
        }
    }
    void unscaleReferenceMatchesLibTorchBitForBit() {
        QFETCH(int, dtype);
        QFETCH(double, scale);
        QFETCH(int, poison);
        QFETCH(qlonglong, numel);
        const auto t = torch::ScalarType(dtype);
        torch::manual_seed(3);
        // Scaled gradients spanning many binades (fp16: down into subnormals after unscaling).
        torch::Tensor x =
            (torch::randn({numel}) * torch::exp(torch::randn({numel}) * 4.0) * scale).clamp(-6e4, 6e4).to(t);
        if (poison) x[numel / 2] = poison == 1 ? INFINITY : poison == 2 ? NAN : -INFINITY;
        torch::Tensor ours = x.clone(), theirs = x.clone();
        const float inv = float(1.0 / scale);
        const k::DType dt = t == torch::kFloat32    ? k::DType::Float32
                            : t == torch::kBFloat16 ? k::DType::BFloat16
                                                    : k::DType::Float16;
        const bool found = k::unscaleReference({ours.data_ptr(), numel, dt}, inv);
        torch::Tensor foundInf = torch::zeros({1});
        torch::_amp_foreach_non_finite_check_and_unscale_(std::vector<torch::Tensor>{theirs}, foundInf,
                                                          torch::full({1}, inv));
        QCOMPARE(found, foundInf.item<float>() != 0.0f);
        QCOMPARE(found, poison != 0);
        // Bit for bit, except NaN's bits: LibTorch itself writes bf16 NaN as 0x7FC0 (scalar c10) or 0xFFFF (its AVX2
        // conversion), so a NaN must stay a NaN at the same place and everything else must have identical bytes.
        QVERIFY(torch::equal(torch::isnan(ours), torch::isnan(theirs)));
        torch::Tensor a = ours.masked_fill(torch::isnan(ours), 0), b = theirs.masked_fill(torch::isnan(theirs), 0);
        QVERIFY(std::memcmp(a.data_ptr(), b.data_ptr(), size_t(a.nbytes())) == 0);
    }

    void halfConversionsMatchC10() {
        torch::manual_seed(5);
        std::vector<float> values{0.0f,     -0.0f,     1.0f,     65504.0f, 65519.0f,       65520.0f,     1e30f,
                                  -1e30f,   5.96e-8f,  2.98e-8f, 2.99e-8f, 6.1e-5f,        6.09e-5f,     1e-40f,
                                  INFINITY, -INFINITY, NAN,      3.4e38f,  1.00048828125f, 1.0009765625f};
        torch::Tensor r = torch::randn({20000}) * torch::exp(torch::randn({20000}) * 8.0);
        for (int64_t i = 0; i < r.numel(); ++i) values.push_back(r[i].item<float>());
        torch::Tensor f = torch::from_blob(values.data(), {int64_t(values.size())}, torch::kFloat32).clone();
        torch::Tensor h = f.to(torch::kFloat16), b = f.to(torch::kBFloat16);
        const auto* hp = static_cast<const uint16_t*>(h.data_ptr());
        const auto* bp = static_cast<const uint16_t*>(b.data_ptr());
        for (size_t i = 0; i < values.size(); ++i) {
            const float v = values[i];
            const bool nan = std::isnan(v);
            QVERIFY2(nan ? std::isnan(k::fp16ToFloat(k::floatToFp16(v))) : k::floatToFp16(v) == hp[i],
                     qPrintable(QString("fp16 of %1").arg(double(v), 0, 'g', 10)));
            QVERIFY2(nan ? std::isnan(k::bf16ToFloat(k::floatToBf16(v))) : k::floatToBf16(v) == bp[i],
                     qPrintable(QString("bf16 of %1").arg(double(v), 0, 'g', 10)));
            // Widening is exact: compare with c10's widening of the same bits.
            if (!nan) {
                QCOMPARE(k::fp16ToFloat(hp[i]), h[int64_t(i)].item<float>());
                QCOMPARE(k::bf16ToFloat(bp[i]), b[int64_t(i)].item<float>());
            }
        }
    }

    // The CUDA kernels' launch packing: every (tensor, chunk) once, in order, within the per-launch limits.
    void packChunksCoversEveryChunkOnce() {
        constexpr int kT = 5, kB = 7;
        std::mt19937 rng(9);
        for (int trial = 0; trial < 200; ++trial) {
            std::vector<int64_t> numel(size_t(rng() % 20));
            for (auto& n : numel) {
                const int kind = int(rng() % 4);
                n = kind == 0 ? 0 : kind == 1 ? int64_t(rng() % 5) : int64_t(rng() % (k::kChunkElems * 9));
            }
            k::ChunkMap<kB> map{};
            std::vector<size_t> slotTensor(kT, size_t(-1));
            std::vector<std::pair<size_t, int32_t>> seen;
            k::packChunks<kT, kB>(
                numel.size(), map, [&](size_t t) { return numel[t]; },
                [&](int slot, size_t t) {
                    QVERIFY(slot >= 0 && slot < kT);
                    slotTensor[size_t(slot)] = t;
                },
                [&](int blocks) {
                    QVERIFY(blocks > 0 && blocks <= kB);
                    for (int b = 0; b < blocks; ++b) seen.emplace_back(slotTensor[size_t(map.slot[b])], map.chunk[b]);
                });
            std::vector<std::pair<size_t, int32_t>> expected;
            for (size_t t = 0; t < numel.size(); ++t)
                for (int64_t c = 0; c * k::kChunkElems < numel[t]; ++c) expected.emplace_back(t, int32_t(c));
            QVERIFY(seen == expected);
        }
    }
};

QTEST_APPLESS_MAIN(TestKernelReferences)
#include "test_kernel_references.moc"
