// `fts node --probe`'s answer: this build's version, the host name, nvidia-smi's GPUs (none here is fine) and
// the required paths this host lacks; and the failure policy's choice of root cause.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/launch/failure_policy.h"
#include "core/launch/node_runner.h"

using namespace fts;

class TestNodeProbe : public QObject {
    Q_OBJECT
private slots:
    void probeNamesMissingPaths() {
        QTemporaryDir dir;
        const std::string there = dir.path().toStdString(), gone = there + "/not here/config.json";
        const auto probe = nlohmann::json::parse(probeLine({there, gone}));
        QCOMPARE(probe["event"].get<std::string>(), std::string("probe"));
        QCOMPARE(probe["fts"].get<std::string>(), std::string(FTS_VERSION));
        QCOMPARE(probe["missing"], nlohmann::json::array({gone}));
        QVERIFY(probe["gpus"].is_array());
    }

    void rootCauseWinsOverConsequences() {
        FailurePolicy f(4);
        QVERIFY(!f.failed());
        f.rankFailed(1, "all-reduce failed: connection reset", true);  // a peer died under it
        QCOMPARE(f.failedRank(), 1);
        f.rankFailed(3, "worker rank 3 on h2 was killed by signal 9", false);
        QCOMPARE(f.failedRank(), 3);
        QCOMPARE(QString::fromStdString(f.failure()), QString("rank 3: worker rank 3 on h2 was killed by signal 9"));
        f.rankFailed(0, "another consequence", true);
        f.rankFailed(2, "a later root cause", false);
        QCOMPARE(f.failedRank(), 3);                       // the first root cause stays
        QVERIFY(!f.killDue(FailurePolicy::Clock::now()));  // the others get a second to report
        QVERIFY(f.killDue(FailurePolicy::Clock::now() + std::chrono::seconds(2)));
        QVERIFY(!f.killDue(FailurePolicy::Clock::now() + std::chrono::seconds(3)));  // once
    }
};

QTEST_APPLESS_MAIN(TestNodeProbe)
#include "test_node_probe.moc"
