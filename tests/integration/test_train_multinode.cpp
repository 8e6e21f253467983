// `fts train --hostfile` over real OpenSSH and a real network stack: three hosts made as network namespaces
// joined by veth pairs, each running Debian's sshd (tests/integration/netns_hosts.sh). Needs root and sshd:
// it skips without them (CI runs as root and the test set-up installs openssh-server).
//   - 2 hosts x 2 ranks give the losses of 1 host x 4 ranks (ZeRO 2 and 3, Gloo, CPU, fp32), per-host memory rows;
//   - kill -9 of a rank on the second host: the run fails within 10 s and no process of it is left on any host;
//     kill -9 of the supervisor: the remote ranks end with their ssh sessions within 10 s;
//   - an unreachable host, a refused key, a missing remote fts, hostile host names and paths: clear errors
//     naming the host before any rank starts, and no injected command ran (canary files);
//   - Ctrl-C stops every host with a checkpoint, and the resumed run continues with the uninterrupted losses;
//   - fts train returns only after every process of the run on every host has exited (10 runs, checked at once).
#include "tests/integration/zero_run_support.h"  // LibTorch before Qt

#include <QtTest>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

using fts::testing::CliResult;
using fts::testing::json;
using fts::testing::kZeroSteps;
using fts::testing::q;
using fts::testing::runFts;
using fts::testing::series;
using fts::testing::writeConfig;
using fts::testing::writeTinyModelAndData;
namespace fs = std::filesystem;

const fs::path kHarness = fs::path(FTS_SOURCE_DIR) / "tests" / "integration" / "netns_hosts.sh";

int sh(const QStringList& args, QString* out = nullptr) {
    QProcess p;
    p.start("bash", args);
    p.waitForFinished(60000);
    if (out) *out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// Pids of `fts` processes (node or worker) in a namespace.
std::vector<int> ftsPidsIn(const std::string& ns) {
    QString out;
    sh({"-c", QString::fromStdString(
                  "for p in $(ip netns pids " + ns +
                  "); do tr '\\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -q ' node \\| worker ' && echo $p; done")},
       &out);
    std::vector<int> pids;
    for (const QString& l : out.split('\n', Qt::SkipEmptyParts)) pids.push_back(l.trimmed().toInt());
    return pids;
}

std::vector<int> workerPidsIn(const std::string& ns) {
    std::vector<int> pids;
    for (int pid : ftsPidsIn(ns)) {
        std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
        std::string cmd((std::istreambuf_iterator<char>(f)), {});
        if (cmd.find(std::string("worker") + '\0') != std::string::npos) pids.push_back(pid);
    }
    return pids;
}

}  // namespace

