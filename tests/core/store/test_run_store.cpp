// Tests of the SQLite run store: schema versioning and refusal of foreign/newer files, the run
// lifecycle, incremental reads, WAL readers beside a writer, orphan reaping, cascades and bulk inserts.
#include "core/store/run_json.h"
#include "core/store/run_store.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

// A raw sqlite3 connection, to inspect or tamper with a store file from outside the RunStore API.
class RawDb {
public:
    explicit RawDb(const fs::path& file, int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {
        if (sqlite3_open_v2(file.c_str(), &m_db, flags, nullptr) != SQLITE_OK)
            throw std::runtime_error("raw open failed: " + std::string(sqlite3_errmsg(m_db)));
    }
    ~RawDb() { sqlite3_close_v2(m_db); }
    void exec(const std::string& sql) {
        char* err = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "?";
            sqlite3_free(err);
            throw std::runtime_error("raw exec failed: " + sql + ": " + msg);
        }
    }
    std::string scalar(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
            throw std::runtime_error("raw prepare failed: " + sql + ": " + sqlite3_errmsg(m_db));
        std::string out;
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return out;
    }
    long long count(const std::string& table) { return std::stoll(scalar("SELECT count(*) FROM " + table)); }

private:
    sqlite3* m_db = nullptr;
};

// Runs fn, which must throw StoreError; returns its message.
QString storeErrorOf(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const StoreError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

RunRecord sampleRun(const std::string& name = "demo") {
    RunRecord r;
    r.name = name;
    r.createdAt = 1714566896.25;
    r.configJson = R"({"train_batch_size": 8, "zero_optimization": {"stage": 2}})";
    r.configPath = "/tmp/cfg.json";
    r.model = "openai-community/gpt2";
    r.dataset = "/data/train.jsonl";
    r.outputDir = "/out/demo";
    r.host = "node-a";
    r.versionsJson = R"({"fts": "0.1.0", "torch": "2.11.0"})";
    r.worldSize = 2;
    r.totalSteps = 500;
    return r;
}

std::vector<MetricPoint> lossPoints(int64_t from, int64_t to, const std::string& name = "loss") {
    std::vector<MetricPoint> pts;
    for (int64_t s = from; s <= to; ++s) pts.push_back({s, name, 10.0 / static_cast<double>(s + 1), 1000.0 + s});
    return pts;
}

pid_t deadPid() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    int status = 0;
    waitpid(child, &status, 0);  // reaped: the pid no longer names any process
    return child;
}

}  // namespace

class TestRunStore : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path file(const char* name = "runs.sqlite") const { return fs::path(m_dir->path().toStdString()) / name; }

