// `fts node --probe`'s answer: this build's version, the host name, nvidia-smi's GPUs (none here is fine) and
// the required paths this host lacks; a malformed answer refuses the host with the reason; and the failure
// policy's choice of root cause.
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/launch/failure_policy.h"
#include "core/launch/node_runner.h"
#include "core/launch/node_transport.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

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

    // A probe answer with fields of the wrong kind (another program, or another version of fts, at that path):
    // the host is refused with the reason, never nlohmann's type_error out of the launcher.
    void malformedProbeAnswerRefusesTheHost() {
        QTemporaryDir dir;
        const std::filesystem::path fake = std::filesystem::path(dir.path().toStdString()) / "fts";
        {
            std::ofstream f(fake);
            f << "#!/bin/sh\necho '{\"event\": \"probe\", \"fts\": 5, \"hostname\": [\"x\"], \"gpus\": \"none\", "
                 "\"ssh_connection\": 7, \"missing\": [1, \"/data\"]}'\n";
        }
        std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
        TransportOptions o;
        o.localFts = fake;
        const std::vector<HostProbe> probes = probeHosts({"localhost"}, o, 20000);
        QCOMPARE(probes.size(), size_t(1));
        QVERIFY(!probes[0].ok);
        QVERIFY2(probes[0].error.find("fts there is version (not given)") != std::string::npos,
                 probes[0].error.c_str());
        QCOMPARE(probes[0].gpusJson, std::string("[]"));
        QCOMPARE(probes[0].hostname, std::string());
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
