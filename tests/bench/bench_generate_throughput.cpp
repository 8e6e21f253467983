// Benchmark (label bench; prints figures, asserts nothing): greedy generation tokens/s of a ~56M-parameter Llama
// (GQA, vocab 32000, float32, CPU) at batch 1 and 8 with 128 new tokens, against transformers' generate() on the
// same model, prompts and machine in the same run (tests/bench/scripts/bench_generate.py). Prints both, the ratio,
// and how many generated tokens agree (greedy: they should all).
#include "tests/support/test_paths.h"
#include "core/generate/generator.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <iostream>
#include <thread>

#include "core/util/atomic_file.h"

namespace fs = std::filesystem;

namespace {
const QString kScript = (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/tests/bench/scripts/bench_generate.py"));

bool python(const QStringList& args, QByteArray* out) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON), QStringList{kScript} + args);
    if (!p.waitForFinished(1800000)) return false;
    *out = p.readAllStandardOutput();
    if (p.exitCode() != 0) qWarning("%s", p.readAllStandardError().right(3000).constData());
    return p.exitCode() == 0;
}
}  // namespace

class BenchGenerateThroughput : public QObject {
    Q_OBJECT

private slots:
    void generation_data() {
        QTest::addColumn<int>("batch");
        QTest::newRow("batch 1") << 1;
        QTest::newRow("batch 8") << 8;
    }
    void generation() {
        QFETCH(int, batch);
        const int newTokens = 128;
        static QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "llama";
        QByteArray out;
        if (!fs::exists(dir / "config.json")) QVERIFY(python({"make", QString::fromStdString(dir.string())}, &out));
        torch::set_num_threads(int(std::thread::hardware_concurrency()));
        auto model = fts::loadPretrainedModel(dir, {});
        auto prompts =
            nlohmann::json::parse(fts::readFile(dir / "prompts.json")).get<std::vector<std::vector<int64_t>>>();
        prompts.resize(size_t(batch));
        fts::GenerationOptions o;
        o.maxNewTokens = 4;
        fts::generate(*model, prompts, o);  // warm-up, as the reference does
        o.maxNewTokens = newTokens;
        const auto t0 = std::chrono::steady_clock::now();
        const auto ours = fts::generate(*model, prompts, o);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

        QVERIFY(python(
            {"run", QString::fromStdString(dir.string()), QString::number(batch), QString::number(newTokens)}, &out));
        const auto ref = nlohmann::json::parse(out.toStdString());
        const double refSeconds = ref.at("seconds").get<double>();
        const auto refIds = ref.at("ids").get<std::vector<std::vector<int64_t>>>();
        int64_t agree = 0, total = 0;
        for (size_t r = 0; r < ours.size(); ++r)
            for (size_t t = 0; t < ours[r].ids.size() && t < refIds[r].size(); ++t, ++total)
                agree += ours[r].ids[t] == refIds[r][t];
        const double tokens = double(batch * newTokens);
        std::printf(
            "generate batch %d, %d new tokens, %d threads: fts %.1f tokens/s, transformers %.1f tokens/s, "
            "ratio %.2fx; greedy tokens agreeing %lld/%lld\n",
            batch, newTokens, torch::get_num_threads(), tokens / seconds, tokens / refSeconds, refSeconds / seconds,
            (long long)agree, (long long)total);
    }
};

QTEST_APPLESS_MAIN(BenchGenerateThroughput)
#include "bench_generate_throughput.moc"
