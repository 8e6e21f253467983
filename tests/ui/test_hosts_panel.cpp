// The hosts panel: hosts added by name (hostile names refused) or from an ssh config, the check's report
// turned into GPU rows, the choice turned into a hostfile and an --include list; and the check run through a
// stand-in `fts` that answers like `fts hosts check --json`.
#include <QtTest>

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTreeWidget>

#include "ui/hosts_panel.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

class TestHostsPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
private slots:
    void initTestCase() {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_home.path());  // never the user's settings
        QCoreApplication::setOrganizationName(QStringLiteral("fts-test-hosts-panel"));
        QSettings().clear();
    }

    void init() { QSettings().clear(); }  // each test starts with no saved hosts

    void launchArguments() {
        const auto cpu = multiHostLaunch({}, 2, {{"h1", {}, 3}, {"gpu-box", {2, 0}, 1}});
        QCOMPARE(cpu.hostfileText, QStringLiteral("localhost slots=2\nh1 slots=3\ngpu-box slots=3\n"));
        QCOMPARE(cpu.include, QStringLiteral("localhost:0,1@h1:0,1,2@gpu-box:0,2"));
        const auto gpus = multiHostLaunch({1}, 1, {{"10.0.0.2", {0}, 1}});
        QCOMPARE(gpus.hostfileText, QStringLiteral("localhost slots=2\n10.0.0.2 slots=1\n"));
        QCOMPARE(gpus.include, QStringLiteral("localhost:1@10.0.0.2:0"));
    }

    void sshConfigAliases() {
        const QString text = QStringLiteral(
            "Host te1 te2  # lab\n  HostName 10.0.0.1\nhost *.corp\nHost te2 !bad gpu?\n"
            "Match all\nHost\tjump\n");
        QCOMPARE(sshConfigHosts(text), (QStringList{"te1", "te2", "jump"}));
    }

    void addingHosts() {
        HostsPanel panel;
        QString why;
        QVERIFY(panel.addHost(QStringLiteral("node-1"), &why));
        QVERIFY(panel.addHost(QStringLiteral(" node-1 ")));  // already there: nothing added
        QVERIFY(!panel.addHost(QStringLiteral("h1;touch x"), &why));
        QVERIFY2(why.contains(QLatin1Char(';')), qPrintable(why));
        QVERIFY(!panel.addHost(QStringLiteral("-oProxyCommand=x"), &why));
        QVERIFY(!panel.addHost(QStringLiteral("localhost"), &why));
        QCOMPARE(panel.hosts(), QStringList{QStringLiteral("node-1")});
        QVERIFY(panel.selectedHosts().isEmpty());  // added unchecked
        HostsPanel again;                          // the list is kept
        QCOMPARE(again.hosts(), QStringList{QStringLiteral("node-1")});
    }

    void reportBecomesGpuRows() {
        HostsPanel panel;
        panel.addHost(QStringLiteral("gpu-box"));
        panel.addHost(QStringLiteral("cpu-box"));
        panel.addHost(QStringLiteral("down-box"));
        const auto report = nlohmann::json::parse(R"({"ok": false,
          "hosts": [{"host": "gpu-box", "ok": true, "hostname": "gb", "fts": "0.1.0", "gpus": [
                       {"index": 0, "name": "NVIDIA A10", "memory_total_mib": 24576, "memory_used_mib": 1024},
                       {"index": 1, "name": "NVIDIA A10", "memory_total_mib": 24576, "memory_used_mib": 0}]},
                    {"host": "cpu-box", "ok": true, "hostname": "cb", "fts": "0.1.0", "gpus": []},
                    {"host": "down-box", "ok": false, "error": "host down-box: unreachable over ssh"}],
          "checks": [], "errors": ["host down-box: unreachable over ssh"]})");
        panel.applyReport(report);
        QTreeWidget* tree = panel.tree();
        QTreeWidgetItem* gpuBox = tree->topLevelItem(0);
        QCOMPARE(gpuBox->childCount(), 2);
        QVERIFY(gpuBox->child(1)->text(0).contains(QStringLiteral("NVIDIA A10")));
        QVERIFY(gpuBox->child(0)->text(2).contains(QStringLiteral("1.0 / 24.0")));
        QVERIFY(tree->topLevelItem(2)->text(2).contains(QStringLiteral("unreachable")));
        QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("not ready")));
        gpuBox->setCheckState(0, Qt::Checked);
        gpuBox->child(0)->setCheckState(0, Qt::Unchecked);
        QTreeWidgetItem* cpuBox = tree->topLevelItem(1);
        cpuBox->setCheckState(0, Qt::Checked);
        cpuBox->setText(1, QStringLiteral("4"));
        const auto chosen = panel.selectedHosts();
        QCOMPARE(chosen.size(), 2);
        QCOMPARE(chosen[0].host, QStringLiteral("gpu-box"));
        QCOMPARE(chosen[0].gpus, QList<int>{1});
        QCOMPARE(chosen[1].cpuRanks, 4);
        cpuBox->setText(1, QStringLiteral("zero"));  // not a number: back to 1
        QCOMPARE(cpuBox->text(1), QStringLiteral("1"));
    }

    // The check runs the CLI off the UI thread; a stand-in answers with a report.
    void checkRunsTheCli() {
        QTemporaryDir dir;
        const QString fake = dir.filePath(QStringLiteral("fts"));
        QFile f(fake);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            "#!/bin/sh\n[ \"$1 $2 $3\" = \"hosts check --json\" ] || exit 3\n"
            "grep -q '^only-host slots=1$' \"$5\" || exit 4\n"
            "echo '{\"ok\": true, \"hosts\": [{\"host\": \"only-host\", \"ok\": true, \"hostname\": \"oh\", \"fts\": \"0.1.0\", "
            "\"gpus\": []}], \"checks\": [{\"test\": \"link\", \"from\": \"a\", \"to\": \"b\", \"ok\": true, \"gbps\": 9.5}], "
            "\"errors\": []}'\n");
        f.close();
        f.setPermissions(f.permissions() | QFile::ExeOwner);
        HostsPanel panel;
        panel.setCliPath(fake);
        panel.addHost(QStringLiteral("only-host"));
        QSignalSpy done(&panel, &HostsPanel::checked);
        panel.checkHosts();
        QVERIFY(panel.isChecking());
        QVERIFY(!panel.checkButton()->isEnabled());
        QVERIFY(done.wait(10000));
        QVERIFY2(panel.statusLabel()->text().contains(QStringLiteral("All checks passed")),
                 qPrintable(panel.statusLabel()->text()));
        QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("9.50 Gbit/s")));
        QVERIFY(panel.tree()->topLevelItem(0)->text(2).contains(QStringLiteral("no GPU")));
        QVERIFY(panel.checkButton()->isEnabled());
    }
};

QTEST_MAIN(TestHostsPanel)
#include "test_hosts_panel.moc"
