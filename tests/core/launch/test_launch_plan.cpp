// The hostfile grammar and DeepSpeed's launcher rules: --include/--exclude (host:slot,slot@host), --num_nodes,
// --num_gpus, rank numbering host by host; every bad line and contradiction is an error naming what is wrong.
#include <QtTest>

#include "core/launch/launch_plan.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {
const char* kFile = R"(# two workers
worker-0 slots=4
worker-1 slots=4   # trailing comment

10.0.0.7 slots=2
)";

QString errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// "host:slots@..." with first ranks, e.g. "worker-0:0,1,2,3/0@worker-1:0,2/4".
std::string shape(const LaunchPlan& p) {
    std::string s;
    for (const NodePlan& n : p.nodes) {
        s += (s.empty() ? "" : "@") + n.host + ":";
        for (size_t i = 0; i < n.slotIds.size(); ++i) s += (i ? "," : "") + std::to_string(n.slotIds[i]);
        s += "/" + std::to_string(n.firstRank);
    }
    return s;
}
}  // namespace

class TestLaunchPlan : public QObject {
    Q_OBJECT
private slots:
    void parsesHostfile() {
        auto hosts = parseHostfile(kFile, "hf");
        QCOMPARE(hosts.size(), size_t(3));
        QCOMPARE(hosts[0].host, std::string("worker-0"));
        QCOMPARE(hosts[1].slotCount, 4);
        QCOMPARE(hosts[1].line, 3);
        QCOMPARE(hosts[2].host, std::string("10.0.0.7"));
        QCOMPARE(hosts[2].line, 5);
    }

