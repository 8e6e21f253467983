// The device list: nvidia-smi's CSV parsed from captured samples (tests/data/ui/nvidia_smi), the panel run
// against a stand-in nvidia-smi script (its argv checked, its output a sample; missing, failing or listing
// nothing: the "no NVIDIA GPU" state), the CPU/GPU selection, and the launch argv it produces.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <QTreeWidget>

#include "ui/collapsible_section.h"
#include "ui/config_editor.h"
#include "ui/config_form.h"
#include "ui/device_list.h"
#include "ui/device_panel.h"
#include "ui/run_launcher.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

const QString kSamples = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/ui/nvidia_smi/"));

QByteArray readSample(const QString& name) {
    QFile f(kSamples + name);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A stand-in nvidia-smi: exits 2 unless called with exactly the query's arguments, else prints `sample`
// and exits with `exitCode`.
QString fakeNvidiaSmi(const QTemporaryDir& dir, const QString& sample, int exitCode) {
    const QString path = dir.filePath(QStringLiteral("nvidia-smi"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    const QStringList args = nvidiaSmiGpuArguments();
    f.write(QStringLiteral(
                "#!/bin/sh\n"
                "if [ $# -ne 2 ] || [ \"$1\" != '%1' ] || [ \"$2\" != '%2' ]; then echo \"bad args: $*\"; exit 2; fi\n"
                "cat '%3'\nexit %4\n")
                .arg(args.value(0), args.value(1), kSamples + sample)
                .arg(exitCode)
                .toUtf8());
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return path;
}

}  // namespace

class TestDevicePanel : public QObject {
    Q_OBJECT
private slots:
    // Expected values are read off the sample files by eye.
    void parseSamples_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("skipped");
        QTest::addColumn<int>("at");  // which parsed GPU the remaining columns describe
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("name");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("used");
        QTest::addColumn<int>("util");
        QTest::newRow("4 x H100, two busy")
            << "h100_x4.csv" << 4 << 0 << 1 << 1 << "NVIDIA H100 80GB HBM3" << qint64(81559) << qint64(74187) << 96;
        QTest::newRow("units and CRLF") << "a100_with_units_crlf.csv" << 2 << 0 << 0 << 0 << "NVIDIA A100-SXM4-80GB"
                                        << qint64(81920) << qint64(1221) << 0;
        QTest::newRow("N/A") << "warnings_na_and_bad_lines.csv" << 2 << 2 << 0 << 0 << "NVIDIA GeForce RTX 3090"
                             << qint64(24576) << qint64(1187) << -1;
        QTest::newRow("comma in the name") << "warnings_na_and_bad_lines.csv" << 2 << 2 << 1 << 1
                                           << "NVIDIA A100 80GB PCIe, MIG 3g.40gb" << qint64(81920) << qint64(-1) << -1;
        QTest::newRow("driver message") << "no_driver.txt" << 0 << 1 << -1 << 0 << "" << qint64(0) << qint64(0) << 0;
        QTest::newRow("no devices") << "no_devices.txt" << 0 << 1 << -1 << 0 << "" << qint64(0) << qint64(0) << 0;
    }
    void parseSamples() {
        QFETCH(QString, file);
        QFETCH(int, count);
        QFETCH(int, skipped);
        QFETCH(int, at);
        const QByteArray sample = readSample(file);
        QVERIFY(!sample.isEmpty());
        int skippedLines = -1;
        const std::vector<GpuInfo> gpus = parseNvidiaSmiGpuCsv(sample, &skippedLines);
        QCOMPARE(int(gpus.size()), count);
        QCOMPARE(skippedLines, skipped);
        if (at < 0) return;
        const GpuInfo& g = gpus[size_t(at)];
        QTEST(g.index, "index");
        QTEST(g.name, "name");
        QTEST(g.memoryTotalMiB, "total");
        QTEST(g.memoryUsedMiB, "used");
        QTEST(g.utilizationPercent, "util");
    }

    void placement_data() {
        QTest::addColumn<int>("nproc");
        QTest::addColumn<QList<int>>("gpus");
        QTest::addColumn<QStringList>("args");
        QTest::newRow("one CPU rank") << 1 << QList<int>{} << QStringList{};
        QTest::newRow("CPU ranks") << 3 << QList<int>{} << QStringList{"--nproc", "3"};
        QTest::newRow("GPUs win over nproc") << 3 << QList<int>{0, 2} << QStringList{"--include", "localhost:0,2"};
        QTest::newRow("one GPU") << 1 << QList<int>{5} << QStringList{"--include", "localhost:5"};
    }
    void placement() {
        QFETCH(int, nproc);
        QFETCH(QList<int>, gpus);
        QTEST(placementArguments(nproc, gpus), "args");
    }

    void listsGpusAndSelects() {
        QTemporaryDir dir;
        DevicePanel panel;
        panel.setProgram(fakeNvidiaSmi(dir, QStringLiteral("h100_x4.csv"), 0));
        QVERIFY(!panel.hasQueried());
        panel.show();  // the first show queries
        QTRY_VERIFY_WITH_TIMEOUT(panel.hasQueried(), 10000);
        QVERIFY2(panel.lastResult().found, qPrintable(panel.lastResult().message));
        QCOMPARE(panel.tree()->topLevelItemCount(), 1 + 4);  // CPU, GPUs
        QTreeWidgetItem* gpu1 = panel.gpuItem(1);
        QVERIFY(gpu1);
        QVERIFY(gpu1->text(0).contains(QStringLiteral("NVIDIA H100 80GB HBM3")));
        QCOMPARE(gpu1->text(1), QStringLiteral("72.4 / 79.6 GiB"));  // 74187 / 81559 MiB
        QCOMPARE(gpu1->text(2), QStringLiteral("96 %"));
        QVERIFY(panel.statusLabel()->text().contains(QLatin1Char('4')));

        // The CPU is the default; checking GPUs unchecks it; checking the CPU again clears the GPUs.
        QVERIFY(panel.selectedGpus().isEmpty());
        QCOMPARE(panel.cpuItem()->checkState(0), Qt::Checked);
        panel.gpuItem(3)->setCheckState(0, Qt::Checked);
        panel.gpuItem(1)->setCheckState(0, Qt::Checked);
        QCOMPARE(panel.selectedGpus(), (QList<int>{1, 3}));
        QCOMPARE(panel.cpuItem()->checkState(0), Qt::Unchecked);
        QCOMPARE(placementArguments(1, panel.selectedGpus()), (QStringList{"--include", "localhost:1,3"}));
        QDir().mkpath((QString::fromUtf8(FTS_BINARY_DIR) +
                       QStringLiteral("/screenshots")));  // with the other pages (ui_screenshots)
        panel.resize(640, 240);
        panel.grab().save((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots/device_list.png")));
        // A refresh keeps the selection.
        QTest::mouseClick(panel.refreshButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isQuerying(), 10000);
        QCOMPARE(panel.selectedGpus(), (QList<int>{1, 3}));
        panel.cpuItem()->setCheckState(0, Qt::Checked);
        QVERIFY(panel.selectedGpus().isEmpty());
        // Unchecking the CPU alone is refused: something must run the ranks.
        panel.cpuItem()->setCheckState(0, Qt::Unchecked);
        QCOMPARE(panel.cpuItem()->checkState(0), Qt::Checked);
    }

    void noGpuStates_data() {
        QTest::addColumn<QString>("sample");  // "" = no program at all
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        QTest::newRow("not installed") << "" << 0 << "could not be started";
        QTest::newRow("no driver") << "no_driver.txt" << 9 << "couldn't communicate with the NVIDIA driver";
        QTest::newRow("no devices") << "no_devices.txt" << 6 << "No devices were found";
        QTest::newRow("empty list") << "no_devices.txt" << 0 << "listed none";
    }
    void noGpuStates() {
        QFETCH(QString, sample);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        QTemporaryDir dir;
        DevicePanel panel;
        panel.setProgram(sample.isEmpty() ? dir.filePath(QStringLiteral("no-such-nvidia-smi"))
                                          : fakeNvidiaSmi(dir, sample, exitCode));
        panel.show();
        QTRY_VERIFY_WITH_TIMEOUT(panel.hasQueried(), 10000);
        QVERIFY(!panel.lastResult().found);
        const QString status = panel.statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("No NVIDIA GPU found")), qPrintable(status));
        QVERIFY2(status.contains(says), qPrintable(status));
        QCOMPARE(panel.tree()->topLevelItemCount(), 1);  // the CPU
        QCOMPARE(panel.cpuItem()->checkState(0), Qt::Checked);
        QVERIFY(panel.selectedGpus().isEmpty());
    }

    // In the form: GPUs checked = one rank each (the ranks box follows and locks); back to CPU unlocks it.
    void formRanksFollowGpus() {
        QTemporaryDir dir;
        qputenv("FTS_NVIDIA_SMI", fakeNvidiaSmi(dir, QStringLiteral("h100_x4.csv"), 0).toUtf8());
        ConfigEditor editor;
        ConfigForm form(&editor);
        qunsetenv("FTS_NVIDIA_SMI");
        form.section(FieldSection::Devices)->setExpanded(true);
        form.show();
        DevicePanel* panel = form.devicePanel();
        QTRY_VERIFY_WITH_TIMEOUT(panel->hasQueried(), 10000);
        QVERIFY(panel->lastResult().found);
        panel->gpuItem(0)->setCheckState(0, Qt::Checked);
        panel->gpuItem(2)->setCheckState(0, Qt::Checked);
        QCOMPARE(form.ranksSpin()->value(), 2);
        QVERIFY(!form.ranksSpin()->isEnabled());
        // The estimate is a CUDA one, judged against one GPU's memory (the sample's H100s: 81559 MiB).
        editor.setConfigText(
            QString::fromUtf8(R"({"model": {"path": "../models/gpt2"}, "data": {"train": "train.jsonl"},
  "training": {"output_dir": "out", "max_steps": 10}, "deepspeed": {"train_micro_batch_size_per_gpu": 2}})"),
            (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/config")));
        QTRY_VERIFY(editor.isValidated() && !editor.estimateJson().isEmpty());
        auto estimate = nlohmann::json::parse(editor.estimateJson().toStdString());
        QCOMPARE(estimate["device"].get<std::string>(), std::string("cuda"));
        int64_t smallest = INT64_MAX;
        for (const GpuInfo& g : panel->lastResult().gpus)
            if (g.index == 0 || g.index == 2) smallest = std::min<int64_t>(smallest, g.memoryTotalMiB);
        QCOMPARE(estimate["device_capacity"].get<int64_t>(), smallest << 20);
        panel->cpuItem()->setCheckState(0, Qt::Checked);
        QVERIFY(form.ranksSpin()->isEnabled());
        QTRY_VERIFY(editor.isValidated() && !editor.estimateJson().isEmpty());
        estimate = nlohmann::json::parse(editor.estimateJson().toStdString());
        QCOMPARE(estimate["device"].get<std::string>(), std::string("cpu"));
    }

    // The launch argv carries the GPU selection: a stand-in CLI writes the arguments it got.
    void launchCarriesTheSelection() {
        QTemporaryDir dir;
        const QString cli = dir.filePath(QStringLiteral("fts"));
        {
            QFile f(cli);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                QStringLiteral(
                    "#!/bin/sh\nprintf '%s\\n' \"$@\" \"order=$CUDA_DEVICE_ORDER\" > '%1.tmp' && mv '%1.tmp' '%1'\n")
                    .arg(dir.filePath(QStringLiteral("args.txt")))
                    .toUtf8());
            f.close();
            f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        }
        qunsetenv("CUDA_DEVICE_ORDER");
        QString error;
        const auto started =
            startTrainDetached({cli, dir.filePath(QStringLiteral("c.json")), dir.filePath(QStringLiteral("s.sqlite")),
                                QString(), placementArguments(2, {0, 2})},
                               &error);
        QVERIFY2(started, qPrintable(error));
        QFile args(dir.filePath(QStringLiteral("args.txt")));
        QTRY_VERIFY_WITH_TIMEOUT(args.exists(), 10000);
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList got = QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(got, (QStringList{"train", dir.filePath(QStringLiteral("c.json")), "--store",
                                   dir.filePath(QStringLiteral("s.sqlite")), "--include", "localhost:0,2",
                                   "order=PCI_BUS_ID"}));
    }
};

QTEST_MAIN(TestDevicePanel)
#include "test_device_panel.moc"
