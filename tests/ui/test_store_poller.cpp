// StorePoller against a real run store written from the test thread: the run list, the watched run's
// history then only new points (late metrics of recent steps included, no duplicates), per-device
// samples, and Stop (SIGTERM to a real process after checking the store).
#include <unistd.h>

#include <QCoreApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include <sqlite3.h>

#include "ui/store_poller.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

constexpr int kFastPollMs = 15;

int64_t addRun(RunStore& store, const std::string& name, RunStatus status, int64_t pid, const std::string& host = "") {
    RunRecord r;
    r.name = name;
    r.status = status;
    r.model = "/models/" + name;
    r.pid = pid;
    r.host = host;
    r.totalSteps = 10;
    const int64_t id = store.createRun(r);
    if (status == RunStatus::Running) store.markStarted(id, pid, 1000.0);
    return id;
}

std::vector<MetricPoint> losses(int64_t from, int64_t to, const std::string& name = "loss") {
    std::vector<MetricPoint> out;
    for (int64_t s = from; s <= to; ++s)
        out.push_back({s, name, 5.0 - 0.1 * static_cast<double>(s), 1000.0 + static_cast<double>(s)});
    return out;
}

// All batches received since the spy started, flattened.
std::vector<MetricPoint> metricsOf(const QSignalSpy& spy, int from = 0) {
    std::vector<MetricPoint> out;
    for (int i = from; i < spy.count(); ++i) {
        const auto b = spy.at(i).at(0).value<RunDataBatch>();
        out.insert(out.end(), b.metrics.begin(), b.metrics.end());
    }
    return out;
}

}  // namespace

class TestStorePoller : public QObject {
    Q_OBJECT
private slots:
    void missingStoreIsReportedAndListedEmpty() {
        QTemporaryDir dir;
        StorePollerThread t(dir.filePath(QStringLiteral("none.sqlite")), kFastPollMs);
        QSignalSpy listed(t.poller(), &StorePoller::runsListed);
        QSignalSpy state(t.poller(), &StorePoller::storeState);
        t.start();
        QTRY_COMPARE(listed.count(), 1);
        QVERIFY(listed.at(0).at(0).value<RunList>().empty());
        QTRY_VERIFY(state.count() >= 1);
        QCOMPARE(state.at(0).at(0).toBool(), false);
        QVERIFY(state.at(0).at(1).toString().contains(QLatin1String("none.sqlite")));

        // The store appears later (the first run creates it): the poller opens it then.
        RunStore writer(dir.filePath(QStringLiteral("none.sqlite")).toStdString());
        addRun(writer, "late", RunStatus::Completed, 0);
        QTRY_VERIFY(listed.count() >= 2 && listed.last().at(0).value<RunList>().size() == 1);
        QTRY_VERIFY(state.last().at(0).toBool());
    }

