// ProbeDialog through the real `fts probe` (quick-start config, short sequences, stages 0 and 1 on one rank, two
// steps): the dialog stays responsive while the child runs, reports progress, and fills one row per variant with
// the estimate, the measured peak and the speed; each variant is a completed run in the store. The table also
// renders a failed variant with its reason.
#include <QCheckBox>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "ui/probe_dialog.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

class TestProbeDialog : public QObject {
    Q_OBJECT
private slots:
    void runsTheProbeAndShowsTheTable() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const fs::path qs = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";
        json cfg = json::parse(fts::readFile(qs / "quickstart.json"));
        cfg["model"]["path"] = (qs / "model").string();
        cfg["data"]["train"] = (qs / "sample_stories.jsonl").string();
        cfg["data"]["max_length"] = 32;
        cfg["training"]["output_dir"] = (dir / "out").string();
        const fs::path config = dir / "probe.json";
        std::ofstream(config) << cfg.dump(2);
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());

        fts::ProbeDialog d(QStringLiteral(FTS_CLI_PATH), QString::fromStdString(config.string()), store,
                           {QStringLiteral("--nproc"), QStringLiteral("1")});
        d.stageBox(2)->setChecked(false);
        d.stageBox(3)->setChecked(false);
        d.stepsSpin()->setValue(2);
        QSignalSpy done(&d, &fts::ProbeDialog::finishedProbe);
        d.start();
        QVERIFY(d.isRunning());
        QVERIFY(!d.statusLabel()->text().isEmpty());
        QVERIFY(done.wait(300000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(d.statusLabel()->text()));
        QVERIFY(!d.isRunning());
        QCOMPARE(d.table()->rowCount(), 2);
        for (int r = 0; r < 2; ++r) {
            QVERIFY(d.table()->item(r, 0)->text().contains(QString::number(r)));
            QVERIFY2(d.table()->item(r, 2)->text().contains(QLatin1String("B")),
                     qPrintable(d.table()->item(r, 2)->text()));
            QVERIFY(d.table()->item(r, 3)->text().toDouble() > 0);
        }
        fts::RunStore s(fs::path(store.toStdString()), true);
        const auto runs = s.listRuns();
        QCOMPARE(runs.size(), size_t(2));
        for (const auto& r : runs) QCOMPARE(r.status, fts::RunStatus::Completed);
    }

    void failedVariantShowsItsReason() {
        fts::ProbeDialog d(QStringLiteral("fts"), QStringLiteral("c.json"), QStringLiteral("s.sqlite"), {});
        d.showResult(json::parse(R"({"variants": [{"variant": "stage 3", "stage": 3, "offload_optimizer": "none",
            "offload_param": "none", "run_id": 4, "estimate_bytes": 1048576, "failure": "CUDA out of memory"}]})"));
        QCOMPARE(d.table()->rowCount(), 1);
        QCOMPARE(d.table()->item(0, 1)->text(), QStringLiteral("1.0 MiB"));
        QCOMPARE(d.table()->item(0, 2)->toolTip(), QStringLiteral("CUDA out of memory"));
    }
};

QTEST_MAIN(TestProbeDialog)
#include "test_probe_dialog.moc"