class TestTrainMultinode : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_dir, m_hosts;
    std::string m_prefix;
    bool m_up = false;

    std::string ns(int k) const { return m_prefix + "h" + std::to_string(k); }
    fs::path sshConfig() const { return m_hosts / "ssh_config"; }
    fs::path hostfile(const std::string& name, const std::string& text) const {
        fs::path f = m_dir / name;
        std::ofstream(f) << text;
        return f;
    }
    QStringList sshArgs() const { return {"--ssh-config", q(sshConfig())}; }
    bool noFtsProcessAnywhere() const {
        for (int k = 1; k <= 3; ++k)
            if (!ftsPidsIn(ns(k)).empty()) return false;
        return true;
    }
    // Polls (with a deadline, not a sleep) until `ok` or the time is up.
    static bool within(double seconds, const std::function<bool()>& ok) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < end) {
            if (ok()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return ok();
    }
    static int64_t lastStep(const fs::path& store) {
        try {
            RunStore s(store, true);
            auto runs = s.listRuns();
            return runs.empty() ? 0 : int64_t(series(s, runs.front().id, "loss").size());
        } catch (const std::exception&) {
            return 0;
        }
    }

    // `fts train` of a run that never ends by itself on h1 and h2 (2 ranks each), in `p`; returns after two steps.
    void startEndlessRun(QProcess& p, const std::string& name) {
        const fs::path cfg = writeConfig(m_dir, name, 4, 2, {{"training", {{"max_steps", 100000}}}});
        const fs::path store = m_dir / (name + ".sqlite");
        p.start(QString::fromUtf8(FTS_CLI_PATH),
                QStringList{"train", q(cfg), "--store", q(store), "--quiet", "--hostfile",
                            q(hostfile(name + ".hostfile", "h1 slots=2\nh2 slots=2\n"))} +
                    sshArgs());
        QVERIFY(within(120, [&] { return lastStep(store) >= 2; }));
    }

private slots:
    void initTestCase() {
        if (::geteuid() != 0) QSKIP("needs root for network namespaces (CI runs as root)");
        if (!fs::exists("/usr/sbin/sshd")) QSKIP("needs openssh-server (./packaging/setup-debian.sh --tests)");
        m_dir = m_tmp.path().toStdString();
        m_hosts = m_dir / "hosts";
        m_prefix = "ft" + std::to_string(::getpid() % 100000);
        QString out;
        const int rc = sh(
            {QString::fromStdString(kHarness.string()), "up", q(m_hosts), QString::fromStdString(m_prefix), "3"}, &out);
        QVERIFY2(rc == 0, qPrintable(out));
        m_up = true;
        writeTinyModelAndData(m_dir);
    }
    void cleanupTestCase() {
        if (m_up)
            sh({QString::fromStdString(kHarness.string()), "down", q(m_hosts), QString::fromStdString(m_prefix), "3"});
    }

    // 2 hosts x 2 ranks == 1 host x 4 ranks, step by step; the store knows each rank's host.
    void twoHostsMatchOneHost_data() {
        QTest::addColumn<int>("stage");
        QTest::newRow("zero2") << 2;
        QTest::newRow("zero3") << 3;
    }
    void twoHostsMatchOneHost() {
        QFETCH(int, stage);
        const std::string tag = "s" + std::to_string(stage);
        const fs::path local = writeConfig(m_dir, "local-" + tag, 4, stage);
        const fs::path remote = writeConfig(m_dir, "remote-" + tag, 4, stage);
        const fs::path store = m_dir / ("equal-" + tag + ".sqlite");
        CliResult a = runFts({"train", q(local), "--store", q(store), "--quiet", "--nproc", "4"});
        QVERIFY2(a.exitCode == 0, qPrintable(a.err));
        CliResult b = runFts(QStringList{"train", q(remote), "--store", q(store), "--quiet", "--hostfile",
                                         q(hostfile("two.hostfile", "h1 slots=2\nh2 slots=2\n"))} +
                             sshArgs());
        QVERIFY2(b.exitCode == 0, qPrintable(b.err));
        RunStore s(store, true);
        auto runs = s.listRuns();
        QCOMPARE(runs.size(), size_t(2));
        const RunRecord& multi = runs[0].name == "remote-" + tag ? runs[0] : runs[1];
        const RunRecord& single = runs[0].name == "remote-" + tag ? runs[1] : runs[0];
        const auto l1 = series(s, single.id, "loss"), l2 = series(s, multi.id, "loss");
        QCOMPARE(int(l2.size()), kZeroSteps);
        QCOMPARE(l1.size(), l2.size());
        for (size_t i = 0; i < l1.size(); ++i)
            QVERIFY2(std::abs(l1[i] - l2[i]) <= 1e-6 * std::abs(l1[i]),
                     qPrintable(
                         QString("step %1: 1x4 %2, 2x2 %3").arg(i + 1).arg(l1[i], 0, 'g', 10).arg(l2[i], 0, 'g', 10)));
        QCOMPARE(multi.worldSize, 4);
        const json hosts = json::parse(multi.hostsJson);
        QCOMPARE(hosts.size(), size_t(2));
        QCOMPARE(hosts[1]["host"].get<std::string>(), std::string("h2"));
        QCOMPARE(hosts[1]["first_rank"].get<int>(), 2);
        std::map<int, std::string> hostOfRank;
        for (const auto& d : s.deviceSamples(multi.id)) hostOfRank[d.rank] = d.host;
        QCOMPARE(hostOfRank.size(), size_t(4));
        QCOMPARE(hostOfRank[1], std::string("h1"));
        QCOMPARE(hostOfRank[2], std::string("h2"));
        QVERIFY(noFtsProcessAnywhere());
    }

    // `fts train` returns only after every process it started on every host has exited: ten short runs over two
    // hosts, each checked the moment the command returns (no waiting).
    void noProcessOfTheRunOutlivesTrain() {
        const fs::path hf = hostfile("returns.hostfile", "h1 slots=1\nh2 slots=1\n");
        for (int i = 0; i < 10; ++i) {
            const fs::path cfg = writeConfig(m_dir, "returns" + std::to_string(i), 2, 2,
                                             {{"training", {{"max_steps", 2}, {"eval_interval", 0}}}});
            CliResult r = runFts(
                QStringList{"train", q(cfg), "--store", q(m_dir / "returns.sqlite"), "--quiet", "--hostfile", q(hf)} +
                sshArgs());
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            std::string left;
            for (int k = 1; k <= 3; ++k)
                for (int pid : ftsPidsIn(ns(k))) left += " h" + std::to_string(k) + ":" + std::to_string(pid);
            QVERIFY2(left.empty(), qPrintable(QString("run %1: processes left after fts train returned:%2")
                                                  .arg(i + 1)
                                                  .arg(QString::fromStdString(left))));
        }
    }

    // `fts hosts check`: verified collectives over every rank and a measured ping-pong per pair of hosts.
    void hostsCheckReportsEveryLink() {
        CliResult r = runFts(QStringList{"hosts", "check", "--json", "--hostfile",
                                         q(hostfile("check.hostfile", "h1 slots=2\nh2 slots=1\nh3 slots=1\n"))} +
                             sshArgs());
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        const json report = json::parse(r.out.toStdString());
        QVERIFY(report["ok"].get<bool>());
        QCOMPARE(report["hosts"].size(), size_t(3));
        std::set<std::string> links, tests;
        for (const auto& c : report["checks"]) {
            QVERIFY2(c["ok"].get<bool>(), qPrintable(QString::fromStdString(c.dump())));
            QVERIFY(c["gbps"].get<double>() > 0);
            if (c["test"] == "link")
                links.insert(c["from"].get<std::string>() + "-" + c["to"].get<std::string>());
            else
                tests.insert(c["test"].get<std::string>());
        }
        QCOMPARE(links, (std::set<std::string>{"h1-h2", "h1-h3", "h2-h3"}));
        QCOMPARE(tests, (std::set<std::string>{"broadcast", "all_reduce"}));
        QVERIFY(noFtsProcessAnywhere());
        // a host that cannot be reached is named, and nothing starts
        sh({QString::fromStdString(kHarness.string()), "link", q(m_hosts), QString::fromStdString(m_prefix), "3",
            "down"});
        CliResult bad = runFts(
            QStringList{"hosts", "check", "--hostfile", q(hostfile("check.hostfile", "h1 slots=1\nh3 slots=1\n"))} +
            sshArgs());
        sh({QString::fromStdString(kHarness.string()), "link", q(m_hosts), QString::fromStdString(m_prefix), "3",
            "up"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.out.contains("host h3: FAILED: host h3: unreachable over ssh"), qPrintable(bad.out));
        QVERIFY(bad.out.contains("the hosts are not ready for training"));
        QVERIFY(noFtsProcessAnywhere());
    }

    // Errors before anything starts: each names the host, comes within 10 s, and leaves no rank anywhere.
    void hostProblemsFailFast_data() {
        QTest::addColumn<QString>("hostfileText");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("code");
        QTest::newRow("unreachable") << "h1 slots=1\nh3 slots=1\n" << QStringList{} << "host h3: " << 1;
        QTest::newRow("missing remote fts") << "h1 slots=1\nh2 slots=1\n"
                                            << QStringList{"--remote-fts", "/opt/none/fts"}
                                            << "host h1: the remote fts \"/opt/none/fts\" was not found" << 1;
        QTest::newRow("not fts") << "h1 slots=1\n"
                                 << QStringList{"--remote-fts", "/bin/true"} << "did not answer as fts does" << 1;
        QTest::newRow("other version") << "h1 slots=1\nh2 slots=1\n"
                                       << QStringList{"--remote-fts", "OLD_FTS"}
                                       << "host h2: fts there is version 0.0.1, this one is " FTS_VERSION << 1;
        QTest::newRow("hostile host name") << "h1 slots=1\nh2;touch${IFS}CANARY slots=1\n"
                                           << QStringList{} << "line 2: host \"h2;touch${IFS}CANARY\"" << 2;
        QTest::newRow("unknown host") << "h1 slots=1\nnosuchhost.invalid slots=1\n"
                                      << QStringList{} << "host nosuchhost.invalid: the name does not resolve" << 1;
        QTest::newRow("master_addr elsewhere")
            << "h1 slots=1\n"
            << QStringList{"--master_addr", "192.0.2.1"}
            << "--master_addr 192.0.2.1 (192.0.2.1) is not an address of this machine" << 1;
    }
    void hostProblemsFailFast() {
        QFETCH(QString, hostfileText);
        QFETCH(QStringList, extra);
        QFETCH(QString, expected);
        QFETCH(int, code);
        if (extra.size() == 2 && extra[1] == "OLD_FTS") {  // an fts of another version answering the probe
            const fs::path old = m_dir / "old-fts";
            std::ofstream(old)
                << "#!/bin/sh\necho '{\"event\":\"probe\",\"fts\":\"0.0.1\",\"hostname\":\"x\",\"gpus\":[]}'\n";
            fs::permissions(old, fs::perms::owner_all);
            extra[1] = q(old);
        }
        const bool down = QString(QTest::currentDataTag()) == "unreachable";
        if (down)
            sh({QString::fromStdString(kHarness.string()), "link", q(m_hosts), QString::fromStdString(m_prefix), "3",
                "down"});
        const fs::path cfg = writeConfig(m_dir, "fail", 2, 2);
        const auto t0 = std::chrono::steady_clock::now();
        CliResult r = runFts(QStringList{"train", q(cfg), "--store", q(m_dir / "fail.sqlite"), "--quiet", "--hostfile",
                                         q(hostfile("fail.hostfile", hostfileText.toStdString()))} +
                             sshArgs() + extra);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (down)
            sh({QString::fromStdString(kHarness.string()), "link", q(m_hosts), QString::fromStdString(m_prefix), "3",
                "up"});
        QCOMPARE(r.exitCode, code);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY2(seconds < 12.0, qPrintable(QString("took %1 s").arg(seconds)));  // the probe's 10 s + start-up
        QVERIFY(noFtsProcessAnywhere());
        QVERIFY(!fs::exists(m_dir / "CANARY") && !fs::exists("CANARY") && !fs::exists("/CANARY"));
    }

    void refusedKey() {
        // the same hosts, but a key they do not accept
        std::string text = readFile(sshConfig());
        const size_t at = text.find("id_ed25519");
        text.replace(at, std::string("id_ed25519").size(), "other_key");
        const fs::path other = m_dir / "other_ssh_config";
        std::ofstream(other) << text;
        const fs::path cfg = writeConfig(m_dir, "key", 2, 2);
        CliResult r = runFts({"train", q(cfg), "--store", q(m_dir / "key.sqlite"), "--quiet", "--hostfile",
                              q(hostfile("key.hostfile", "h1 slots=1\nh2 slots=1\n")), "--ssh-config", q(other)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("host h1: ssh refused the login in BatchMode"), qPrintable(r.err));
        QVERIFY2(r.err.contains("host h2: ssh refused the login in BatchMode"), qPrintable(r.err));
        RunStore s(m_dir / "key.sqlite", true);
        QCOMPARE(s.listRuns().front().status, RunStatus::Failed);
    }

    // Paths a shell would read as commands reach the remote fts intact: the run trains, nothing is injected.
    void hostilePathsAreQuoted() {
        const fs::path weird = m_dir / "we ird $(touch CANARY) 'q' ;touch CANARY2";
        fs::create_directories(weird);
        const fs::path link = weird / "f`touch CANARY3`ts";
        fs::create_symlink(FTS_CLI_PATH, link);
        json extra = {{"training", {{"max_steps", 2}, {"output_dir", (weird / "out\nnext").string()}}}};
        const fs::path cfg = weird / "hostile $(touch CANARY).json";
        fs::copy_file(writeConfig(m_dir, "hostile", 2, 2, extra), cfg);
        CliResult r =
            runFts(QStringList{"train", q(cfg), "--store", q(m_dir / "hostile.sqlite"), "--quiet", "--hostfile",
                               q(hostfile("hostile.hostfile", "h1 slots=1\nh2 slots=1\n")), "--remote-fts", q(link)} +
                   sshArgs());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(fs::exists(weird / "out\nnext"));
        for (const fs::path& d : {m_dir, weird, fs::path("/root"), fs::path("/")})
            for (const char* c : {"CANARY", "CANARY2", "CANARY3"}) QVERIFY2(!fs::exists(d / c), c);
    }

    // kill -9 of a rank on the second host: failed within 10 s, and when fts train returns nothing of the run is left
    // on any host.
    void killedRemoteRankFailsTheRun() {
        QProcess p;
        startEndlessRun(p, "kill");
        if (QTest::currentTestFailed()) return;
        const auto victims = workerPidsIn(ns(2));
        QCOMPARE(victims.size(), size_t(2));
        const auto t0 = std::chrono::steady_clock::now();
        ::kill(victims[0], SIGKILL);
        QVERIFY(p.waitForFinished(10000));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        qInfo("rank killed on h2: supervisor ended %.2f s later", seconds);
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("on h2 was killed by signal 9"), qPrintable(err));
        QVERIFY2(noFtsProcessAnywhere(), "a process of the failed run outlived fts train");
        RunStore s(m_dir / "kill.sqlite", true);
        QCOMPARE(s.listRuns().front().status, RunStatus::Failed);
    }

    // kill -9 of the supervisor: every remote rank ends with its ssh session within 10 s.
    void killedSupervisorLeavesNothing() {
        QProcess p;
        startEndlessRun(p, "orphan");
        if (QTest::currentTestFailed()) return;
        QCOMPARE(workerPidsIn(ns(1)).size() + workerPidsIn(ns(2)).size(), size_t(4));
        const auto t0 = std::chrono::steady_clock::now();
        ::kill(pid_t(p.processId()), SIGKILL);
        p.waitForFinished();
        QVERIFY(within(10, [&] { return noFtsProcessAnywhere(); }));
        qInfo("supervisor killed: no process of the run on any host %.2f s later",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }

    // Ctrl-C checkpoints and stops every host; --resume continues with the uninterrupted run's losses.
    void stopAndResumeAcrossHosts() {
        json extra = {{"training", {{"save_interval", 1}, {"keep_checkpoints", 0}}}};
        const fs::path hf = hostfile("resume.hostfile", "h1 slots=2\nh2 slots=2\n");
        const fs::path whole = writeConfig(m_dir, "whole", 4, 3, extra);
        const fs::path parts = writeConfig(m_dir, "parts", 4, 3, extra);
        const fs::path store = m_dir / "resume.sqlite";
        CliResult a =
            runFts(QStringList{"train", q(whole), "--store", q(store), "--quiet", "--hostfile", q(hf)} + sshArgs());
        QVERIFY2(a.exitCode == 0, qPrintable(a.err));
        const fs::path partStore = m_dir / "parts.sqlite";
        QProcess p;
        p.start(QString::fromUtf8(FTS_CLI_PATH),
                QStringList{"train", q(parts), "--store", q(partStore), "--quiet", "--hostfile", q(hf)} + sshArgs());
        QVERIFY(within(120, [&] { return lastStep(partStore) >= 3; }));
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(p.readAllStandardError())));
        {
            RunStore s(partStore, true);
            QCOMPARE(s.listRuns().front().status, RunStatus::Stopped);
        }
        QVERIFY(noFtsProcessAnywhere());
        CliResult b =
            runFts(QStringList{"train", q(parts), "--store", q(partStore), "--quiet", "--resume", "--hostfile", q(hf)} +
                   sshArgs());
        QVERIFY2(b.exitCode == 0, qPrintable(b.err));
        RunStore s1(store, true), s2(partStore, true);
        std::map<int64_t, double> full, resumed;
        for (const auto& m : s1.metrics(s1.listRuns().front().id, "loss")) full[m.step] = m.value;
        for (const auto& m : s2.metrics(s2.listRuns().front().id, "loss")) resumed[m.step] = m.value;
        QCOMPARE(int(full.size()), kZeroSteps);
        for (const auto& [step, loss] : full) {
            QVERIFY2(resumed.count(step), qPrintable(QString("step %1 missing after resume").arg(step)));
            QVERIFY2(resumed[step] == loss,
                     qPrintable(
                         QString("step %1: %2 vs %3").arg(step).arg(loss, 0, 'g', 17).arg(resumed[step], 0, 'g', 17)));
        }
    }
};

QTEST_GUILESS_MAIN(TestTrainMultinode)
#include "test_train_multinode.moc"
