// `fts train` and memory: a config whose estimate exceeds the device's free memory is refused before a run row
// exists, with the estimate, the free memory and the changes that fit; --force starts it anyway; a run that still
// runs out of memory fails naming the step and the phase, with the same suggestions (the CPU stands in for a GPU:
// FTS_DEVICE_MEMORY sets the free memory, FTS_CPU_MEMORY_LIMIT makes tensor allocations beyond it fail as CUDA's do).
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using fts::testing::CliResult;
using fts::testing::runFts;
using fts::testing::writeConfig;

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// The quick-start recipe for two steps without eval or checkpoints.
const json kRun = {{"training", {{"max_steps", 2}, {"eval_interval", 0}, {"save_interval", 0}, {"device", "cpu"}}}};

struct EnvScope {  // environment variables for the fts processes this test starts
    std::vector<const char*> names;
    EnvScope(std::initializer_list<std::pair<const char*, const char*>> vars) {
        for (const auto& [k, v] : vars) {
            qputenv(k, v);
            names.push_back(k);
        }
    }
    ~EnvScope() {
        for (const char* k : names) qunsetenv(k);
    }
};

}  // namespace

class TestTrainMemory : public QObject {
    Q_OBJECT
private slots:
    void refusedBeforeStartingWhenItDoesNotFit() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const fs::path cfg = writeConfig(dir, "big", kRun);
        const fs::path storeFile = dir / "runs.sqlite";
        // The estimate for this config, and a free memory just below it.
        CliResult est = runFts({"estimate", q(cfg), "--json"});
        QVERIFY2(est.exitCode == 0, qPrintable(est.err));
        const int64_t total = json::parse(est.out.toStdString()).at("per_rank").at("total").get<int64_t>();
        const QByteArray free = QByteArray::number(qlonglong(total * 9 / 10));
        {
            EnvScope env{{"FTS_DEVICE_MEMORY", free.constData()}};
            CliResult r = runFts({"train", q(cfg), "--store", q(storeFile), "--quiet"});
            QCOMPARE(r.exitCode, 2);
            const QString text = r.out + r.err;
            for (const char* s : {"the memory estimate does not fit", "free (FTS_DEVICE_MEMORY)", "changes that fit",
                                  "train_micro_batch_size_per_gpu = ", "--force"})
                QVERIFY2(text.contains(s), qPrintable(text));
            QVERIFY2(text.contains(q(cfg)), qPrintable(text));  // names the config
            fts::RunStore store(storeFile, true);
            QVERIFY(store.listRuns().empty());  // refused before a run row exists
        }
        {
            // --force starts it (the memory is there in truth) and it completes.
            EnvScope env{{"FTS_DEVICE_MEMORY", free.constData()}};
            CliResult r = runFts({"train", q(cfg), "--store", q(storeFile), "--quiet", "--force"});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY2((r.out + r.err).contains("starting anyway (--force)"), qPrintable(r.out + r.err));
        }
        {
            // Enough free memory: no refusal, no warning.
            EnvScope env{{"FTS_DEVICE_MEMORY", QByteArray::number(qlonglong(total * 2)).constData()}};
            fs::remove_all(dir / "big-out");
            CliResult r = runFts({"train", q(cfg), "--store", q(storeFile), "--quiet"});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY(!(r.out + r.err).contains("memory estimate"));
        }
        EnvScope bad{{"FTS_DEVICE_MEMORY", "lots"}};
        CliResult r = runFts({"train", q(cfg), "--store", q(storeFile), "--quiet"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2((r.out + r.err).contains("FTS_DEVICE_MEMORY: expected a size"), qPrintable(r.out + r.err));
    }

    void outOfMemoryNamesStepAndPhase() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const fs::path cfg = writeConfig(dir, "oom", kRun);
        const fs::path storeFile = dir / "runs.sqlite";
        // The tensors of the model and its optimizer fit in 12 MiB, a micro-batch's activations do not.
        EnvScope env{{"FTS_DEVICE_MEMORY", "12MiB"}, {"FTS_CPU_MEMORY_LIMIT", "12MiB"}};
        CliResult r = runFts({"train", q(cfg), "--store", q(storeFile), "--quiet", "--force"});
        QCOMPARE(r.exitCode, 1);
        fts::RunStore store(storeFile, true);
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].status, fts::RunStatus::Failed);
        const QString reason = QString::fromStdString(runs[0].failureReason);
        for (const char* s : {"out of memory at step 1 (", "on cpu", "FTS_CPU_MEMORY_LIMIT", "The estimate is",
                              "train_micro_batch_size_per_gpu = "})
            QVERIFY2(reason.contains(s), qPrintable(reason));
        QVERIFY2(reason.contains("(forward)") || reason.contains("(backward)"), qPrintable(reason));
        QVERIFY2(!reason.contains("\n"), qPrintable(reason));  // one line, not LibTorch's backtrace
        QVERIFY2((r.out + r.err).contains("out of memory at step 1"), qPrintable(r.out + r.err));
        // fts runs show lists the run's warnings and errors; --logs every line; --json carries them too.
        CliResult show = runFts({"runs", "show", QString::number(runs[0].id), "--store", q(storeFile)});
        QVERIFY2(show.exitCode == 0, qPrintable(show.err));
        QVERIFY2(
            show.out.contains("warnings and errors:") && show.out.contains("rank 0 error: out of memory at step 1"),
            qPrintable(show.out));
        QVERIFY2(!show.out.contains(" info: "), qPrintable(show.out));
        CliResult all = runFts({"runs", "show", QString::number(runs[0].id), "--store", q(storeFile), "--logs"});
        QVERIFY2(all.out.contains(" info: ") && all.out.contains("error: out of memory"), qPrintable(all.out));
        CliResult js = runFts({"runs", "show", QString::number(runs[0].id), "--store", q(storeFile), "--json"});
        const json shown = json::parse(js.out.toStdString());
        QVERIFY(!shown.at("warnings_and_errors").empty());
        for (const auto& l : shown.at("warnings_and_errors")) QVERIFY(l.at("level") != "info");
    }
};

QTEST_APPLESS_MAIN(TestTrainMemory)
#include "test_train_memory.moc"
