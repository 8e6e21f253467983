// Benchmark (label bench; prints figures, asserts nothing): the CPU-Adam step of an offloaded partition against
// DeepSpeed 0.19.8's DeepSpeedCPUAdam and torch.optim.AdamW, same sizes (20M and 100M parameters), same threads (2),
// measured side by side in one run (Python rounds, then ours, twice; best of each):
//   fp32 step: fp32 gradient, master and moments (goal >= 1.0x DeepSpeed);
//   offload update: bf16 gradient in, Adam, bf16 parameter out (goal >= 1.3x DeepSpeed's copy + step + copy).
// The memory-roofline time of each (bytes moved / the bandwidth of a large memcpy on this machine) is printed beside.
// FTS_BENCH_ROUNDS (default 5) and FTS_BENCH_SIZES (e.g. "20000000,100000000") override.
#include <torch/torch.h>

#include <QProcess>
#include <QtTest>

#include <chrono>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"
#include "kernels/cpu/cpu_adam.h"
#include "kernels/cpu/half_convert.h"
#include "kernels/cpu/parallel_ranges.h"

using namespace fts::kernels;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kThreads = 2;

template <class F>
double best(F&& f, int rounds) {
    f();
    double b = 1e30;
    for (int r = 0; r < rounds; ++r) {
        const auto t0 = Clock::now();
        f();
        b = std::min(b, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return b;
}

int envInt(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

}  // namespace

class BenchCpuAdam : public QObject {
    Q_OBJECT
private slots:
    void cpuAdamAgainstDeepSpeed() {
        const int rounds = envInt("FTS_BENCH_ROUNDS", 5);
        const QString sizesText = qEnvironmentVariable("FTS_BENCH_SIZES", "20000000,100000000");
        std::vector<int64_t> sizes;
        for (const QString& s : sizesText.split(',')) sizes.push_back(s.toLongLong());
        // Memory bandwidth: a 512 MB memcpy on kThreads threads (read + write counted).
        const int64_t bwBytes = int64_t(512) << 20;
        std::vector<char> a(size_t(bwBytes), 1), b(size_t(bwBytes), 0);
        const double bwSeconds = best(
            [&] {
                parallelRanges(bwBytes, kThreads, 4096, [&](int64_t lo, int64_t hi) {
                    std::memcpy(b.data() + lo, a.data() + lo, size_t(hi - lo));
                });
            },
            3);
        const double bandwidth = 2.0 * double(bwBytes) / bwSeconds;
        std::printf("memory bandwidth (memcpy, %d threads): %.1f GB/s\n", kThreads, bandwidth / 1e9);

        nlohmann::json py[2];
        std::map<int64_t, std::pair<double, double>> ours;
        for (int pass = 0; pass < 2; ++pass) {
            QProcess p;
            p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("OMP_NUM_THREADS", QString::number(kThreads));
            p.setProcessEnvironment(env);
            p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                    {(QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/tests/bench/scripts/bench_cpu_adam.py")),
                     "run", sizesText, QString::number(kThreads), QString::number(rounds)});
            QVERIFY(p.waitForFinished(1800000));
            QVERIFY2(p.exitCode() == 0, "bench_cpu_adam.py failed");
            py[pass] = nlohmann::json::parse(p.readAllStandardOutput().trimmed().toStdString());
            for (int64_t n : sizes) {
                std::vector<float> master(size_t(n), 0.5f), m(size_t(n), 0.0f), v(size_t(n), 0.0f), g(size_t(n), 0.01f);
                std::vector<uint16_t> g16(static_cast<size_t>(n), floatToBf16(0.01f)), out16(static_cast<size_t>(n));
                CpuAdamHyper h;
                h.weightDecay = 0.01;
                int64_t step = 0;
                const double fp32 = best(
                    [&] {
                        h.step = ++step;
                        cpuAdamStep(
                            {master.data(), m.data(), v.data(), g.data(), DType::Float32, nullptr, DType::Float32, n},
                            h, kThreads);
                    },
                    rounds);
                const double fused = best(
                    [&] {
                        h.step = ++step;
                        cpuAdamStep({master.data(), m.data(), v.data(), g16.data(), DType::BFloat16, out16.data(),
                                     DType::BFloat16, n},
                                    h, kThreads);
                    },
                    rounds);
                auto& o = ours[n];
                o.first = pass == 0 ? fp32 : std::min(o.first, fp32);
                o.second = pass == 0 ? fused : std::min(o.second, fused);
            }
        }
        std::printf("CPU-Adam, %d threads, %s variant, best of %d x 2 interleaved passes\n", kThreads,
                    cpuIsaName(bestCpuIsa()), rounds);
        for (int64_t n : sizes) {
            const std::string k = std::to_string(n);
            auto pyBest = [&](const char* key) {
                double b = 1e30;
                for (auto& j : py)
                    if (j.contains(k) && j[k].contains(key)) b = std::min(b, j[k][key].get<double>());
                return b;
            };
            const double dsFp32 = pyBest("ds_fp32"), dsOff = pyBest("ds_offload_bf16"),
                         torchAdamw = pyBest("torch_adamw"), torchFused = pyBest("torch_adamw_fused");
            const double roofFp32 = double(n) * 28 / bandwidth;   // read g, p, m, v; write p, m, v
            const double roofFused = double(n) * 28 / bandwidth;  // read g16, p, m, v; write p, m, v, p16
            std::printf("  %lld parameters\n", static_cast<long long>(n));
            std::printf(
                "    fp32 step:       fts %.2f ms | DeepSpeedCPUAdam %.2f ms (%.2fx) | torch AdamW %.2f ms (%.2fx)",
                ours[n].first * 1e3, dsFp32 * 1e3, dsFp32 / ours[n].first, torchAdamw * 1e3,
                torchAdamw / ours[n].first);
            if (torchFused < 1e29)
                std::printf(" | torch AdamW fused %.2f ms (%.2fx)", torchFused * 1e3, torchFused / ours[n].first);
            std::printf(" | roofline %.2f ms\n", roofFp32 * 1e3);
            std::printf(
                "    offload update (bf16 grad in, bf16 param out): fts %.2f ms | DeepSpeed copy+step+copy %.2f ms (%.2fx) | roofline %.2f ms\n",
                ours[n].second * 1e3, dsOff * 1e3, dsOff / ours[n].second, roofFused * 1e3);
        }
    }
};

QTEST_GUILESS_MAIN(BenchCpuAdam)
#include "bench_offload_cpu_adam.moc"
