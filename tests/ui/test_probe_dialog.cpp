// ProbeDialog through the real `fts probe` (quick-start config, short sequences, stages 0 and 1 on one rank, two
// steps): the dialog stays responsive while the child runs, reports progress, and fills one row per variant with
// the estimate, the measured peak and the speed; each variant is a completed run in the store. The table also
// renders a failed variant with its reason.
#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

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

        fts::ProbeDialog d(QString::fromUtf8(FTS_CLI_PATH), QString::fromStdString(config.string()), store,
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

    // Rows appear as each variant ends, not when the probe does: a stand-in CLI gives the first variant's result,
    // then waits on a FIFO the test opens only after seeing that row; "Use this variant" is offered for a measured
    // row and hands that row's variant over.
    void rowsArriveOneByOne() {
        QTemporaryDir tmp;
        const QString fifo = tmp.filePath(QStringLiteral("go"));
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        const QString cli = tmp.filePath(QStringLiteral("fts"));
        const char* row0 = R"({"variant": "stage 0", "stage": 0, "offload_optimizer": "none", "offload_param": "none",)"
                           R"( "run_id": 1, "estimate_bytes": 1048576, "peak_bytes": 2097152, "tokens_per_s": 900,)"
                           R"( "steps_per_s": 1.5})";
        const char* row1 = R"({"variant": "stage 2 + offload optimizer cpu", "stage": 2, "offload_optimizer": "cpu",)"
                           R"( "offload_param": "none", "run_id": 2, "estimate_bytes": 524288, "peak_bytes": 1048576,)"
                           R"( "tokens_per_s": 500, "steps_per_s": 0.8})";
        {
            std::ofstream sh(cli.toStdString());
            sh << "#!/bin/sh\n"
               << "echo 'probe: stage 0 (2 steps on 1 rank)' >&2\n"
               << "echo 'probe: result " << row0 << "' >&2\n"
               << "read go < \"" << fifo.toStdString() << "\"\n"
               << "echo 'probe: stage 2 + offload optimizer cpu (2 steps on 1 rank)' >&2\n"
               << "echo 'probe: result " << row1 << "' >&2\n"
               << "echo '{\"world_size\": 1, \"steps\": 2, \"variants\": [" << row0 << ", " << row1 << "]}'\n";
        }
        QFile::setPermissions(cli, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        fts::ProbeDialog d(cli, QStringLiteral("c.json"), QStringLiteral("s.sqlite"), {});
        QSignalSpy done(&d, &fts::ProbeDialog::finishedProbe);
        QSignalSpy chosen(&d, &fts::ProbeDialog::variantChosen);
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(d.table()->rowCount(), 1, 20000);
        QVERIFY(d.isRunning());  // the first row while the probe goes on
        QVERIFY(d.table()->item(0, 3)->text().startsWith(QLatin1String("900")));
        d.table()->selectRow(0);
        QVERIFY(d.useButton()->isEnabled());
        {
            std::ofstream(fifo.toStdString()) << "go\n";  // lets the stand-in finish
        }
        QVERIFY(done.wait(20000));
        QCOMPARE(d.table()->rowCount(), 2);
        d.table()->selectRow(1);
        QTest::mouseClick(d.useButton(), Qt::LeftButton);
        QCOMPARE(chosen.count(), 1);
        const json v = json::parse(chosen.at(0).at(0).toString().toStdString());
        QCOMPARE(v.value("stage", -1), 2);
        QCOMPARE(v.value("offload_optimizer", std::string()), std::string("cpu"));
    }

    void failedVariantShowsItsReason() {
        fts::ProbeDialog d(QStringLiteral("fts"), QStringLiteral("c.json"), QStringLiteral("s.sqlite"), {});
        d.showResult(json::parse(R"({"variants": [{"variant": "stage 3", "stage": 3, "offload_optimizer": "none",
            "offload_param": "none", "run_id": 4, "estimate_bytes": 1048576, "failure": "CUDA out of memory"}]})"));
        QCOMPARE(d.table()->rowCount(), 1);
        QCOMPARE(d.table()->item(0, 1)->text(), QStringLiteral("1.0 MiB"));
        QCOMPARE(d.table()->item(0, 2)->toolTip(), QStringLiteral("CUDA out of memory"));
        d.table()->selectRow(0);
        QVERIFY(!d.useButton()->isEnabled());  // nothing measured to use
    }
};

QTEST_MAIN(TestProbeDialog)
#include "test_probe_dialog.moc"
