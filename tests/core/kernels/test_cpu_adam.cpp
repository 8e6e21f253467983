// CPU-Adam (kernels/cpu/cpu_adam): every variant this CPU runs (AVX-512, AVX2) against the scalar reference, bit for
// bit, on random data of awkward sizes with fp32 / bf16 / fp16 gradients and parameter copies, both decay modes, bias
// correction on and off, a gradient scale, 1 and 3 threads; and the reference against DeepSpeedCPUAdam itself (the
// venv's DeepSpeed 0.19.8, JIT-built on CPU) over several steps, within 1e-6 relative (floored at 1% of the RMS).
#include <torch/torch.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/cpu/cpu_adam.h"
#include "kernels/cpu/half_convert.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts::kernels;

namespace {

struct Case {
    std::vector<float> master, m, v, g32;
    std::vector<uint16_t> g16;
};

Case randomCase(int64_t n, DType gradType, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    Case c;
    c.master.resize(size_t(n));
    c.m.resize(size_t(n));
    c.v.resize(size_t(n));
    c.g32.resize(size_t(n));
    c.g16.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
        c.master[size_t(i)] = nd(rng);
        c.m[size_t(i)] = 0.1f * nd(rng);
        c.v[size_t(i)] = 0.01f * std::abs(nd(rng)) + 1e-6f;  // never zero
        c.g32[size_t(i)] = nd(rng) * (i % 7 == 0 ? 30.0f : 1.0f);
        c.g16[size_t(i)] = gradType == DType::BFloat16 ? floatToBf16(c.g32[size_t(i)]) : floatToFp16(c.g32[size_t(i)]);
    }
    return c;
}

CpuAdamBuffers buffers(Case& c, DType gradType, void* out, DType outType) {
    CpuAdamBuffers b;
    b.master = c.master.data();
    b.expAvg = c.m.data();
    b.expAvgSq = c.v.data();
    b.grad = gradType == DType::Float32 ? static_cast<const void*>(c.g32.data()) : c.g16.data();
    b.gradType = gradType;
    b.paramOut = out;
    b.outType = outType;
    b.numel = int64_t(c.master.size());
    return b;
}

size_t elemBytes(DType t) { return t == DType::Float32 ? 4 : 2; }

void writeFloats(const std::string& path, const float* p, size_t n) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(p), std::streamsize(n * 4));
}
std::vector<float> readFloats(const std::string& path, size_t n) {
    std::vector<float> v(n);
    std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(v.data()), std::streamsize(n * 4));
    return v;
}

}  // namespace

class TestCpuAdam : public QObject {
    Q_OBJECT
private slots:
    void variantsEqualReferenceBitForBit_data() {
        QTest::addColumn<int>("isa");
        QTest::addColumn<int>("gradType");
        QTest::addColumn<int>("outType");
        QTest::addColumn<bool>("adamW");
        for (CpuIsa isa : {CpuIsa::Avx2, CpuIsa::Avx512, CpuIsa::Scalar})
            for (DType g : {DType::Float32, DType::BFloat16, DType::Float16})
                for (DType o : {DType::Float32, DType::BFloat16, DType::Float16})
                    for (bool w : {true, false})
                        QTest::newRow(qPrintable(QString("%1 grad %2 out %3 %4")
                                                     .arg(cpuIsaName(isa))
                                                     .arg(dtypeName(g))
                                                     .arg(dtypeName(o))
                                                     .arg(w ? "adamw" : "adam-l2")))
                            << int(isa) << int(g) << int(o) << w;
    }
    void variantsEqualReferenceBitForBit() {
        QFETCH(int, isa);
        QFETCH(int, gradType);
        QFETCH(int, outType);
        QFETCH(bool, adamW);
        const CpuIsa variant = CpuIsa(isa);
        if (!cpuIsaSupported(variant))
            QSKIP(qPrintable(QString("this CPU does not run the %1 variant").arg(cpuIsaName(variant))));
        const DType gt = DType(gradType), ot = DType(outType);
        // Sizes that leave every kind of tail, and one large enough for several threads (64K elements a piece).
        for (int64_t n : {1, 7, 15, 17, 63, 65, 1001, 300007}) {
            for (bool bias : {true, false}) {
                CpuAdamHyper h;
                h.lr = 3e-3;
                h.beta1 = 0.9;
                h.beta2 = 0.95;
                h.eps = 1e-8;
                h.weightDecay = 0.05;
                h.adamWMode = adamW;
                h.biasCorrection = bias;
                h.step = 5;
                h.gradScale = n % 2 ? 0.37f : 1.0f;
                Case ref = randomCase(n, gt, uint32_t(n + 17 * gradType)), got = ref;
                std::vector<uint8_t> outRef(size_t(n) * elemBytes(ot), 0xAB), outGot(size_t(n) * elemBytes(ot), 0xCD);
                cpuAdamReference(buffers(ref, gt, outRef.data(), ot), h);
                cpuAdamStep(buffers(got, gt, outGot.data(), ot), h, n > 100000 ? 3 : 1, variant);
                const QString where = QString("n=%1 bias=%2").arg(n).arg(bias);
                QVERIFY2(std::memcmp(ref.master.data(), got.master.data(), size_t(n) * 4) == 0,
                         qPrintable("master " + where));
                QVERIFY2(std::memcmp(ref.m.data(), got.m.data(), size_t(n) * 4) == 0, qPrintable("exp_avg " + where));
                QVERIFY2(std::memcmp(ref.v.data(), got.v.data(), size_t(n) * 4) == 0,
                         qPrintable("exp_avg_sq " + where));
                QVERIFY2(outRef == outGot, qPrintable("parameter copy " + where));
            }
        }
    }

