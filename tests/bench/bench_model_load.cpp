// Benchmark (label bench; prints figures, asserts nothing): peak host memory while loading a sharded model into
// the target dtype, against the size of its weights in that dtype (goal <= 1.1x). A ~300 MB float32 Llama is made
// with transformers at bench time (tests/bench/scripts/make_bench_models.py, 100 MB shards); each load runs in a
// fresh child process (this executable with --load-child) that reports VmHWM (RSS high-water, file-backed pages
// of the mapped shards included) before and after loadPretrainedModel.
#include "tests/support/test_paths.h"
#include "core/model/language_model.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace {

const QString kScript =
    (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/tests/bench/scripts/make_bench_models.py"));

// kB from /proc/self/status.
int64_t statusKb(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::strlen(key)));
    return -1;
}

int loadChild(const std::string& dir, const std::string& dtype) {
    torch::Tensor warm = torch::ones({16}) * 2;  // LibTorch's own start-up allocations belong to the baseline
    (void)warm;
    const int64_t before = statusKb("VmHWM:");
    fts::ModelLoadOptions o;
    o.dtype = dtype == "bfloat16" ? torch::kBFloat16 : torch::kFloat32;
    const auto t0 = std::chrono::steady_clock::now();
    auto model = fts::loadPretrainedModel(dir, o);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int64_t after = statusKb("VmHWM:");
    int64_t bytes = 0;
    for (auto& p : model->parameters()) bytes += p.tensor.numel() * int64_t(p.tensor.element_size());
    std::cout << "{\"hwm_before_kb\": " << before << ", \"hwm_after_kb\": " << after << ", \"weights_bytes\": " << bytes
              << ", \"seconds\": " << seconds << "}" << std::endl;
    return 0;
}

}  // namespace

class BenchModelLoad : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON), {kScript, "load", m_tmp.path() + "/model"});
        QVERIFY(p.waitForFinished(600000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().right(2000).constData());
        qint64 onDisk = 0;
        for (const auto& e : fs::directory_iterator(m_tmp.path().toStdString() + "/model"))
            if (e.path().extension() == ".safetensors") onDisk += qint64(e.file_size()), ++m_shards;
        const QByteArray out = p.readAllStandardOutput().trimmed();
        std::printf("BENCH model: Llama %s, %d shards, %.1f MB of float32 safetensors\n",
                    out.mid(out.lastIndexOf('\n') + 1).constData(), m_shards, double(onDisk) / 1e6);
    }

    void peakHostMemory_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("F32 on disk -> bfloat16") << "bfloat16";
        QTest::newRow("F32 on disk -> float32") << "float32";
    }

    void peakHostMemory() {
        QFETCH(QString, dtype);
        QProcess p;
        p.start(QCoreApplication::applicationFilePath(), {"--load-child", m_tmp.path() + "/model", dtype});
        QVERIFY(p.waitForFinished(600000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().right(2000).constData());
        const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        const double weightsMb = j["weights_bytes"].get<double>() / 1e6;
        const double grownMb =
            double(j["hwm_after_kb"].get<int64_t>() - j["hwm_before_kb"].get<int64_t>()) * 1024 / 1e6;
        std::printf(
            "BENCH load %s: weights %.1f MB, peak RSS growth %.1f MB (%.3fx the weights; goal <= 1.1x), "
            "baseline %.1f MB, peak %.1f MB, %.2f s\n",
            qPrintable(dtype), weightsMb, grownMb, grownMb / weightsMb, j["hwm_before_kb"].get<double>() * 1024 / 1e6,
            j["hwm_after_kb"].get<double>() * 1024 / 1e6, j["seconds"].get<double>());
    }

private:
    QTemporaryDir m_tmp;
    int m_shards = 0;
};

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--load-child") return loadChild(argv[2], argv[3]);
    QCoreApplication app(argc, argv);  // applicationFilePath() for the child processes
    BenchModelLoad bench;
    return QTest::qExec(&bench, argc, argv);
}

#include "bench_model_load.moc"