    void badHostfiles_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no slots") << "a slots=1\nworker-1\n"
                                  << "hf, line 2: expected \"HOST slots=N\"";
        QTest::newRow("duplicate") << "a slots=1\n\na slots=2\n"
                                   << "line 3: host a is listed twice";
        QTest::newRow("zero slots") << "a slots=0\n"
                                    << "line 1: slots must be at least 1";
        QTest::newRow("too many slots") << "a slots=1024\nb slots=1025\n"
                                        << "line 2: slots must be at most 1024 per host, got 1025 for host b";
        QTest::newRow("not a number") << "a slots=two\n"
                                      << "line 1: slots must be a whole number";
        QTest::newRow("junk after") << "a slots=2 gpus=3\n"
                                    << "line 1: unexpected \"gpus=3\"";
        QTest::newRow("option-like host") << "-oProxyCommand=x slots=1\n"
                                          << "must not start with '-'";
        QTest::newRow("shell in host") << "h1;touch${IFS}x slots=1\n"
                                       << "has the character ';'";
        QTest::newRow("command substitution") << "$(reboot) slots=1\n"
                                              << "has the character '$'";
        QTest::newRow("empty") << "# nothing\n\n"
                               << "hf: no host in it";
    }
    void badHostfiles() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const QString msg = errorOf([&] { parseHostfile(text.toStdString(), "hf"); });
        QVERIFY2(msg.contains(expected), qPrintable(msg));
    }

    void plans_data() {
        QTest::addColumn<QString>("include");
        QTest::addColumn<QString>("exclude");
        QTest::addColumn<int>("numNodes");
        QTest::addColumn<int>("numGpus");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("world");
        QTest::newRow("all") << ""
                             << "" << 0 << 0 << "worker-0:0,1,2,3/0@worker-1:0,1,2,3/4@10.0.0.7:0,1/8" << 10;
        // DeepSpeed's own docstring examples
        QTest::newRow("include") << "worker-0@worker-1:0,2"
                                 << "" << 0 << 0 << "worker-0:0,1,2,3/0@worker-1:0,2/4" << 6;
        QTest::newRow("exclude slot") << ""
                                      << "worker-1:0" << 0 << 0 << "worker-0:0,1,2,3/0@worker-1:1,2,3/4@10.0.0.7:0,1/7"
                                      << 9;
        QTest::newRow("exclude host") << ""
                                      << "worker-0" << 0 << 0 << "worker-1:0,1,2,3/0@10.0.0.7:0,1/4" << 6;
        QTest::newRow("hostfile order, not spec order") << "10.0.0.7:1@worker-0:3,1"
                                                        << "" << 0 << 0 << "worker-0:1,3/0@10.0.0.7:1/2" << 3;
        QTest::newRow("address with slots") << "10.0.0.7:0"
                                            << "" << 0 << 0 << "10.0.0.7:0/0" << 1;
        QTest::newRow("num_nodes") << ""
                                   << "" << 2 << 0 << "worker-0:0,1,2,3/0@worker-1:0,1,2,3/4" << 8;
        QTest::newRow("num_gpus") << ""
                                  << "" << 0 << 2 << "worker-0:0,1/0@worker-1:0,1/2@10.0.0.7:0,1/4" << 6;
        QTest::newRow("both") << ""
                              << "" << 1 << 1 << "worker-0:0/0" << 1;
    }
    void plans() {
        QFETCH(QString, include);
        QFETCH(QString, exclude);
        QFETCH(int, numNodes);
        QFETCH(int, numGpus);
        QFETCH(QString, expected);
        QFETCH(int, world);
        LaunchPlan p =
            planLaunch(parseHostfile(kFile, "hf"), include.toStdString(), exclude.toStdString(), numNodes, numGpus);
        QCOMPARE(QString::fromStdString(shape(p)), expected);
        QCOMPARE(p.worldSize, world);
        QVERIFY(p.remote());
    }

    void refusals_data() {
        QTest::addColumn<QString>("include");
        QTest::addColumn<QString>("exclude");
        QTest::addColumn<int>("numNodes");
        QTest::addColumn<int>("numGpus");
        QTest::addColumn<QString>("expected");
        QTest::newRow("both filters") << "worker-0"
                                      << "worker-1" << 0 << 0 << "give one or the other";
        QTest::newRow("filter and num") << "worker-0"
                                        << "" << 0 << 1 << "cannot be combined";
        QTest::newRow("unknown host") << "worker-9"
                                      << "" << 0 << 0 << "host \"worker-9\" is not in the hostfile";
        QTest::newRow("unknown slot") << "worker-1:7"
                                      << "" << 0 << 0 << "host worker-1 has no slot 7";
        QTest::newRow("bad slot") << "worker-1:a"
                                  << "" << 0 << 0 << "worker-1:a";
        QTest::newRow("empty part") << "worker-0@"
                                    << "" << 0 << 0 << "an empty host";
        QTest::newRow("everything excluded") << ""
                                             << "worker-0@worker-1@10.0.0.7" << 0 << 0 << "no slot is left";
        QTest::newRow("too many nodes") << ""
                                        << "" << 4 << 0 << "--num_nodes 4: the hostfile lists only 3 hosts";
        QTest::newRow("too many gpus") << ""
                                       << "" << 0 << 3 << "host 10.0.0.7 has only 2 slots";
    }
    void refusals() {
        QFETCH(QString, include);
        QFETCH(QString, exclude);
        QFETCH(int, numNodes);
        QFETCH(int, numGpus);
        QFETCH(QString, expected);
        const QString msg = errorOf([&] {
            planLaunch(parseHostfile(kFile, "hf"), include.toStdString(), exclude.toStdString(), numNodes, numGpus);
        });
        QVERIFY2(msg.contains(expected), qPrintable(msg));
    }

    void localhostIsLocal() {
        LaunchPlan p = planLaunch(parseHostfile("localhost slots=2\nb slots=1\n", "hf"), "", "", 0, 0);
        QVERIFY(p.nodes[0].local);
        QVERIFY(!p.nodes[1].local);
        QCOMPARE(QString::fromStdString(describePlan(p)),
                 QString("localhost: ranks 0-1 (slots 0,1); b: rank 2 (slots 0)"));
    }
};

QTEST_APPLESS_MAIN(TestLaunchPlan)
#include "test_launch_plan.moc"