    // The reference's parameter copy is the master converted with c10's rounding, and the step moved every element.
    void referenceWritesTheConvertedMaster() {
        const int64_t n = 999;
        Case c = randomCase(n, DType::BFloat16, 3), before = c;
        std::vector<uint16_t> out(static_cast<size_t>(n));
        CpuAdamHyper h;
        cpuAdamReference(buffers(c, DType::BFloat16, out.data(), DType::BFloat16), h);
        for (int64_t i = 0; i < n; ++i) {
            QCOMPARE(out[size_t(i)], floatToBf16(c.master[size_t(i)]));
            QVERIFY(c.master[size_t(i)] != before.master[size_t(i)]);
        }
    }

    void unsupportedVariantIsRefused() {
        if (cpuIsaSupported(CpuIsa::Avx512)) QSKIP("this CPU runs every variant");
        Case c = randomCase(16, DType::Float32, 1);
        QVERIFY_THROWS_EXCEPTION(KernelError, cpuAdamStep(buffers(c, DType::Float32, nullptr, DType::Float32),
                                                          CpuAdamHyper{}, 1, CpuIsa::Avx512));
    }

    // DeepSpeed's own CPU-Adam on the same data: 4 steps of AdamW and of Adam-L2, 100,003 elements.
    void referenceEqualsDeepSpeedCpuAdam_data() {
        QTest::addColumn<bool>("adamW");
        QTest::addColumn<bool>("bias");
        QTest::newRow("adamw") << true << true;
        QTest::newRow("adam-l2") << false << true;
        QTest::newRow("adamw without bias correction") << true << false;
    }
    void referenceEqualsDeepSpeedCpuAdam() {
        QFETCH(bool, adamW);
        QFETCH(bool, bias);
        const int64_t n = 100003;
        const int steps = 4;
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        Case c = randomCase(n, DType::Float32, 11);
        std::vector<float> grads;
        for (int k = 0; k < steps; ++k) {
            Case gk = randomCase(n, DType::Float32, uint32_t(100 + k));
            grads.insert(grads.end(), gk.g32.begin(), gk.g32.end());
        }
        writeFloats(d + "/param.bin", c.master.data(), size_t(n));
        writeFloats(d + "/exp_avg.bin", c.m.data(), size_t(n));
        writeFloats(d + "/exp_avg_sq.bin", c.v.data(), size_t(n));
        writeFloats(d + "/grad.bin", grads.data(), grads.size());
        const nlohmann::json spec = {
            {"n", n},      {"steps", steps},      {"lr", 2e-3},          {"betas", {0.9, 0.999}},
            {"eps", 1e-8}, {"weight_decay", 0.1}, {"adamw_mode", adamW}, {"bias_correction", bias}};
        std::ofstream(d + "/spec.json") << spec.dump();
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                {(QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/optim/deepspeed_cpu_adam.py")), "run",
                 tmp.path()});
        QVERIFY(p.waitForFinished(600000));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAll().constData());
        for (int k = 0; k < steps; ++k) {
            CpuAdamHyper h;
            h.lr = 2e-3;
            h.weightDecay = 0.1;
            h.adamWMode = adamW;
            h.biasCorrection = bias;
            h.step = k + 1;
            CpuAdamBuffers b = buffers(c, DType::Float32, nullptr, DType::Float32);
            b.grad = grads.data() + size_t(k) * size_t(n);
            cpuAdamStep(b, h);
        }
        const auto dsP = readFloats(d + "/out_param.bin", size_t(n)),
                   dsM = readFloats(d + "/out_exp_avg.bin", size_t(n)),
                   dsV = readFloats(d + "/out_exp_avg_sq.bin", size_t(n));
        double worst = 0;
        // Relative to each value, floored at 1% of the tensor's RMS: DeepSpeed computes the last n % 16 elements without
        // FMA (its scalar tail), so a moment that cancels to near zero there differs by a rounding of its terms.
        auto check = [&](const std::vector<float>& ours, const std::vector<float>& theirs, const char* what) {
            double sumSq = 0;
            for (float b : theirs) sumSq += double(b) * double(b);
            const double floor = 0.01 * std::sqrt(sumSq / double(theirs.size()));
            for (int64_t i = 0; i < n; ++i) {
                const double a = ours[size_t(i)], b = theirs[size_t(i)];
                const double rel = std::abs(a - b) / std::max(std::abs(b), floor);
                worst = std::max(worst, rel);
                if (rel > 1e-6)
                    return QString("%1[%2]: %3 vs DeepSpeed %4").arg(what).arg(i).arg(a, 0, 'g', 9).arg(b, 0, 'g', 9);
            }
            return QString();
        };
        for (auto [ours, theirs, what] : {std::tuple{&c.master, &dsP, "param"}, std::tuple{&c.m, &dsM, "exp_avg"},
                                          std::tuple{&c.v, &dsV, "exp_avg_sq"}}) {
            const QString bad = check(*ours, *theirs, what);
            QVERIFY2(bad.isEmpty(), qPrintable(bad));
        }
        qInfo("CPU-Adam vs DeepSpeedCPUAdam (%s, bias correction %s), %d steps: worst relative difference %.3g",
              adamW ? "adamw" : "adam-l2", bias ? "on" : "off", steps, worst);
    }
};

QTEST_GUILESS_MAIN(TestCpuAdam)
#include "test_cpu_adam.moc"