private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    // ---- create / open / migrate ---------------------------------------------------------------

    void freshFileGetsCurrentSchema() {
        const fs::path f = file("nested/deeper/runs.sqlite");  // the folder is created
        RunStore store(f);
        QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
        QCOMPARE(store.schemaVersion(), 7);
        QVERIFY(fs::exists(f));
        QCOMPARE(store.path(), f);
        RawDb raw(f);
        for (const char* table : {"runs", "metrics", "device_samples", "logs", "samples", "queue"})
            QCOMPARE(raw.scalar(std::string("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='") +
                                table + "'"),
                     std::string("1"));
        QCOMPARE(raw.scalar("PRAGMA user_version"), std::string("7"));
    }

    // A new store and the folder made for it are the owner's only whatever the umask, and so are SQLite's -wal and
    // -shm files (it gives them the database's mode); a store that exists keeps the mode its user gave it.
    void newStoreIsTheOwnersOnly() {
        const mode_t old = ::umask(0);
        const auto modeOf = [](const fs::path& p) {
            struct stat st {};
            if (::stat(p.c_str(), &st) != 0) return mode_t(~0u);
            return mode_t(st.st_mode & 07777);
        };
        const fs::path f = file("private/runs.sqlite");
        {
            RunStore store(f);
            store.createRun(sampleRun("private"));
            QCOMPARE(modeOf(f), mode_t(0600));
            QCOMPARE(modeOf(f.parent_path()), mode_t(0700));
            QCOMPARE(modeOf(fs::path(f.string() + "-wal")), mode_t(0600));
            QCOMPARE(modeOf(fs::path(f.string() + "-shm")), mode_t(0600));
        }
        fs::permissions(f, fs::perms(0640));
        { RunStore again(f); }
        ::umask(old);
        QCOMPARE(modeOf(f), mode_t(0640));
    }

    // A store written by schema 1 (no notes/tags columns) is migrated on a read-write open, keeping its runs.
    void migrationTwoAddsNotesAndTags() {
        int64_t id = 0;
        {
            RunStore store(file());
            id = store.createRun(sampleRun("old"));
            store.addMetrics(id, lossPoints(1, 3));
        }
        {
            RawDb raw(file());  // turn it back into a version-1 file
            raw.exec(
                "ALTER TABLE runs DROP COLUMN notes; ALTER TABLE runs DROP COLUMN tags; "
                "ALTER TABLE runs DROP COLUMN resolved_config_json; ALTER TABLE runs DROP COLUMN hosts_json; ALTER TABLE device_samples DROP COLUMN host; "
                "ALTER TABLE queue DROP COLUMN submission; PRAGMA user_version = 1;");
        }
        const QString msg = storeErrorOf([&] { RunStore ro(file(), true); });
        QVERIFY2(msg.contains("schema version 1"), qPrintable(msg));
        RunStore store(file());
        QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
        auto run = store.getRun(id);
        QVERIFY(run.has_value());
        QCOMPARE(run->name, std::string("old"));
        QCOMPARE(run->notes, std::string());
        QVERIFY(run->tags.empty());
        QCOMPARE(store.metrics(id).size(), size_t(3));
    }

    // Schema 3: a run's hosts and each device sample's host; a version-2 file keeps its rows ("" hosts).
    void migrationThreeAddsHosts() {
        int64_t id = 0;
        {
            RunStore store(file());
            id = store.createRun(sampleRun("two-host"));
            DeviceSample s;
            s.step = 1;
            s.device = "cuda:0";
            s.host = "node-b";
            s.rank = 3;
            store.addDeviceSamples(id, {s});
            RunRecord r = sampleRun("with-hosts");
            r.hostsJson = R"([{"host":"node-a","first_rank":0,"slots":[0,1]}])";
            const int64_t id2 = store.createRun(r);
            QCOMPARE(store.getRun(id2)->hostsJson, r.hostsJson);
            const auto samples = store.deviceSamples(id);
            QCOMPARE(samples.size(), size_t(1));
            QCOMPARE(samples[0].host, std::string("node-b"));
        }
        {
            RawDb raw(file());
            raw.exec(
                "ALTER TABLE runs DROP COLUMN resolved_config_json; ALTER TABLE runs DROP COLUMN hosts_json; ALTER TABLE device_samples DROP COLUMN host; "
                "ALTER TABLE queue DROP COLUMN submission; PRAGMA user_version = 2;");
        }
        RunStore store(file());
        QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
        QCOMPARE(store.getRun(id)->hostsJson, std::string());
        const auto samples = store.deviceSamples(id);
        QCOMPARE(samples.size(), size_t(1));
        QCOMPARE(samples[0].host, std::string());
        QCOMPARE(samples[0].rank, 3);
    }

    // Schema 4: the resolved config of each run; a version-3 file gains the column, its runs an empty value.
    void migrationFourAddsResolvedConfig() {
        int64_t id = 0;
        {
            RunStore store(file());
            RunRecord r = sampleRun("resolved");
            r.resolvedConfigJson = R"({"deepspeed":{"train_batch_size":16}})";
            const int64_t withResolved = store.createRun(r);
            QCOMPARE(store.getRun(withResolved)->resolvedConfigJson, r.resolvedConfigJson);
            id = store.createRun(sampleRun("old"));
        }
        {
            RawDb raw(file());
            raw.exec(
                "ALTER TABLE runs DROP COLUMN resolved_config_json; ALTER TABLE queue DROP COLUMN submission; "
                "PRAGMA user_version = 3;");
        }
        RunStore store(file());
        QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
        QCOMPARE(store.getRun(id)->resolvedConfigJson, std::string());
        QCOMPARE(store.getRun(id)->name, std::string("old"));
    }

    // Schema 5: a store of version 4 gets the samples table; samples written for a step come back in order, and
    // go with their run when it is deleted.
    void migrationFiveAddsSamples() {
        int64_t id = 0;
        {
            RunStore store(file());
            id = store.createRun(sampleRun("old"));
        }
        {
            RawDb raw(file());
            raw.exec("DROP TABLE samples; DROP TABLE queue; PRAGMA user_version = 4;");
        }
        RunStore store(file());
        QCOMPARE(store.schemaVersion(), 7);
        QVERIFY(store.samplesAfterId(id).empty());
        store.addSamples(id, {{10, 1.0, 0, "Hello", "world", 0}, {10, 1.0, 1, "Why?", "Because.\n\u4e2d", 0}});
        store.addSamples(id, {{20, 2.0, 0, "Hello", "there", 0}});
        const auto all = store.samplesAfterId(id);
        QCOMPARE(all.size(), size_t(3));
        QCOMPARE(all[1].text, std::string("Because.\n\u4e2d"));
        QCOMPARE(all[1].index, 1);
        QCOMPARE(all[2].step, int64_t(20));
        const auto later = store.samplesAfterId(id, all[0].id);
        QCOMPARE(later.size(), size_t(2));
        store.deleteRun(id, true);
        QVERIFY(store.samplesAfterId(id).empty());
    }

    void notesAndTags_data() {
        QTest::addColumn<QStringList>("given");
        QTest::addColumn<QStringList>("stored");
        QTest::newRow("sorted unique") << QStringList{"lr-sweep", "baseline", "lr-sweep"}
                                       << QStringList{"baseline", "lr-sweep"};
        QTest::newRow("trimmed, empty dropped") << QStringList{"  a b ", "", "   "} << QStringList{"a b"};
        QTest::newRow("unicode") << QStringList{"基线"} << QStringList{"基线"};
        QTest::newRow("none") << QStringList{} << QStringList{};
    }
    void notesAndTags() {
        QFETCH(QStringList, given);
        QFETCH(QStringList, stored);
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun("tagged"));
        const int64_t other = store.createRun(sampleRun("other"));
        std::vector<std::string> tags;
        for (const QString& t : given) tags.push_back(t.toStdString());
        store.setRunTags(id, tags);
        store.setRunNotes(id, "line 1\nline 2, with a comma");
        const auto run = store.getRun(id);
        QStringList got;
        for (const auto& t : run->tags) got << QString::fromStdString(t);
        QCOMPARE(got, stored);
        QCOMPARE(run->notes, std::string("line 1\nline 2, with a comma"));
        QVERIFY(store.getRun(other)->tags.empty());
        QCOMPARE(store.listRuns().back().notes.size() + store.listRuns().front().notes.size(), run->notes.size());
    }

    void badTagsAndMissingRunsAreRefused() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun());
        QString msg = storeErrorOf([&] { store.setRunTags(id, {"a,b"}); });
        QVERIFY2(msg.contains("a,b") && msg.contains("comma"), qPrintable(msg));
        msg = storeErrorOf([&] { store.setRunNotes(id + 100, "x"); });
        QVERIFY2(msg.contains(QString::number(id + 100)), qPrintable(msg));
        RunStore ro(file(), true);
        msg = storeErrorOf([&] { ro.setRunTags(id, {"x"}); });
        QVERIFY2(msg.contains("read-only"), qPrintable(msg));
    }

    void minMetricPerRun() {
        RunStore store(file());
        const int64_t a = store.createRun(sampleRun("a"));
        const int64_t b = store.createRun(sampleRun("b"));
        store.createRun(sampleRun("no evals"));
        store.addMetrics(
            a, {{10, "eval_loss", 3.0, 1}, {20, "eval_loss", 2.5, 2}, {30, "eval_loss", 2.7, 3}, {30, "loss", 0.1, 3}});
        store.addMetrics(b, {{10, "eval_loss", 4.0, 1}});
        const auto best = store.minMetricPerRun("eval_loss");
        QCOMPARE(best.size(), size_t(2));
        QCOMPARE(best[0].first, a);
        QCOMPARE(best[0].second, 2.5);
        QCOMPARE(best[1].first, b);
        QCOMPARE(best[1].second, 4.0);
    }

    void reopeningKeepsData() {
        int64_t id = 0;
        {
            RunStore store(file());
            id = store.createRun(sampleRun("kept"));
            store.addMetrics(id, lossPoints(1, 5));
        }
        RunStore again(file());
        QCOMPARE(again.schemaVersion(), RunStore::kSchemaVersion);
        const auto run = again.getRun(id);
        QVERIFY(run.has_value());
        QCOMPARE(run->name, std::string("kept"));
        QCOMPARE(again.metrics(id).size(), size_t(5));
        QCOMPARE(again.listRuns().size(), size_t(1));
    }

    void newerSchemaIsRefused_data() {
        QTest::addColumn<bool>("readOnly");
        QTest::newRow("read-write") << false;
        QTest::newRow("read-only") << true;
    }
    void newerSchemaIsRefused() {
        QFETCH(bool, readOnly);
        {
            RawDb raw(file());
            raw.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, future TEXT); PRAGMA user_version = 99;");
        }
        const QString msg = storeErrorOf([&] { RunStore store(file(), readOnly); });
        QVERIFY2(msg.contains("schema version 99"), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("version %1 ").arg(RunStore::kSchemaVersion)), qPrintable(msg));
        QVERIFY2(msg.contains(QString::fromStdString(file().string())), qPrintable(msg));
        RawDb raw(file());  // untouched: no migration ran over it
        QCOMPARE(raw.scalar("PRAGMA user_version"), std::string("99"));
        QCOMPARE(raw.scalar("SELECT count(*) FROM sqlite_master WHERE name='metrics'"), std::string("0"));
    }

    void nonSqliteFileIsRefused_data() {
        QTest::addColumn<bool>("readOnly");
        QTest::newRow("read-write") << false;
        QTest::newRow("read-only") << true;
    }
    void nonSqliteFileIsRefused() {
        QFETCH(bool, readOnly);
        {
            std::ofstream out(file("notes.txt"));
            for (int i = 0; i < 50; ++i) out << "this is a plain text file, not an SQLite database\n";
        }
        const QString msg = storeErrorOf([&] { RunStore store(file("notes.txt"), readOnly); });
        QVERIFY2(!msg.isEmpty(), "opening a text file as a store must throw StoreError");
        QVERIFY2(msg.contains(QString::fromStdString(file("notes.txt").string())), qPrintable(msg));
        QVERIFY2(msg.contains("not a database"), qPrintable(msg));
    }

    void simultaneousFirstOpensMigrateOnce() {
        // Several processes (here: threads with their own connections) creating the same store at
        // once: exactly one migration wins, none fails or sees a half-built schema.
        for (int round = 0; round < 10; ++round) {
            const fs::path f = file(("race" + std::to_string(round) + ".sqlite").c_str());
            std::vector<std::thread> threads;
            std::vector<std::string> errors(4);
            std::vector<int64_t> ids(4, 0);
            for (size_t t = 0; t < 4; ++t)
                threads.emplace_back([&, t] {
                    try {
                        RunStore store(f);
                        ids[t] = store.createRun(sampleRun("racer"));
                    } catch (const std::exception& e) {
                        errors[t] = e.what();
                    }
                });
            for (auto& th : threads) th.join();
            for (const auto& e : errors) QVERIFY2(e.empty(), e.c_str());
            RunStore store(f);
            QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
            QCOMPARE(store.listRuns().size(), size_t(4));
        }
    }

    void readOnlyOpenOfOlderSchemaIsRefused() {
        {
            RawDb raw(file());
            raw.exec("CREATE TABLE unrelated (x INTEGER); INSERT INTO unrelated VALUES (7);");
        }
        const QString msg = storeErrorOf([&] { RunStore store(file(), true); });
        QVERIFY2(msg.contains("schema version 0"), qPrintable(msg));
        QVERIFY2(msg.contains("read-only"), qPrintable(msg));
        QVERIFY2(msg.contains(QString::fromStdString(file().string())), qPrintable(msg));
        {
            RawDb raw(file());
            QCOMPARE(raw.scalar("PRAGMA user_version"), std::string("0"));  // nothing migrated
        }
        // A read-write open migrates a version-0 file and leaves foreign tables alone.
        RunStore store(file());
        QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
        RawDb raw(file());
        QCOMPARE(raw.scalar("SELECT x FROM unrelated"), std::string("7"));
    }

    void readOnlyOpenOfMissingFileIsRefused() {
        const QString msg = storeErrorOf([&] { RunStore store(file("absent.sqlite"), true); });
        QVERIFY2(msg.contains("does not exist"), qPrintable(msg));
        QVERIFY(!fs::exists(file("absent.sqlite")));
    }

    void readOnlyStoreRefusesWrites_data() {
        QTest::addColumn<int>("op");
        for (int op = 0; op < 9; ++op) QTest::newRow(std::to_string(op).c_str()) << op;
    }
    void readOnlyStoreRefusesWrites() {
        QFETCH(int, op);
        int64_t id = 0;
        {
            RunStore writer(file());
            id = writer.createRun(sampleRun());
        }
        RunStore store(file(), true);
        QVERIFY(store.isReadOnly());
        const std::vector<std::function<void()>> ops = {
            [&] { store.createRun(sampleRun()); },
            [&] { store.markStarted(id, 1, 1); },
            [&] { store.setTotalSteps(id, 5); },
            [&] { store.finishRun(id, RunStatus::Completed, 2, "{}", ""); },
            [&] { store.setPid(id, 3); },
            [&] { store.addMetrics(id, lossPoints(1, 2)); },
            [&] {
                store.addLogs(id, {{1.0, 0, "info", "x"}});
            },
            [&] { store.deleteRun(id, true); },
            [&] { store.reapOrphans(); },
        };
        const QString msg = storeErrorOf(ops.at(static_cast<size_t>(op)));
        QVERIFY2(msg.contains("read-only"), qPrintable(msg));
        QCOMPARE(store.listRuns().size(), size_t(1));
        QCOMPARE(store.getRun(id)->status, RunStatus::Pending);
    }

    void walModeIsOn() {
        { RunStore store(file()); }
        RawDb raw(file());
        QCOMPARE(raw.scalar("PRAGMA journal_mode"), std::string("wal"));  // persistent in the file
    }

    void readOnlyOpenAfterWriterClosed() {
        int64_t id = 0;
        {
            RunStore writer(file());
            id = writer.createRun(sampleRun());
            writer.addMetrics(id, lossPoints(0, 9));
        }  // the last connection closes: the WAL is checkpointed and removed
        RunStore reader(file(), true);
        QCOMPARE(reader.schemaVersion(), RunStore::kSchemaVersion);
        QCOMPARE(reader.metrics(id).size(), size_t(10));
    }

    void defaultPathFollowsXdg_data() {
        QTest::addColumn<QByteArray>("xdg");
        QTest::addColumn<QByteArray>("home");
        QTest::addColumn<QString>("expected");
        QTest::newRow("xdg set") << QByteArray("/srv/xdg") << QByteArray("/home/u")
                                 << "/srv/xdg/finetune-studio/runs.sqlite";
        QTest::newRow("xdg empty") << QByteArray("") << QByteArray("/home/u")
                                   << "/home/u/.local/share/finetune-studio/runs.sqlite";
        QTest::newRow("xdg relative is ignored")
            << QByteArray("rel/dir") << QByteArray("/home/v") << "/home/v/.local/share/finetune-studio/runs.sqlite";
    }
    void defaultPathFollowsXdg() {
        QFETCH(QByteArray, xdg);
        QFETCH(QByteArray, home);
        QFETCH(QString, expected);
        const QByteArray oldXdg = qgetenv("XDG_DATA_HOME"), oldHome = qgetenv("HOME");
        const bool hadXdg = qEnvironmentVariableIsSet("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", xdg);
        qputenv("HOME", home);
        const fs::path p = RunStore::defaultPath();
        if (hadXdg)
            qputenv("XDG_DATA_HOME", oldXdg);
        else
            qunsetenv("XDG_DATA_HOME");
        qputenv("HOME", oldHome);
        QCOMPARE(QString::fromStdString(p.string()), expected);
    }

    // ---- the run lifecycle ----------------------------------------------------------------------

    void runLifecycle() {
        RunStore store(file());
        const RunRecord in = sampleRun("lifecycle");
        const int64_t id = store.createRun(in);
        QVERIFY(id > 0);
        auto r = store.getRun(id);
        QVERIFY(r.has_value());
        QCOMPARE(r->id, id);
        QCOMPARE(r->status, RunStatus::Pending);
        QCOMPARE(r->name, in.name);
        QCOMPARE(r->createdAt, in.createdAt);
        QCOMPARE(r->configJson, in.configJson);
        QCOMPARE(r->configPath, in.configPath);
        QCOMPARE(r->model, in.model);
        QCOMPARE(r->dataset, in.dataset);
        QCOMPARE(r->outputDir, in.outputDir);
        QCOMPARE(r->host, in.host);
        QCOMPARE(r->versionsJson, in.versionsJson);
        QCOMPARE(r->worldSize, 2);
        QCOMPARE(r->totalSteps, int64_t(500));
        QCOMPARE(r->startedAt, 0.0);
        QCOMPARE(r->lastStep, int64_t(0));

        store.markStarted(id, 4242, 1714566900.5);
        store.setTotalSteps(id, 300);
        r = store.getRun(id);
        QCOMPARE(r->status, RunStatus::Running);
        QCOMPARE(r->pid, int64_t(4242));
        QCOMPARE(r->startedAt, 1714566900.5);
        QCOMPARE(r->totalSteps, int64_t(300));
        store.setPid(id, 4343);
        QCOMPARE(store.getRun(id)->pid, int64_t(4343));
        store.setVersions(id, R"({"fts":"0.1.0","torch":"2.11.0"})");
        QCOMPARE(store.getRun(id)->versionsJson, std::string(R"({"fts":"0.1.0","torch":"2.11.0"})"));

        store.addMetrics(id, {{1, "loss", 3.5, 10.0}, {1, "lr", 1e-4, 10.0}, {2, "loss", 3.25, 11.0}});
        store.addDeviceSamples(
            id, {{1, 10.0, 0, "cuda:0", 100, 200, 150, 1000}, {1, 10.0, 1, "cuda:1", 110, 210, 160, 1000}});
        store.addLogs(id, {{10.0, -1, "info", "started"}, {11.0, 0, "warn", "slow step"}});
        QCOMPARE(store.getRun(id)->lastStep, int64_t(2));

        store.finishRun(id, RunStatus::Completed, 1714570000.0, R"({"loss": 3.25})", "");
        r = store.getRun(id);
        QCOMPARE(r->status, RunStatus::Completed);
        QCOMPARE(r->endedAt, 1714570000.0);
        QCOMPARE(r->finalMetricsJson, std::string(R"({"loss": 3.25})"));
        QCOMPARE(r->failureReason, std::string());
        // started again (a resume): running, without the last session's end
        store.markStarted(id, 4444, 1714580000.0);
        QCOMPARE(store.getRun(id)->endedAt, 0.0);
        QCOMPARE(store.getRun(id)->status, RunStatus::Running);
        store.finishRun(id, RunStatus::Completed, 1714590000.0, R"({"loss": 3.25})", "");

        const auto m = store.metrics(id);
        QCOMPARE(m.size(), size_t(3));
        QCOMPARE(m[0].name, std::string("loss"));
        QCOMPARE(m[1].name, std::string("lr"));
        QCOMPARE(m[1].value, 1e-4);
        QCOMPARE(m[2].step, int64_t(2));
        QCOMPARE(m[2].value, 3.25);
        QCOMPARE(m[2].time, 11.0);
        const auto d = store.deviceSamples(id);
        QCOMPARE(d.size(), size_t(2));
        QCOMPARE(d[1].device, std::string("cuda:1"));
        QCOMPARE(d[1].rank, 1);
        QCOMPARE(d[1].allocated, int64_t(110));
        QCOMPARE(d[1].reserved, int64_t(210));
        QCOMPARE(d[1].peak, int64_t(160));
        QCOMPARE(d[1].capacity, int64_t(1000));
        const auto l = store.logs(id);
        QCOMPARE(l.size(), size_t(2));
        QCOMPARE(l[0].rank, -1);
        QCOMPARE(l[1].level, std::string("warn"));
        QCOMPARE(l[1].message, std::string("slow step"));

        store.setRunName(id, "renamed");
        QCOMPARE(store.getRun(id)->name, std::string("renamed"));
        QVERIFY(!store.getRun(id + 1000).has_value());
    }

    void createRunFillsHostAndCreationTime() {
        RunStore store(file());
        RunRecord r;
        r.name = "defaults";
        const int64_t id = store.createRun(r);
        const auto back = store.getRun(id);
        QCOMPARE(back->host, RunStore::localHostName());
        QVERIFY(!back->host.empty());
        QVERIFY(back->createdAt > 1.6e9);
    }

    void failedRunKeepsReason() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun());
        store.markStarted(id, 1, 5);
        store.finishRun(id, RunStatus::Failed, 9, "", "CUDA out of memory on rank 1");
        const auto r = store.getRun(id);
        QCOMPARE(r->status, RunStatus::Failed);
        QCOMPARE(r->failureReason, std::string("CUDA out of memory on rank 1"));
        QCOMPARE(store.runsWithStatus(RunStatus::Failed).size(), size_t(1));
        QCOMPARE(store.runsWithStatus(RunStatus::Running).size(), size_t(0));
    }

    void updatesOfMissingRunThrow_data() {
        QTest::addColumn<int>("op");
        for (int op = 0; op < 8; ++op) QTest::newRow(std::to_string(op).c_str()) << op;
    }
    void updatesOfMissingRunThrow() {
        QFETCH(int, op);
        RunStore store(file());
        store.createRun(sampleRun());
        const int64_t missing = 987654;
        const std::vector<std::function<void()>> ops = {
            [&] { store.markStarted(missing, 1, 1); },
            [&] { store.setTotalSteps(missing, 5); },
            [&] { store.finishRun(missing, RunStatus::Completed, 2, "{}", ""); },
            [&] { store.setPid(missing, 3); },
            [&] { store.setRunName(missing, "x"); },
            [&] { store.deleteRun(missing); },
            [&] { store.addMetrics(missing, lossPoints(1, 2)); },
            [&] {
                store.addLogs(missing, {{1.0, 0, "info", "x"}});
            },
        };
        const QString msg = storeErrorOf(ops.at(static_cast<size_t>(op)));
        QVERIFY2(!msg.isEmpty(), "expected StoreError");
        QVERIFY2(msg.contains(QString::fromStdString(file().string())), qPrintable(msg));
        // Either our own "no run with id" or SQLite's foreign key failure (inserts).
        QVERIFY2(msg.contains("987654") || msg.contains("FOREIGN KEY"), qPrintable(msg));
        RawDb raw(file());
        QCOMPARE(raw.count("metrics"), 0LL);  // the failed batch was rolled back
        QCOMPARE(raw.count("logs"), 0LL);
    }

    void statusStringsRoundTrip_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("text");
        QTest::newRow("pending") << int(RunStatus::Pending) << "pending";
        QTest::newRow("running") << int(RunStatus::Running) << "running";
        QTest::newRow("completed") << int(RunStatus::Completed) << "completed";
        QTest::newRow("failed") << int(RunStatus::Failed) << "failed";
        QTest::newRow("stopped") << int(RunStatus::Stopped) << "stopped";
    }
    void statusStringsRoundTrip() {
        QFETCH(int, status);
        QFETCH(QString, text);
        const auto s = static_cast<RunStatus>(status);
        QCOMPARE(QString(toString(s)), text);
        QCOMPARE(runStatusFromString(text.toStdString()), s);
        RunStore store(file());
        RunRecord r = sampleRun();
        r.status = s;
        QCOMPARE(store.getRun(store.createRun(r))->status, s);
    }
    void unknownStatusThrows() {
        const QString msg = storeErrorOf([] { runStatusFromString("exploded"); });
        QVERIFY2(msg.contains("exploded"), qPrintable(msg));
    }

    void listRunsNewestFirstWithLimit() {
        RunStore store(file());
        std::vector<int64_t> ids;
        for (int i = 0; i < 5; ++i) ids.push_back(store.createRun(sampleRun("run" + std::to_string(i))));
        const auto all = store.listRuns();
        QCOMPARE(all.size(), size_t(5));
        for (size_t i = 0; i < all.size(); ++i) QCOMPARE(all[i].id, ids[ids.size() - 1 - i]);
        const auto two = store.listRuns(2);
        QCOMPARE(two.size(), size_t(2));
        QCOMPARE(two[0].name, std::string("run4"));
        QCOMPARE(two[1].name, std::string("run3"));
    }

    // ---- incremental reads --------------------------------------------------------------------

    void incrementalMetricReads() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun());
        const int64_t other = store.createRun(sampleRun("other"));
        store.addMetrics(id, lossPoints(1, 10));
        store.addMetrics(id, lossPoints(1, 10, "lr"));
        store.addMetrics(other, lossPoints(1, 50));

        QCOMPARE(store.metrics(id).size(), size_t(20));
        QCOMPARE(store.metrics(id, "loss").size(), size_t(10));
        const auto after = store.metrics(id, "loss", 7);
        QCOMPARE(after.size(), size_t(3));
        QCOMPARE(after[0].step, int64_t(8));
        QCOMPARE(after[2].step, int64_t(10));
        QCOMPARE(after[0].value, 10.0 / 9.0);
        const auto allAfter = store.metrics(id, "", 8);  // both names, ordered by step
        QCOMPARE(allAfter.size(), size_t(4));
        QCOMPARE(allAfter[0].step, int64_t(9));
        QCOMPARE(allAfter[1].step, int64_t(9));
        QCOMPARE(allAfter[3].step, int64_t(10));
        QVERIFY(store.metrics(id, "loss", 10).empty());
        QVERIFY(store.metrics(id, "no_such_metric").empty());

        // Polling by row id never misses a row written late for a step already seen.
        auto first = store.metricsAfterId(id, 0);
        QCOMPARE(first.size(), size_t(20));
        int64_t cursor = first.back().id;
        QVERIFY(store.metricsAfterId(id, cursor).empty());
        store.addMetrics(id, {{10, "eval_loss", 2.0, 50.0}, {11, "loss", 0.9, 51.0}});
        QCOMPARE(store.metrics(id, "", 10).size(), size_t(1));  // afterStep=10 cannot see eval_loss@10
        const auto fresh = store.metricsAfterId(id, cursor);
        QCOMPARE(fresh.size(), size_t(2));
        QCOMPARE(fresh[0].name, std::string("eval_loss"));
        QCOMPARE(fresh[0].step, int64_t(10));
        QCOMPARE(fresh[1].step, int64_t(11));
        QCOMPARE(store.metricsAfterId(id, 0, 5).size(), size_t(5));

        const auto latest = store.latestMetrics(id);
        QCOMPARE(latest.size(), size_t(3));  // eval_loss, loss, lr (sorted)
        QCOMPARE(latest[0].name, std::string("eval_loss"));
        QCOMPARE(latest[1].name, std::string("loss"));
        QCOMPARE(latest[1].step, int64_t(11));
        QCOMPARE(latest[1].value, 0.9);
        QCOMPARE(latest[2].step, int64_t(10));
        QCOMPARE(store.metricNames(id), (std::vector<std::string>{"eval_loss", "loss", "lr"}));
        QCOMPARE(store.getRun(id)->lastStep, int64_t(11));
        QCOMPARE(store.getRun(other)->lastStep, int64_t(50));
    }

    void nonFiniteMetricsAreSkipped() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun());
        const double inf = std::numeric_limits<double>::infinity();
        store.addMetrics(id, {{1, "loss", 2.0, 1.0},
                              {2, "loss", std::nan(""), 2.0},
                              {3, "loss", inf, 3.0},
                              {4, "loss", -inf, 4.0},
                              {5, "loss", 1.5, 5.0}});
        const auto m = store.metrics(id, "loss");
        QCOMPARE(m.size(), size_t(2));
        QCOMPARE(m[0].step, int64_t(1));
        QCOMPARE(m[1].step, int64_t(5));
        for (const auto& p : m) QVERIFY(std::isfinite(p.value));
        store.addMetrics(id, {{6, "loss", std::nan(""), 6.0}});  // all skipped: progress still advances
        QCOMPARE(store.getRun(id)->lastStep, int64_t(6));
        QCOMPARE(store.metrics(id).size(), size_t(2));
    }

    void deviceSampleReads() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun());
        std::vector<DeviceSample> batch;
        for (int step = 1; step <= 4; ++step)
            for (int rank = 0; rank < 2; ++rank)
                batch.push_back({step, 100.0 + step, rank, "cuda:" + std::to_string(rank), step * 10, step * 20,
                                 step * 15, 80LL << 30});
        store.addDeviceSamples(id, batch);
        QCOMPARE(store.deviceSamples(id).size(), size_t(8));
        const auto after = store.deviceSamples(id, 3);
        QCOMPARE(after.size(), size_t(2));
        QCOMPARE(after[0].step, int64_t(4));
        QCOMPARE(after[0].capacity, int64_t(80LL << 30));
        const int64_t cursor = store.deviceSamplesAfterId(id, 0).back().id;
        store.addDeviceSamples(id, {{4, 105.0, 2, "cuda:2", 1, 2, 3, 4}});  // rank 2 reports late
        const auto fresh = store.deviceSamplesAfterId(id, cursor);
        QCOMPARE(fresh.size(), size_t(1));
        QCOMPARE(fresh[0].rank, 2);
        QCOMPARE(fresh[0].device, std::string("cuda:2"));
    }

    void logsAreLatestOldestFirst() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun());
        std::vector<LogLine> lines;
        for (int i = 0; i < 10; ++i) lines.push_back({double(i), i % 3 - 1, "info", "line " + std::to_string(i)});
        store.addLogs(id, lines);
        const auto last3 = store.logs(id, 3);
        QCOMPARE(last3.size(), size_t(3));
        QCOMPARE(last3[0].message, std::string("line 7"));
        QCOMPARE(last3[2].message, std::string("line 9"));
        QCOMPARE(store.logs(id, 0).size(), size_t(10));  // <= 0: all
        QCOMPARE(store.logs(id).size(), size_t(10));
        const auto fresh = store.logsAfterId(id, last3[0].id);
        QCOMPARE(fresh.size(), size_t(2));
        QCOMPARE(fresh[0].message, std::string("line 8"));
        QCOMPARE(store.logsAfterId(id, 0, 4).back().message, std::string("line 3"));
    }

    // ---- concurrency ----------------------------------------------------------------------------

    void readerSeesOnlyCommittedRows() {
        int64_t id = 0;
        {
            RunStore writer(file());
            id = writer.createRun(sampleRun());
        }
        RawDb raw(file());
        RunStore reader(file(), true);
        raw.exec("BEGIN IMMEDIATE");
        raw.exec("INSERT INTO metrics (run_id, step, name, value, time) VALUES (" + std::to_string(id) +
                 ", 1, 'loss', 1.0, 1.0)");
        // The writer holds an open write transaction: the WAL reader neither blocks nor sees the row.
        QCOMPARE(reader.metrics(id).size(), size_t(0));
        raw.exec("COMMIT");
        QCOMPARE(reader.metrics(id).size(), size_t(1));
        // And the reverse: a RunStore writer commits while a raw reader holds a read transaction.
        RunStore writer(file());
        RawDb rawReader(file(), SQLITE_OPEN_READONLY);
        rawReader.exec("BEGIN");
        QCOMPARE(rawReader.count("metrics"), 1LL);
        writer.addMetrics(id, lossPoints(2, 4));    // not blocked by the reader
        QCOMPARE(rawReader.count("metrics"), 1LL);  // snapshot isolation
        rawReader.exec("COMMIT");
        QCOMPARE(rawReader.count("metrics"), 4LL);
        QCOMPARE(reader.metrics(id).size(), size_t(4));
    }

    void concurrentReaderWhileWriterInserts() {
        constexpr int kBatches = 40, kBatch = 250;
        RunStore writer(file());
        const int64_t id = writer.createRun(sampleRun());
        RunStore reader(file(), true);
        std::atomic<bool> done{false};
        std::string writerError;
        std::thread t([&] {
            try {
                for (int b = 0; b < kBatches; ++b) writer.addMetrics(id, lossPoints(b * kBatch, (b + 1) * kBatch - 1));
            } catch (const std::exception& e) {
                writerError = e.what();
            }
            done = true;
        });
        size_t seen = 0, polls = 0;
        bool torn = false, backwards = false;
        for (;;) {
            const bool finished = done.load();
            const size_t n = reader.metricsAfterId(id, 0).size();
            ++polls;
            torn |= n % kBatch != 0;  // each batch is one transaction: never half visible
            backwards |= n < seen;
            seen = n;
            if (finished) break;
        }
        t.join();
        QVERIFY2(writerError.empty(), writerError.c_str());
        QVERIFY(!torn);
        QVERIFY(!backwards);
        QCOMPARE(seen, size_t(kBatches * kBatch));
        QVERIFY(polls >= 1);
        QCOMPARE(reader.getRun(id)->lastStep, int64_t(kBatches * kBatch - 1));
    }

    // ---- orphans, deletion, bulk ----------------------------------------------------------------

    void reapOrphans() {
        RunStore store(file());
        const std::string here = RunStore::localHostName();
        auto startRun = [&](const std::string& name, const std::string& host, int64_t pid) {
            RunRecord r = sampleRun(name);
            r.host = host;
            const int64_t id = store.createRun(r);
            store.markStarted(id, pid, 100.0);
            return id;
        };
        const pid_t dead = deadPid();
        const int64_t orphan = startRun("orphan", here, dead);
        const int64_t alive = startRun("alive", here, getpid());
        const int64_t remote = startRun("remote", "some-other-host.invalid", dead);
        const int64_t noPid = startRun("no pid", here, 0);
        const int64_t finished = startRun("finished", here, dead);
        store.finishRun(finished, RunStatus::Completed, 200.0, "{}", "");

        QCOMPARE(store.reapOrphans(), 1);
        const auto o = store.getRun(orphan);
        QCOMPARE(o->status, RunStatus::Failed);
        QCOMPARE(o->failureReason, "supervisor process " + std::to_string(dead) + " vanished");
        QVERIFY(o->endedAt > 100.0);
        QCOMPARE(store.getRun(alive)->status, RunStatus::Running);
        QCOMPARE(store.getRun(remote)->status, RunStatus::Running);
        QCOMPARE(store.getRun(noPid)->status, RunStatus::Running);
        QCOMPARE(store.getRun(finished)->status, RunStatus::Completed);
        QCOMPARE(store.getRun(finished)->endedAt, 200.0);
        QCOMPARE(store.reapOrphans(), 0);  // idempotent
    }

    void deleteCascades() {
        RunStore store(file());
        const int64_t keep = store.createRun(sampleRun("keep"));
        const int64_t gone = store.createRun(sampleRun("gone"));
        for (int64_t id : {keep, gone}) {
            store.addMetrics(id, lossPoints(1, 20));
            store.addDeviceSamples(id, {{1, 1.0, 0, "cpu", 1, 1, 1, 1}});
            store.addLogs(id, {{1.0, 0, "info", "hello"}, {2.0, 0, "info", "bye"}});
        }
        store.markStarted(gone, getpid(), 1.0);
        const QString msg = storeErrorOf([&] { store.deleteRun(gone); });
        QVERIFY2(msg.contains("running"), qPrintable(msg));
        QVERIFY(store.getRun(gone).has_value());

        store.deleteRun(gone, true);
        QVERIFY(!store.getRun(gone).has_value());
        QVERIFY(store.metrics(gone).empty());
        QVERIFY(store.deviceSamples(gone).empty());
        QVERIFY(store.logs(gone).empty());
        RawDb raw(file());
        QCOMPARE(raw.count("metrics"), 20LL);
        QCOMPARE(raw.count("device_samples"), 1LL);
        QCOMPARE(raw.count("logs"), 2LL);
        QCOMPARE(raw.scalar("SELECT count(*) FROM metrics WHERE run_id = " + std::to_string(keep)), std::string("20"));
        store.deleteRun(keep);  // not running: no force needed
        QCOMPARE(raw.count("metrics"), 0LL);
        QCOMPARE(raw.count("runs"), 0LL);
    }

    void bulkInsertOfTenThousandMetrics() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun());
        std::vector<MetricPoint> pts;
        for (int64_t s = 0; s < 5000; ++s) {
            pts.push_back({s, "loss", 1.0 + static_cast<double>(s) * 1e-3, 1e9 + static_cast<double>(s)});
            pts.push_back({s, "grad_norm", static_cast<double>(s % 97), 1e9 + static_cast<double>(s)});
        }
        store.addMetrics(id, pts);
        const auto loss = store.metrics(id, "loss");
        const auto norm = store.metrics(id, "grad_norm");
        QCOMPARE(loss.size(), size_t(5000));
        QCOMPARE(norm.size(), size_t(5000));
        for (int64_t s = 0; s < 5000; ++s) {
            QCOMPARE(loss[size_t(s)].step, s);
            QCOMPARE(loss[size_t(s)].value, 1.0 + static_cast<double>(s) * 1e-3);
            QCOMPARE(norm[size_t(s)].value, static_cast<double>(s % 97));
        }
        QCOMPARE(store.metrics(id).size(), size_t(10000));
        QCOMPARE(store.getRun(id)->lastStep, int64_t(4999));
    }

    void storedRunToJson() {
        RunStore store(file());
        const int64_t id = store.createRun(sampleRun("json"));
        store.markStarted(id, 77, 1714566900.0);
        store.finishRun(id, RunStatus::Completed, 1714570500.0, R"({"loss": 1.25})", "");
        const nlohmann::json j = runToJson(*store.getRun(id));
        QCOMPARE(j.at("id").get<int64_t>(), id);
        QCOMPARE(j.at("status").get<std::string>(), std::string("completed"));
        QCOMPARE(j.at("config").at("zero_optimization").at("stage").get<int>(), 2);
        QCOMPARE(j.at("started_at").get<std::string>(), std::string("2024-05-01T12:35:00Z"));
        QCOMPARE(j.at("duration_s").get<double>(), 3600.0);
        QCOMPARE(j.at("final_metrics").at("loss").get<double>(), 1.25);
    }
};

QTEST_APPLESS_MAIN(TestRunStore)
#include "test_run_store.moc"
