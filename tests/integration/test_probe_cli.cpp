// `fts probe` on the quick-start config at ZeRO stages 0-3 with 2 ranks: every variant is a completed run in the
// store, the table's measured peak of each is the highest peak that run's ranks recorded in the store, the estimate
// and the throughput are there, and nothing of the probe runs' outputs is left on disk. A stage list that is not
// 0-3 is refused.
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;
using fts::testing::CliResult;
using fts::testing::runFts;
using fts::testing::writeConfig;

class TestProbeCli : public QObject {
    Q_OBJECT
private slots:
    void stagesTableAgreesWithTheStore() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const fs::path config = writeConfig(dir, "probe", {{"data", {{"max_length", 64}}}});
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        CliResult r = runFts({"probe", QString::fromStdString(config.string()), "--stages", "0,1,2,3", "--nproc", "2",
                              "--steps", "3", "--json", "--store", store});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const json table = json::parse(r.out.toStdString());
        QCOMPARE(table.at("world_size").get<int>(), 2);
        QCOMPARE(table.at("variants").size(), size_t(4));
        fts::RunStore s(fs::path(store.toStdString()), true);
        int stage = 0;
        for (const json& v : table.at("variants")) {
            QCOMPARE(v.at("stage").get<int>(), stage++);
            QVERIFY2(!v.contains("failure"), v.dump().c_str());
            const int64_t id = v.at("run_id").get<int64_t>();
            const auto run = s.getRun(id);
            QVERIFY(run.has_value());
            QCOMPARE(run->status, fts::RunStatus::Completed);
            QCOMPARE(run->worldSize, 2);
            QCOMPARE(run->lastStep, int64_t(3));
            int64_t peak = 0;
            std::set<int> ranks;
            for (const auto& d : s.deviceSamples(id)) {
                peak = std::max(peak, d.peak);
                ranks.insert(d.rank);
            }
            QCOMPARE(ranks.size(), size_t(2));
            QCOMPARE(v.at("peak_bytes").get<int64_t>(), peak);
            QVERIFY(peak > 0);
            QVERIFY(v.at("estimate_bytes").get<int64_t>() > 0);
            QVERIFY(v.at("tokens_per_s").get<double>() > 0);
            QVERIFY(v.at("steps_per_s").get<double>() > 0);
            QVERIFY2(!fs::exists(run->outputDir), run->outputDir.c_str());  // the probe's scratch output is gone
        }
        CliResult bad = runFts({"probe", QString::fromStdString(config.string()), "--stages", "0,4", "--store", store});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains("--stages"), qPrintable(bad.err));
    }
};

QTEST_GUILESS_MAIN(TestProbeCli)
#include "test_probe_cli.moc"
