// The store under a writer killed at random moments (as a supervisor can be, by kill -9, an OOM or a power
// button on the terminal): 100 times a child process writes batches of metrics, each batch one transaction, while
// this process polls as the studio does (its connection closed before the kill); the child is SIGKILLed at a random moment. After every kill: the reader
// never saw an error, PRAGMA integrity_check is "ok", and every batch the writer had committed is there whole
// (a batch is all its rows or none), so no committed row is lost and no torn transaction is visible.
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <optional>
#include <set>

#include "core/store/run_store.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;
using namespace fts;

namespace {

constexpr int kBatch = 50;

// The child: writes batch after batch from `firstBatch` on, reporting each committed batch number on `fd`.
[[noreturn]] void writeForever(const fs::path& store, int64_t runId, int64_t firstBatch, int fd) {
    try {
        RunStore w(store);
        for (int64_t b = firstBatch;; ++b) {
            std::vector<MetricPoint> points;
            for (int i = 0; i < kBatch; ++i) points.push_back({b * kBatch + i, "loss", double(i), 1.0 + double(b), 0});
            w.addMetrics(runId, points);
            if (::write(fd, &b, sizeof b) != sizeof b) ::_exit(4);
        }
    } catch (...) {
        ::_exit(3);
    }
}

// The first column of the first row of `sql`, as text, on a fresh read-only connection.
std::string queryText(const fs::path& store, const char* sql) {
    sqlite3* db = nullptr;
    std::string result = "cannot open";
    if (sqlite3_open_v2(store.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            result = sqlite3_column_type(st, 0) == SQLITE_NULL
                         ? "null"
                         : reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        else
            result = sqlite3_errmsg(db);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return result;
}

}  // namespace

class TestStoreKill : public QObject {
    Q_OBJECT
private slots:
    void killedWriterLosesNoCommittedRow() {
        QTemporaryDir tmp;
        const fs::path path = fs::path(tmp.path().toStdString()) / "runs.sqlite";
        int64_t runId = 0;
        {
            RunStore s(path);
            RunRecord r;
            r.name = "killed";
            runId = s.createRun(r);
        }
        std::mt19937 rng(20261125);
        int64_t nextBatch = 0, afterId = 0;  // the reader keeps its position across rounds, as the studio's poller does
        long reads = 0, kills = 0;
        for (int round = 0; round < 100; ++round) {
            int pipeFd[2];
            QVERIFY(::pipe2(pipeFd, O_CLOEXEC) == 0);
            const pid_t pid = ::fork();
            QVERIFY(pid >= 0);
            if (pid == 0) {
                ::close(pipeFd[0]);
                writeForever(path, runId, nextBatch, pipeFd[1]);
            }
            ::close(pipeFd[1]);
            // Opened after the fork and closed before the next one: SQLite's per-process lock bookkeeping must not
            // be copied into a child (sqlite.org/howtocorrupt.html, section 2.6).
            std::optional<RunStore> reader;
            while (!reader) {
                try {
                    reader.emplace(path, /*readOnly=*/true);
                } catch (const std::exception& e) {
                    QFAIL(qPrintable(QStringLiteral("the reader could not open the store in round %1: %2")
                                         .arg(round)
                                         .arg(e.what())));
                }
            }
            // The moment of the kill (1-20 ms in: opening the store, mid-batch, between batches), spent polling.
            const auto killAt = std::chrono::steady_clock::now() + std::chrono::microseconds(1000 + rng() % 19000);
            while (std::chrono::steady_clock::now() < killAt) {
                try {
                    const auto rows = reader->metricsAfterId(runId, afterId);
                    if (!rows.empty()) afterId = rows.back().id;
                    ++reads;
                } catch (const std::exception& e) {
                    QFAIL(qPrintable(QStringLiteral("the reader failed in round %1: %2").arg(round).arg(e.what())));
                }
            }
            reader.reset();
            QCOMPARE(::kill(pid, SIGKILL), 0);
            int status = 0;
            QCOMPARE(::waitpid(pid, &status, 0), pid);
            QVERIFY2(WIFSIGNALED(status),
                     qPrintable(QStringLiteral("the writer ended on its own: status %1").arg(status)));
            ++kills;
            int64_t committed = nextBatch - 1, b = 0;
            while (::read(pipeFd[0], &b, sizeof b) == sizeof b) committed = b;
            ::close(pipeFd[0]);

            QCOMPARE(queryText(path, "PRAGMA integrity_check"), std::string("ok"));
            const int64_t rows = std::stoll(queryText(path, "SELECT COUNT(*) FROM metrics"));
            const int64_t distinct = std::stoll(queryText(path, "SELECT COUNT(DISTINCT step) FROM metrics"));
            const std::string maxStep = queryText(path, "SELECT MAX(step) FROM metrics");
            QVERIFY2(rows % kBatch == 0,
                     qPrintable(QStringLiteral("round %1: %2 rows, a torn batch").arg(round).arg(rows)));
            const int64_t batches = rows / kBatch;
            QVERIFY2(batches >= committed + 1,
                     qPrintable(QStringLiteral("round %1: batch %2 was committed, %3 batches stored")
                                    .arg(round)
                                    .arg(committed)
                                    .arg(batches)));
            QCOMPARE(distinct, rows);  // steps 0..rows-1, each once
            QCOMPARE(maxStep, rows == 0 ? std::string("null") : std::to_string(rows - 1));
            nextBatch = batches;
        }
        qInfo("%ld kills, %ld reads, %lld batches of %d rows committed", kills, reads,
              static_cast<long long>(nextBatch), kBatch);
        QVERIFY(nextBatch > 0);
    }
};

QTEST_APPLESS_MAIN(TestStoreKill)
#include "test_store_kill.moc"
