// Benchmark (label bench; prints figures, asserts nothing): the NVMe swapper (core/offload/swap_file: O_DIRECT,
// io_uring) writing and reading a 1 GiB file against fio (Debian's) with the same block size, queue depth, O_DIRECT
// and io_uring on the same filesystem, side by side (fio, ours, fio, ours, ...; best of each; FTS_BENCH_ROUNDS passes,
// default 4: a virtual disk's throughput varies 2x from run to run). Goal: >= 80% of fio.
// FTS_BENCH_SWAP_DIR (default: the build folder) picks the filesystem; FTS_BENCH_SWAP_MB the size.
#include <torch/torch.h>

#include <QProcess>
#include <QtTest>

#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"
#include "core/offload/swap_file.h"

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

class BenchSwap : public QObject {
    Q_OBJECT
private slots:
    void swapAgainstFio() {
        const fs::path dir = qEnvironmentVariable("FTS_BENCH_SWAP_DIR", FTS_BINARY_DIR).toStdString();
        const int64_t bytes = int64_t(qEnvironmentVariableIntValue("FTS_BENCH_SWAP_MB") > 0
                                          ? qEnvironmentVariableIntValue("FTS_BENCH_SWAP_MB")
                                          : 1024)
                              << 20;
        fts::SwapIoOptions io;                     // DeepSpeed's aio defaults: 1 MiB blocks, queue depth 8, one thread
        double fio[2] = {0, 0}, ours[2] = {0, 0};  // best GB/s: write, read
        const bool haveFio = QProcess::execute("fio", {"--version"}) == 0;
        const int passes =
            qEnvironmentVariableIntValue("FTS_BENCH_ROUNDS") > 0 ? qEnvironmentVariableIntValue("FTS_BENCH_ROUNDS") : 4;
        for (int pass = 0; pass < passes; ++pass) {
            if (haveFio) {
                for (int rw = 0; rw < 2; ++rw) {
                    QProcess p;
                    p.start("fio",
                            {"--name=fts", QString::fromStdString("--filename=" + (dir / "fio-bench.swp").string()),
                             rw == 0 ? "--rw=write" : "--rw=read", "--bs=1M", "--iodepth=8", "--direct=1",
                             "--ioengine=io_uring", QString("--size=%1").arg(bytes), "--output-format=json"});
                    QVERIFY(p.waitForFinished(600000));
                    const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
                    const auto& job = j["jobs"][0][rw == 0 ? "write" : "read"];
                    fio[rw] = std::max(fio[rw], job["bw_bytes"].get<double>() / 1e9);
                }
                fs::remove(dir / "fio-bench.swp");
            }
            fts::SwapFile f(dir / "fts-bench.swp", bytes, io);
            fts::AlignedHostBuffer buf(bytes);
            std::memset(buf.data(), 7, size_t(bytes));
            auto t0 = Clock::now();
            f.wait(f.write(0, buf.data(), bytes));
            const double w = double(bytes) / std::chrono::duration<double>(Clock::now() - t0).count() / 1e9;
            t0 = Clock::now();
            f.wait(f.read(0, buf.data(), bytes));
            const double r = double(bytes) / std::chrono::duration<double>(Clock::now() - t0).count() / 1e9;
            ours[0] = std::max(ours[0], w);
            ours[1] = std::max(ours[1], r);
        }
        std::printf(
            "NVMe swapper on %s, %lld MiB, 1 MiB blocks, queue depth 8, O_DIRECT, io_uring, best of %d interleaved passes\n",
            dir.c_str(), static_cast<long long>(bytes >> 20), passes);
        for (int rw = 0; rw < 2; ++rw) {
            std::printf("  %s: fts %.2f GB/s", rw == 0 ? "write" : "read ", ours[rw]);
            if (haveFio) std::printf(" | fio %.2f GB/s | fts/fio %.2f", fio[rw], ours[rw] / fio[rw]);
            std::printf("\n");
        }
    }
};

QTEST_GUILESS_MAIN(BenchSwap)
#include "bench_offload_swap.moc"
