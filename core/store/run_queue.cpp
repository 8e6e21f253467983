// The queue table's reads and writes, on the run store's connection.
#include "core/store/run_queue.h"

#include <algorithm>
#include <mutex>

#include "core/store/run_store.h"
#include "core/store/sqlite_statement.h"
#include "core/util/wall_clock.h"

namespace fts {
using namespace store_sql;

namespace {

constexpr const char* kQueueColumns =
    "id, position, name, config_json, config_path, devices, status, run_id, reason, sweep, sweep_values, created_at, "
    "started_at, ended_at, pid, resume, cancel_requested, submission";

QueueEntry readEntry(const Statement& st) {
    QueueEntry e;
    e.id = st.int64(0);
    e.position = st.real(1);
    e.name = st.text(2);
    e.configJson = st.text(3);
    e.configPath = st.text(4);
    e.devices = st.text(5);
    e.status = queueStatusFromString(st.text(6));
    e.runId = st.int64(7);
    e.reason = st.text(8);
    e.sweep = st.text(9);
    e.sweepValues = st.text(10);
    e.createdAt = st.real(11);
    e.startedAt = st.real(12);
    e.endedAt = st.real(13);
    e.pid = st.int64(14);
    e.resume = st.int64(15) != 0;
    e.cancelRequested = st.int64(16) != 0;
    e.submission = st.int64(17) > 0 ? st.int64(17) : e.id;  // entries queued before schema 7: each its own
    return e;
}

}  // namespace

const char* toString(QueueStatus s) {
    switch (s) {
        case QueueStatus::Waiting:
            return "waiting";
        case QueueStatus::Running:
            return "running";
        case QueueStatus::Done:
            return "done";
        case QueueStatus::Failed:
            return "failed";
        case QueueStatus::Cancelled:
            return "cancelled";
    }
    return "waiting";
}

QueueStatus queueStatusFromString(const std::string& s) {
    if (s == "running") return QueueStatus::Running;
    if (s == "done") return QueueStatus::Done;
    if (s == "failed") return QueueStatus::Failed;
    if (s == "cancelled") return QueueStatus::Cancelled;
    return QueueStatus::Waiting;
}

int64_t RunQueue::add(QueueEntry e) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("queue a run");
    Transaction tx(m_store.m_db, m_store.m_path, "queue a run");
    double last = 0;
    {
        Statement st(m_store.m_db, m_store.m_path, "SELECT coalesce(max(position), 0) FROM queue", "queue position");
        if (st.step()) last = st.real(0);
    }
    Statement st(m_store.m_db, m_store.m_path,
                 "INSERT INTO queue (position, name, config_json, config_path, devices, status, sweep, sweep_values, "
                 "created_at, submission) VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?, ?, ?)",
                 "queue a run");
    st.bind(1, last + 1)
        .bind(2, e.name)
        .bind(3, e.configJson)
        .bind(4, e.configPath)
        .bind(5, e.devices)
        .bind(6, e.sweep)
        .bind(7, e.sweepValues)
        .bind(8, e.createdAt > 0 ? e.createdAt : unixNow())
        .bind(9, e.submission);
    st.run();
    const int64_t id = sqlite3_last_insert_rowid(m_store.m_db);
    if (e.submission <= 0) {
        Statement own(m_store.m_db, m_store.m_path, "UPDATE queue SET submission = id WHERE id = ?", "queue a run");
        own.bind(1, id).run();
    }
    tx.commit();
    return id;
}

std::vector<QueueEntry> RunQueue::list() const {
    std::lock_guard lock(m_store.m_mutex);
    Statement st(m_store.m_db, m_store.m_path,
                 std::string("SELECT ") + kQueueColumns +
                     " FROM queue ORDER BY CASE status WHEN 'running' THEN 0 WHEN 'waiting' THEN 0 ELSE 1 END, "
                     "CASE WHEN status IN ('running', 'waiting') THEN position ELSE -ended_at END, id",
                 "list the queue");
    std::vector<QueueEntry> out;
    while (st.step()) out.push_back(readEntry(st));
    return out;
}

std::optional<QueueEntry> RunQueue::get(int64_t id) const {
    std::lock_guard lock(m_store.m_mutex);
    Statement st(m_store.m_db, m_store.m_path, std::string("SELECT ") + kQueueColumns + " FROM queue WHERE id = ?",
                 "read queue entry " + std::to_string(id));
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return readEntry(st);
}

