// Benchmark (label bench; prints figures, asserts nothing): sequence-classification training tokens/s (non-padding
// tokens per second) of `fts train` next to the transformers Trainer on the same CPU, model (BERT, hidden 256,
// 4 layers), data (1024 sentence pairs, max_length 128), micro-batch, fp32 and thread count; both sides drop
// their first steps. Environment: FTS_BENCH_THREADS (default 2), FTS_BENCH_STEPS (default 16).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"
#include "core/store/run_store.h"

namespace fs = std::filesystem;

namespace {

const QString kScript =
    (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/tests/bench/scripts/bench_classification.py"));
constexpr int kMicro = 16, kWarmup = 2, kMaxLength = 128;

int envInt(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

}  // namespace

class BenchTrainClassification : public QObject {
    Q_OBJECT
private slots:
    void oursAgainstTrainer() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const int threads = envInt("FTS_BENCH_THREADS", 2), steps = envInt("FTS_BENCH_STEPS", 16);
        QProcess make;
        make.start(QString::fromUtf8(FTS_TEST_PYTHON), {kScript, "make", tmp.path()});
        QVERIFY(make.waitForFinished(600000));
        QVERIFY2(make.exitCode() == 0, make.readAllStandardError().right(2000).constData());

        // Ours: the real CLI, tokens/s as the run records it, the warm-up steps left out.
        const nlohmann::json cfg = {
            {"model",
             {{"path", (dir / "model").string()}, {"tokenizer", (dir / "tokenizer" / "tokenizer.json").string()}}},
            {"data",
             {{"format", "classification"},
              {"train", (dir / "pairs.tsv").string()},
              {"eval_fraction", 0.0},
              {"max_length", kMaxLength},
              {"columns", {{"text", "#1 String"}, {"text_pair", "#2 String"}, {"label", "Quality"}}}}},
            {"training", {{"max_steps", kWarmup + steps}, {"output_dir", (dir / "out").string()}, {"seed", 0}}},
            {"deepspeed",
             {{"train_micro_batch_size_per_gpu", kMicro},
              {"gradient_accumulation_steps", 1},
              {"gradient_clipping", 1.0},
              {"optimizer", {{"type", "AdamW"}, {"params", {{"lr", 2e-5}, {"weight_decay", 0.0}}}}}}}};
        std::ofstream(dir / "cls.json") << cfg.dump(2);
        QProcess fts;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("OMP_NUM_THREADS"), QString::number(threads));
        fts.setProcessEnvironment(env);
        fts.start(QString::fromUtf8(FTS_CLI_PATH),
                  {"train", QString::fromStdString((dir / "cls.json").string()), "--store",
                   QString::fromStdString((dir / "runs.sqlite").string()), "--quiet"});
        QVERIFY(fts.waitForFinished(900000));
        QVERIFY2(fts.exitCode() == 0, fts.readAllStandardError().right(2000).constData());
        fts::RunStore store(dir / "runs.sqlite", true);
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), size_t(1));
        double tokens = 0.0, seconds = 0.0;
        for (const auto& m : store.metrics(runs[0].id, "tokens_per_s"))
            if (m.step > kWarmup) {  // time-weighted: tokens / seconds over the timed steps
                seconds += 1.0 / m.value;
                tokens += 1.0;
            }
        QVERIFY(tokens > 0);
        // The harmonic mean of per-step tokens/s weights every step alike; with similar token counts per step it is
        // tokens / seconds.
        const double ours = tokens / seconds;

        QProcess hf;
        hf.start(QString::fromUtf8(FTS_TEST_PYTHON),
                 {kScript, "trainer", tmp.path(), QString::number(kMicro), QString::number(steps),
                  QString::number(kWarmup), QString::number(threads), QString::number(kMaxLength)});
        QVERIFY(hf.waitForFinished(900000));
        QVERIFY2(hf.exitCode() == 0, hf.readAllStandardError().right(2000).constData());
        const QByteArray out = hf.readAllStandardOutput().trimmed();
        const double theirs =
            nlohmann::json::parse(out.mid(out.lastIndexOf('\n') + 1).toStdString())["tokens_per_s"].get<double>();
        std::printf(
            "classification training (BERT h256 x4, micro %d, max_length %d, %d threads, %d timed steps): "
            "ours %.0f tokens/s, transformers Trainer %.0f tokens/s, ratio %.2f\n",
            kMicro, kMaxLength, threads, steps, ours, theirs, ours / theirs);
    }
};

QTEST_GUILESS_MAIN(BenchTrainClassification)
#include "bench_train_classification.moc"