    // A store an older version wrote (schema 3, before the resolved config) is brought up to date and listed.
    void olderStoreIsMigratedAndListed() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.sqlite"));
        {
            RunStore writer(path.toStdString());
            addRun(writer, "from-an-older-version", RunStatus::Completed, 0);
        }
        {
            sqlite3* db = nullptr;  // turn it back into a version-3 file
            QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
            const int rc = sqlite3_exec(
                db,
                "ALTER TABLE runs DROP COLUMN resolved_config_json; ALTER TABLE queue DROP COLUMN submission; "
                "PRAGMA user_version = 3;",
                nullptr, nullptr, nullptr);
            sqlite3_close(db);
            QCOMPARE(rc, SQLITE_OK);
            QVERIFY_THROWS_EXCEPTION(std::exception, RunStore(path.toStdString(), /*readOnly=*/true));
        }
        StorePollerThread t(path, kFastPollMs);
        QSignalSpy listed(t.poller(), &StorePoller::runsListed);
        t.start();
        QTRY_VERIFY(listed.count() >= 1 && listed.last().at(0).value<RunList>().size() == 1);
        QCOMPARE(RunStore(path.toStdString(), true).schemaVersion(), RunStore::kSchemaVersion);
    }

    void listsRunsAndStreamsTheWatchedRunIncrementally() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
        RunStore writer(path.toStdString());
        const int64_t other = addRun(writer, "other", RunStatus::Completed, 0);
        const int64_t id = addRun(writer, "live", RunStatus::Running, ::getpid());
        writer.addMetrics(id, losses(1, 3));
        writer.addMetrics(other, losses(1, 8));

        StorePollerThread t(path, kFastPollMs);
        QSignalSpy listed(t.poller(), &StorePoller::runsListed);
        QSignalSpy changed(t.poller(), &StorePoller::runsChanged);
        QSignalSpy data(t.poller(), &StorePoller::runData);
        t.start();
        QTRY_VERIFY(listed.count() >= 1);
        const RunList runs = listed.last().at(0).value<RunList>();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs.front().name, std::string("live"));  // newest first

        t.watchRun(id);
        QTRY_VERIFY(data.count() >= 1);
        auto first = data.at(0).at(0).value<RunDataBatch>();
        QVERIFY(first.reset);
        QCOMPARE(first.runId, id);
        QCOMPARE(first.metrics.size(), size_t(3));  // the history, and only this run's

        // New steps arrive: only they are delivered.
        int seen = data.count();
        writer.addMetrics(id, losses(4, 6));
        QTRY_VERIFY(metricsOf(data, seen).size() >= 3);
        auto fresh = metricsOf(data, seen);
        QCOMPARE(fresh.size(), size_t(3));
        QCOMPARE(fresh.front().step, int64_t(4));
        QCOMPARE(fresh.back().step, int64_t(6));
        for (int i = seen; i < data.count(); ++i) QVERIFY(!data.at(i).at(0).value<RunDataBatch>().reset);

        // Metrics of recent steps written in a later transaction (eval after the train step, a lagging
        // series) still arrive, once; then the next step's loss.
        seen = data.count();
        writer.addMetrics(id, {{6, "eval_loss", 4.2, 1006.5}, {5, "grad_norm", 0.7, 1005.5}});
        writer.addMetrics(id, losses(7, 7));
        QTRY_VERIFY(metricsOf(data, seen).size() >= 3);
        fresh = metricsOf(data, seen);
        QCOMPARE(fresh.size(), size_t(3));
        std::set<std::pair<std::string, int64_t>> got;
        for (const auto& p : fresh) got.insert({p.name, p.step});
        const std::set<std::pair<std::string, int64_t>> want{{"eval_loss", 6}, {"grad_norm", 5}, {"loss", 7}};
        QVERIFY(got == want);

        // Nothing is ever delivered twice.
        std::set<std::pair<std::string, int64_t>> all;
        for (const auto& p : metricsOf(data)) QVERIFY2(all.insert({p.name, p.step}).second, p.name.c_str());
        QCOMPARE(all.size(), size_t(3 + 3 + 3));

        // The list follows the run's progress: the same runs, so only the changed row crosses.
        const int lists = listed.count();
        writer.finishRun(id, RunStatus::Completed, 2000.0, R"({"loss": 4.3})", "");
        QTRY_VERIFY(changed.count() > 0 &&
                    changed.last().at(0).value<RunList>().front().status == RunStatus::Completed);
        const RunList rows = changed.last().at(0).value<RunList>();
        QCOMPARE(rows.size(), size_t(1));
        QCOMPARE(rows.front().id, id);
        QCOMPARE(listed.count(), lists);
        // A new run changes the ids: the whole list again.
        addRun(writer, "third", RunStatus::Completed, 0);
        QTRY_VERIFY(listed.count() > lists);
        QCOMPARE(listed.last().at(0).value<RunList>().size(), size_t(3));

        // Re-watching replays the whole history with reset=true.
        seen = data.count();
        t.watchRun(id);
        QTRY_VERIFY(data.count() > seen);
        const auto replay = data.at(seen).at(0).value<RunDataBatch>();
        QVERIFY(replay.reset);
        QCOMPARE(replay.metrics.size(), size_t(9));
    }

    // Logs: the tail after watchRun(), then only the lines written since (by row id), each once.
    void logsTailThenAppended() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
        RunStore writer(path.toStdString());
        const int64_t id = addRun(writer, "logging", RunStatus::Running, ::getpid());
        writer.addLogs(id, {{1000.0, 0, "info", "first"}, {1000.5, -1, "info", "second"}});
        StorePollerThread t(path, kFastPollMs);
        QSignalSpy tail(t.poller(), &StorePoller::runLogs);
        QSignalSpy appended(t.poller(), &StorePoller::runLogsAppended);
        t.start();
        t.watchRun(id);
        QTRY_COMPARE(tail.count(), 1);
        QStringList lines = tail.at(0).at(1).toStringList();
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].endsWith(QLatin1String("rank 0 info: first")));
        QVERIFY(lines[1].endsWith(QLatin1String("supervisor info: second")));
        writer.addLogs(id, {{1001.0, 1, "warn", "third"}});
        writer.addLogs(id, {{1002.0, 1, "error", "fourth"}});
        QStringList got;
        QTRY_VERIFY((got =
                         [&] {
                             QStringList all;
                             for (const auto& a : appended) all << a.at(1).toStringList();
                             return all;
                         }())
                        .size() >= 2);
        QCOMPARE(got.size(), 2);
        QVERIFY(got[0].endsWith(QLatin1String("rank 1 warn: third")));
        QVERIFY(got[1].endsWith(QLatin1String("rank 1 error: fourth")));
        QCOMPARE(tail.count(), 1);
        // Re-watching sends the tail again (four lines).
        t.watchRun(id);
        QTRY_COMPARE(tail.count(), 2);
        QCOMPARE(tail.at(1).at(1).toStringList().size(), 4);
    }

    void deviceSamplesPerRankAndDevice() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
        RunStore writer(path.toStdString());
        const int64_t id = addRun(writer, "ranks", RunStatus::Running, ::getpid());
        const auto sample = [](int64_t step, int rank, const char* dev) {
            DeviceSample s;
            s.step = step;
            s.rank = rank;
            s.device = dev;
            s.allocated = (100 + step) << 20;
            s.peak = (200 + step) << 20;
            s.capacity = int64_t(80) << 30;
            return s;
        };
        writer.addDeviceSamples(id, {sample(1, 0, "cuda:0"), sample(1, 1, "cuda:1"), sample(2, 0, "cuda:0")});
        StorePollerThread t(path, kFastPollMs);
        QSignalSpy data(t.poller(), &StorePoller::runData);
        t.start();
        t.watchRun(id);
        QTRY_VERIFY(data.count() >= 1);
        QCOMPARE(data.at(0).at(0).value<RunDataBatch>().samples.size(), size_t(3));
        // Rank 1 lags a step behind rank 0: its step 2 still arrives.
        const int seen = data.count();
        writer.addDeviceSamples(id, {sample(3, 0, "cuda:0")});
        writer.addDeviceSamples(id, {sample(2, 1, "cuda:1")});
        size_t n = 0;
        QTRY_VERIFY((n = [&] {
                        size_t k = 0;
                        for (int i = seen; i < data.count(); ++i)
                            k += data.at(i).at(0).value<RunDataBatch>().samples.size();
                        return k;
                    }()) >= 2);
        QCOMPARE(n, size_t(2));
    }

    void stopSignalsTheSupervisorOfARunningRun() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
        RunStore writer(path.toStdString());
        QProcess victim;  // a real process standing in the supervisor's pid slot
        victim.start(QStringLiteral("sleep"), {QStringLiteral("300")});
        QVERIFY(victim.waitForStarted());
        const int64_t running = addRun(writer, "running", RunStatus::Running, victim.processId());
        const int64_t done = addRun(writer, "done", RunStatus::Completed, victim.processId());
        const int64_t remote =
            addRun(writer, "remote", RunStatus::Running, victim.processId(), "some-other-host.invalid");

        StorePollerThread t(path, kFastPollMs);
        QSignalSpy stops(t.poller(), &StorePoller::stopRequested);
        t.start();

        t.requestStop(done);
        QTRY_COMPARE(stops.count(), 1);
        QCOMPARE(stops.at(0).at(1).toBool(), false);
        QVERIFY(stops.at(0).at(2).toString().contains(QLatin1String("completed")));

        t.requestStop(remote);
        QTRY_COMPARE(stops.count(), 2);
        QCOMPARE(stops.at(1).at(1).toBool(), false);
        QVERIFY(stops.at(1).at(2).toString().contains(QLatin1String("some-other-host.invalid")));
        QCOMPARE(victim.state(), QProcess::Running);

        t.requestStop(running);
        QTRY_COMPARE(stops.count(), 3);
        QCOMPARE(stops.at(2).at(0).toLongLong(), running);
        QVERIFY2(stops.at(2).at(1).toBool(), qPrintable(stops.at(2).at(2).toString()));
        QTRY_COMPARE(victim.state(), QProcess::NotRunning);
        QCOMPARE(victim.exitStatus(), QProcess::CrashExit);  // ended by the signal
    }
};

QTEST_GUILESS_MAIN(TestStorePoller)
#include "test_store_poller.moc"