void RunQueue::move(int64_t id, int index) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("reorder the queue");
    Transaction tx(m_store.m_db, m_store.m_path, "reorder the queue");
    std::vector<int64_t> waiting;
    {
        Statement st(m_store.m_db, m_store.m_path,
                     "SELECT id FROM queue WHERE status = 'waiting' ORDER BY position, id", "reorder the queue");
        while (st.step()) waiting.push_back(st.int64(0));
    }
    const auto at = std::find(waiting.begin(), waiting.end(), id);
    if (at == waiting.end())
        throw StoreError("run store " + m_store.m_path.string() + ": queue entry " + std::to_string(id) +
                         " is not waiting (only waiting entries can be moved)");
    waiting.erase(at);
    waiting.insert(waiting.begin() + std::clamp<int64_t>(index, 0, int64_t(waiting.size())), id);
    double first = 0;  // the waiting entries keep the places after every running one
    {
        Statement st(m_store.m_db, m_store.m_path,
                     "SELECT coalesce(min(position), 1) FROM queue WHERE status = 'waiting'", "reorder the queue");
        if (st.step()) first = st.real(0);
    }
    Statement upd(m_store.m_db, m_store.m_path, "UPDATE queue SET position = ? WHERE id = ?", "reorder the queue");
    for (size_t i = 0; i < waiting.size(); ++i) {
        upd.bind(1, first + double(i)).bind(2, waiting[i]).run();
        upd.reset();
    }
    tx.commit();
}

bool RunQueue::cancel(int64_t id) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("cancel a queued run");
    Statement w(m_store.m_db, m_store.m_path,
                "UPDATE queue SET status = 'cancelled', ended_at = ?, reason = 'cancelled before it started' "
                "WHERE id = ? AND status = 'waiting'",
                "cancel a queued run");
    w.bind(1, unixNow()).bind(2, id).run();
    if (sqlite3_changes(m_store.m_db) > 0) return true;
    Statement r(m_store.m_db, m_store.m_path,
                "UPDATE queue SET cancel_requested = 1 WHERE id = ? AND status = 'running'", "cancel a running run");
    r.bind(1, id).run();
    return sqlite3_changes(m_store.m_db) > 0;
}

void RunQueue::remove(int64_t id) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("remove a queue entry");
    Statement st(m_store.m_db, m_store.m_path,
                 "DELETE FROM queue WHERE id = ? AND status IN ('done', 'failed', 'cancelled')",
                 "remove a queue entry");
    st.bind(1, id).run();
    if (sqlite3_changes(m_store.m_db) == 0)
        throw StoreError("run store " + m_store.m_path.string() + ": queue entry " + std::to_string(id) +
                         " is not finished (cancel it first) or does not exist");
}

int RunQueue::clearFinished() {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("clear the finished queue entries");
    execSql(m_store.m_db, m_store.m_path, "DELETE FROM queue WHERE status IN ('done', 'failed', 'cancelled')",
            "clear the finished queue entries");
    return sqlite3_changes(m_store.m_db);
}

void RunQueue::markRunning(int64_t id, int64_t pid) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("start a queued run");
    Statement st(m_store.m_db, m_store.m_path,
                 "UPDATE queue SET status = 'running', pid = ?, started_at = ?, reason = '' WHERE id = ?",
                 "start queued run " + std::to_string(id));
    st.bind(1, pid).bind(2, unixNow()).bind(3, id).run();
    m_store.requireOneChange("start a queued run", id);
}

void RunQueue::setRun(int64_t id, int64_t runId) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("record a queued run's run");
    Statement st(m_store.m_db, m_store.m_path, "UPDATE queue SET run_id = ? WHERE id = ?",
                 "record the run of queue entry " + std::to_string(id));
    st.bind(1, runId).bind(2, id).run();
}

void RunQueue::setReason(int64_t id, const std::string& reason) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("say why a queued run waits");
    Statement st(m_store.m_db, m_store.m_path, "UPDATE queue SET reason = ? WHERE id = ? AND reason != ?",
                 "say why queue entry " + std::to_string(id) + " waits");
    st.bind(1, reason).bind(2, id).bind(3, reason).run();
}

void RunQueue::finish(int64_t id, QueueStatus status, const std::string& reason) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("end a queued run");
    Statement st(m_store.m_db, m_store.m_path,
                 "UPDATE queue SET status = ?, reason = ?, ended_at = ?, pid = 0, resume = 0 WHERE id = ?",
                 "end queue entry " + std::to_string(id));
    st.bind(1, toString(status)).bind(2, reason).bind(3, unixNow()).bind(4, id).run();
}

void RunQueue::requeue(int64_t id, const std::string& reason) {
    std::lock_guard lock(m_store.m_mutex);
    m_store.requireWritable("requeue an interrupted run");
    Statement st(m_store.m_db, m_store.m_path,
                 "UPDATE queue SET status = 'waiting', reason = ?, pid = 0, resume = 1 WHERE id = ?",
                 "requeue queue entry " + std::to_string(id));
    st.bind(1, reason).bind(2, id).run();
}

}  // namespace fts
