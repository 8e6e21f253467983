// The run store on SQLite's C API: WAL journal, schema versioned by PRAGMA user_version and brought
// up to date by an ordered list of migrations. Every sqlite3 call is checked; a failure throws
// StoreError naming the store file, the operation and sqlite3_errmsg.
#include "core/store/run_store.h"

#include "core/store/sqlite_statement.h"
#include "core/store/store_tables.h"

#include "core/util/process.h"
#include "core/util/wall_clock.h"

#include "core/util/error.h"
#include "core/util/owner_only.h"

#include <sqlite3.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <pwd.h>
#include <signal.h>
#include <source_location>
#include <string_view>
#include <sys/types.h>
#include <unistd.h>

namespace fts {
namespace fs = std::filesystem;
using namespace store_sql;

// ---------------------------------------------------------------------------------------------
// Schema. Migration N takes a store from user_version N-1 to N and runs in one transaction
// together with the version bump. Append new migrations at the end; never edit a shipped one.
namespace {

struct Migration {
    int version;
    const char* description;
    const char* sql;
};

constexpr std::array kMigrations = {
    Migration{1, "create runs, metrics, device_samples and logs", R"sql(
CREATE TABLE runs (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    name               TEXT    NOT NULL DEFAULT '',
    status             TEXT    NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'running', 'completed', 'failed', 'stopped')),
    created_at         REAL    NOT NULL DEFAULT 0,
    started_at         REAL    NOT NULL DEFAULT 0,
    ended_at           REAL    NOT NULL DEFAULT 0,
    config_json        TEXT    NOT NULL DEFAULT '',
    config_path        TEXT    NOT NULL DEFAULT '',
    model              TEXT    NOT NULL DEFAULT '',
    dataset            TEXT    NOT NULL DEFAULT '',
    output_dir         TEXT    NOT NULL DEFAULT '',
    host               TEXT    NOT NULL DEFAULT '',
    versions_json      TEXT    NOT NULL DEFAULT '',
    final_metrics_json TEXT    NOT NULL DEFAULT '',
    failure_reason     TEXT    NOT NULL DEFAULT '',
    pid                INTEGER NOT NULL DEFAULT 0,
    world_size         INTEGER NOT NULL DEFAULT 1,
    total_steps        INTEGER NOT NULL DEFAULT 0,
    last_step          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE metrics (
    id     INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step   INTEGER NOT NULL,
    name   TEXT    NOT NULL,
    value  REAL    NOT NULL,
    time   REAL    NOT NULL
);
CREATE INDEX metrics_by_run_name_step ON metrics (run_id, name, step);

CREATE TABLE device_samples (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step      INTEGER NOT NULL,
    time      REAL    NOT NULL,
    rank      INTEGER NOT NULL,
    device    TEXT    NOT NULL,
    allocated INTEGER NOT NULL,
    reserved  INTEGER NOT NULL,
    peak      INTEGER NOT NULL,
    capacity  INTEGER NOT NULL
);
CREATE INDEX device_samples_by_run_step ON device_samples (run_id, step);

CREATE TABLE logs (
    id      INTEGER PRIMARY KEY,
    run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    time    REAL    NOT NULL,
    rank    INTEGER NOT NULL,
    level   TEXT    NOT NULL,
    message TEXT    NOT NULL
);
CREATE INDEX logs_by_run_id ON logs (run_id, id);
)sql"},
    Migration{2, "add the user's notes and tags to runs", R"sql(
ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN tags  TEXT NOT NULL DEFAULT '';
)sql"},
    Migration{3, "multi-host runs: the run's hosts and the host of each device sample", R"sql(
ALTER TABLE runs ADD COLUMN hosts_json TEXT NOT NULL DEFAULT '';
ALTER TABLE device_samples ADD COLUMN host TEXT NOT NULL DEFAULT '';
)sql"},
    Migration{4, "the resolved config of each run (every default and \"auto\" filled in)", R"sql(
ALTER TABLE runs ADD COLUMN resolved_config_json TEXT NOT NULL DEFAULT '';
)sql"},
    Migration{5, "texts generated from the weights during training (training.sample_prompts)", R"sql(
CREATE TABLE IF NOT EXISTS samples (
    id      INTEGER PRIMARY KEY,
    run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step    INTEGER NOT NULL,
    time    REAL    NOT NULL,
    idx     INTEGER NOT NULL,
    prompt  TEXT    NOT NULL,
    text    TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS samples_by_run_id ON samples (run_id, id);
)sql"},
    Migration{6, "the run queue: configs waiting for their devices, and the sweeps they come from", R"sql(
CREATE TABLE IF NOT EXISTS queue (
    id               INTEGER PRIMARY KEY,
    position         REAL    NOT NULL,
    name             TEXT    NOT NULL,
    config_json      TEXT    NOT NULL,
    config_path      TEXT    NOT NULL DEFAULT '',
    devices          TEXT    NOT NULL DEFAULT 'auto',
    status           TEXT    NOT NULL DEFAULT 'waiting',
    run_id           INTEGER NOT NULL DEFAULT 0,
    reason           TEXT    NOT NULL DEFAULT '',
    sweep            TEXT    NOT NULL DEFAULT '',
    sweep_values     TEXT    NOT NULL DEFAULT '',
    created_at       REAL    NOT NULL,
    started_at       REAL    NOT NULL DEFAULT 0,
    ended_at         REAL    NOT NULL DEFAULT 0,
    pid              INTEGER NOT NULL DEFAULT 0,
    resume           INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS queue_by_status ON queue (status, position);
)sql"},
    Migration{7, "the submission each queue entry came in with (a sweep queued twice is two sweeps)", R"sql(
ALTER TABLE queue ADD COLUMN submission INTEGER NOT NULL DEFAULT 0;
UPDATE queue SET submission = CASE WHEN sweep = '' THEN id
                                   ELSE (SELECT min(o.id) FROM queue AS o WHERE o.sweep = queue.sweep) END;
)sql"},
};
static_assert(kMigrations.size() == RunStore::kSchemaVersion, "kSchemaVersion must equal the number of migrations");

int readUserVersion(sqlite3* db, const fs::path& file) {
    Statement st(db, file, "PRAGMA user_version", "read the schema version (PRAGMA user_version)");
    return st.step() ? static_cast<int>(st.int64(0)) : 0;
}

}  // namespace

std::vector<std::string> store_sql::splitTags(const std::string& joined) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < joined.size()) {
        size_t end = joined.find(',', start);
        if (end == std::string::npos) end = joined.size();
        if (end > start) out.push_back(joined.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

namespace {

int64_t sqlLimit(int limit) { return limit > 0 ? limit : -1; }  // LIMIT -1: no limit

constexpr int kBusyTimeoutMs = 5000;  // how long a call waits for another connection's lock

bool isMemoryPath(const fs::path& p) { return p.native() == ":memory:"; }

}  // namespace

// ---------------------------------------------------------------------------------------------

const char* toString(RunStatus s) {
    switch (s) {
        case RunStatus::Pending:
            return "pending";
        case RunStatus::Running:
            return "running";
        case RunStatus::Completed:
            return "completed";
        case RunStatus::Failed:
            return "failed";
        case RunStatus::Stopped:
            return "stopped";
    }
    return "unknown";
}

RunStatus runStatusFromString(const std::string& s) {
    for (RunStatus st :
         {RunStatus::Pending, RunStatus::Running, RunStatus::Completed, RunStatus::Failed, RunStatus::Stopped}) {
        if (s == toString(st)) return st;
    }
    throw StoreError("unknown run status '" + s + "' (expected pending, running, completed, failed or stopped)");
}

RunStore::RunStore(const fs::path& file, bool readOnly) : m_path(file), m_readOnly(readOnly) {
    try {
        openAndMigrate();
    } catch (...) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw;
    }
}

RunStore::~RunStore() { sqlite3_close_v2(m_db); }

fs::path RunStore::defaultPath() {
    fs::path base;
    // XDG Base Directory spec: relative values are invalid and must be ignored.
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg && fs::path(xdg).is_absolute()) {
        base = xdg;
    } else {
        const char* home = std::getenv("HOME");
        if (!home || !*home) {
            const passwd* pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : nullptr;
        }
        if (!home || !*home)
            throw StoreError(
                "cannot find the run store's default folder: neither XDG_DATA_HOME nor HOME is set "
                "and the user has no home directory in the password database");
        base = fs::path(home) / ".local" / "share";
    }
    return base / "finetune-studio" / "runs.sqlite";
}

std::string RunStore::localHostName() {
    char buf[HOST_NAME_MAX + 1] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

void RunStore::openAndMigrate() {
    const bool memory = isMemoryPath(m_path);
    if (memory && m_readOnly) throw StoreError("run store :memory: cannot be opened read-only (it would be empty)");
    if (m_readOnly) {
        std::error_code ec;
        if (!fs::exists(m_path, ec))
            throw StoreError("run store " + m_path.string() +
                             " does not exist (cannot open it read-only; no run "
                             "has been recorded there yet)");
    } else if (!memory) {
        // The store holds configs, metrics and sample texts: a new store (and a folder made for it) is the owner's only.
        try {
            if (m_path.has_parent_path()) createOwnerOnlyDirectory(m_path.parent_path());
            createOwnerOnlyFileIfMissing(m_path);
        } catch (const IoError& e) {
            throw StoreError("run store " + m_path.string() + ": " + e.what());
        }
    }

    const int flags = m_readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    checkOk(sqlite3_open_v2(m_path.c_str(), &m_db, flags, nullptr), m_db, m_path, "open");
    sqlite3_extended_result_codes(m_db, 1);
    checkOk(sqlite3_busy_timeout(m_db, kBusyTimeoutMs), m_db, m_path, "set busy timeout");

    // The first read: a file that is not an SQLite database fails here (SQLITE_NOTADB).
    const int version = readUserVersion(m_db, m_path);
    if (version > kSchemaVersion)
        throw StoreError("run store " + m_path.string() + " has schema version " + std::to_string(version) +
                         ", newer than the version " + std::to_string(kSchemaVersion) +
                         " this build of Finetune Studio knows; it was written by a newer release (upgrade "
                         "Finetune Studio, or point it at another store)");
    if (m_readOnly && version < kSchemaVersion)
        throw StoreError("run store " + m_path.string() + " has schema version " + std::to_string(version) +
                         ", older than the version " + std::to_string(kSchemaVersion) +
                         " this build needs, and it was opened read-only so it cannot be migrated (open it "
                         "once read-write, e.g. by starting a run)");

    execSql(m_db, m_path, "PRAGMA foreign_keys = ON", "enable foreign keys");
    if (m_readOnly) return;

    if (!memory) {
        // Changing the journal mode needs an exclusive lock and SQLite does not call the busy handler
        // for it, so concurrent first opens (two processes creating the store) retry here, for as long
        // as busy_timeout would have waited.
        Statement wal(m_db, m_path, "PRAGMA journal_mode = WAL", "switch to WAL journal mode");
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
        std::optional<bool> row;
        for (int attempt = 0; !(row = wal.tryStep()); ++attempt) {
            if (std::chrono::steady_clock::now() > deadline)
                throw StoreError("run store " + m_path.string() +
                                 ": switch to WAL journal mode failed: the "
                                 "database stayed locked for " +
                                 std::to_string(kBusyTimeoutMs) + " ms");
            sqlite3_sleep(std::min(1 << std::min(attempt, 6), 50));  // 1, 2, 4 ... 50 ms
        }
        const std::string mode = *row ? wal.text(0) : std::string();
        if (mode != "wal")
            throw StoreError("run store " + m_path.string() + ": cannot switch to WAL journal mode (SQLite kept '" +
                             mode + "'); the store needs a local file system with shared-memory support");
    }
    execSql(m_db, m_path, "PRAGMA synchronous = NORMAL", "set synchronous = NORMAL");
    migrate();
}

void RunStore::migrate() {
    for (const Migration& m : kMigrations) {
        if (readUserVersion(m_db, m_path) >= m.version) continue;
        const std::string what =
            "migration to schema version " + std::to_string(m.version) + " (" + m.description + ")";
        Transaction tx(m_db, m_path, what);
        // Another process may have migrated between our check and taking the write lock.
        if (readUserVersion(m_db, m_path) >= m.version) continue;
        execSql(m_db, m_path, m.sql, what);
        execSql(m_db, m_path, ("PRAGMA user_version = " + std::to_string(m.version)).c_str(),
                "set schema version for " + what);
        tx.commit();
    }
}

int RunStore::schemaVersion() const {
    std::lock_guard lock(m_mutex);
    return readUserVersion(m_db, m_path);
}

void RunStore::requireWritable(const char* operation) const {
    if (m_readOnly)
        throw StoreError("run store " + m_path.string() + ": cannot " + operation + ": the store was opened read-only");
}

void RunStore::requireOneChange(const char* operation, int64_t id) const {
    if (sqlite3_changes(m_db) != 1)
        throw StoreError("run store " + m_path.string() + ": cannot " + operation + ": there is no run with id " +
                         std::to_string(id));
}

// ---------------------------------------------------------------------------------------------
// Run rows

int64_t RunStore::createRun(const RunRecord& run) {
    std::lock_guard lock(m_mutex);
    requireWritable("create a run");
    Statement st(m_db, m_path, runsTable().insertSql(), "insert a run");
    runsTable().bindInsert(st, run);
    st.run();
    return sqlite3_last_insert_rowid(m_db);
}

void RunStore::markStarted(int64_t id, int64_t pid, double time) {
    std::lock_guard lock(m_mutex);
    requireWritable("mark a run started");
    // a resumed run runs again: its last session's end goes (its final metrics stay until it ends, as the earlier
    // sessions' training time; readers take them from an ended run only)
    Statement st(m_db, m_path, "UPDATE runs SET status = 'running', pid = ?, started_at = ?, ended_at = 0 WHERE id = ?",
                 "mark run " + std::to_string(id) + " started");
    st.bind(1, pid).bind(2, time).bind(3, id).run();
    requireOneChange("mark a run started", id);
}

void RunStore::setTotalSteps(int64_t id, int64_t totalSteps) {
    std::lock_guard lock(m_mutex);
    requireWritable("set a run's total steps");
    Statement st(m_db, m_path, "UPDATE runs SET total_steps = ? WHERE id = ?",
                 "set total steps of run " + std::to_string(id));
    st.bind(1, totalSteps).bind(2, id).run();
    requireOneChange("set a run's total steps", id);
}

void RunStore::setVersions(int64_t id, const std::string& versionsJson) {
    std::lock_guard lock(m_mutex);
    requireWritable("set a run's versions");
    Statement st(m_db, m_path, "UPDATE runs SET versions_json = ? WHERE id = ?",
                 "set versions of run " + std::to_string(id));
    st.bind(1, versionsJson).bind(2, id).run();
    requireOneChange("set a run's versions", id);
}

void RunStore::finishRun(int64_t id, RunStatus status, double time, const std::string& finalMetricsJson,
                         const std::string& failureReason) {
    std::lock_guard lock(m_mutex);
    requireWritable("finish a run");
    Statement st(m_db, m_path,
                 "UPDATE runs SET status = ?, ended_at = ?, final_metrics_json = ?, failure_reason = ? WHERE id = ?",
                 "finish run " + std::to_string(id));
    st.bind(1, toString(status)).bind(2, time).bind(3, finalMetricsJson).bind(4, failureReason).bind(5, id).run();
    requireOneChange("finish a run", id);
}

void RunStore::setPid(int64_t id, int64_t pid) {
    std::lock_guard lock(m_mutex);
    requireWritable("set a run's pid");
    Statement st(m_db, m_path, "UPDATE runs SET pid = ? WHERE id = ?", "set pid of run " + std::to_string(id));
    st.bind(1, pid).bind(2, id).run();
    requireOneChange("set a run's pid", id);
}

void RunStore::setRunName(int64_t id, const std::string& name) {
    std::lock_guard lock(m_mutex);
    requireWritable("rename a run");
    Statement st(m_db, m_path, "UPDATE runs SET name = ? WHERE id = ?", "rename run " + std::to_string(id));
    st.bind(1, name).bind(2, id).run();
    requireOneChange("rename a run", id);
}

void RunStore::setRunNotes(int64_t id, const std::string& notes) {
    std::lock_guard lock(m_mutex);
    requireWritable("set the notes of a run");
    Statement st(m_db, m_path, "UPDATE runs SET notes = ? WHERE id = ?", "set notes of run " + std::to_string(id));
    st.bind(1, notes).bind(2, id).run();
    requireOneChange("set the notes of a run", id);
}

void RunStore::setRunTags(int64_t id, const std::vector<std::string>& tags) {
    std::vector<std::string> clean;
    for (const std::string& t : tags) {
        const size_t b = t.find_first_not_of(" \t");
        if (b == std::string::npos) continue;
        const std::string trimmed = t.substr(b, t.find_last_not_of(" \t") - b + 1);
        if (trimmed.find_first_of(",\n\r") != std::string::npos)
            throw StoreError("run store " + m_path.string() + ": cannot tag run " + std::to_string(id) + " with \"" +
                             trimmed + "\": a tag cannot contain a comma or a line break");
        clean.push_back(trimmed);
    }
    std::sort(clean.begin(), clean.end());
    clean.erase(std::unique(clean.begin(), clean.end()), clean.end());
    std::string joined;
    for (const std::string& t : clean) joined += (joined.empty() ? "" : ",") + t;
    std::lock_guard lock(m_mutex);
    requireWritable("set the tags of a run");
    Statement st(m_db, m_path, "UPDATE runs SET tags = ? WHERE id = ?", "set tags of run " + std::to_string(id));
    st.bind(1, joined).bind(2, id).run();
    requireOneChange("set the tags of a run", id);
}

void RunStore::deleteRun(int64_t id, bool force) {
    std::lock_guard lock(m_mutex);
    requireWritable("delete a run");
    const std::string what = "delete run " + std::to_string(id);
    Transaction tx(m_db, m_path, what);
    Statement status(m_db, m_path, "SELECT status FROM runs WHERE id = ?", "read status of run " + std::to_string(id));
    status.bind(1, id);
    if (!status.step())
        throw StoreError("run store " + m_path.string() + ": cannot delete a run: there is no run with id " +
                         std::to_string(id));
    if (!force && status.text(0) == toString(RunStatus::Running))
        throw StoreError("run store " + m_path.string() + ": run " + std::to_string(id) +
                         " is still marked running; stop it first (or delete with force)");
    Statement del(m_db, m_path, "DELETE FROM runs WHERE id = ?", what);
    del.bind(1, id).run();
    tx.commit();
}

// ---------------------------------------------------------------------------------------------
// Batched inserts

void RunStore::addMetrics(int64_t runId, const std::vector<MetricPoint>& points) {
    std::lock_guard lock(m_mutex);
    requireWritable("add metrics");
    if (points.empty()) return;
    const std::string what = "insert metrics of run " + std::to_string(runId);
    Transaction tx(m_db, m_path, what);
    Statement ins(m_db, m_path, metricsTable().insertSql(), what);
    int64_t maxStep = points.front().step;
    for (const MetricPoint& p : points) {
        maxStep = std::max(maxStep, p.step);
        if (!std::isfinite(p.value)) continue;  // NaN/inf: not plottable, and SQLite stores NaN as NULL
        metricsTable().bindInsert(ins, p, runId);
        ins.run();
        ins.reset();
    }
    Statement upd(m_db, m_path, "UPDATE runs SET last_step = max(last_step, ?) WHERE id = ?",
                  "advance last step of run " + std::to_string(runId));
    upd.bind(1, maxStep).bind(2, runId).run();
    requireOneChange("add metrics", runId);
    tx.commit();
}

void RunStore::addDeviceSamples(int64_t runId, const std::vector<DeviceSample>& samples) {
    std::lock_guard lock(m_mutex);
    requireWritable("add device samples");
    if (samples.empty()) return;
    const std::string what = "insert device samples of run " + std::to_string(runId);
    Transaction tx(m_db, m_path, what);
    Statement ins(m_db, m_path, deviceSamplesTable().insertSql(), what);
    for (const DeviceSample& s : samples) {
        deviceSamplesTable().bindInsert(ins, s, runId);
        ins.run();
        ins.reset();
    }
    tx.commit();
}

void RunStore::addLogs(int64_t runId, const std::vector<LogLine>& lines) {
    std::lock_guard lock(m_mutex);
    requireWritable("add log lines");
    if (lines.empty()) return;
    const std::string what = "insert log lines of run " + std::to_string(runId);
    Transaction tx(m_db, m_path, what);
    Statement ins(m_db, m_path, logsTable().insertSql(), what);
    for (const LogLine& l : lines) {
        logsTable().bindInsert(ins, l, runId);
        ins.run();
        ins.reset();
    }
    tx.commit();
}

void RunStore::addSamples(int64_t runId, const std::vector<SampleText>& samples) {
    std::lock_guard lock(m_mutex);
    requireWritable("add samples");
    if (samples.empty()) return;
    const std::string what = "insert samples of run " + std::to_string(runId);
    Transaction tx(m_db, m_path, what);
    Statement ins(m_db, m_path, samplesTable().insertSql(), what);
    for (const SampleText& t : samples) {
        samplesTable().bindInsert(ins, t, runId);
        ins.run();
        ins.reset();
    }
    tx.commit();
}

// ---------------------------------------------------------------------------------------------
// Queries

std::vector<SampleText> RunStore::samplesAfterId(int64_t runId, int64_t afterId, int limit) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, samplesTable().select("WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?"),
                 "read the samples of run " + std::to_string(runId));
    st.bind(1, runId).bind(2, afterId).bind(3, sqlLimit(limit));
    std::vector<SampleText> out;
    while (st.step()) out.push_back(samplesTable().read(st));
    return out;
}

std::vector<RunRecord> RunStore::listRuns(int limit) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, runsTable().select("ORDER BY id DESC LIMIT ?"), "list runs");
    st.bind(1, sqlLimit(limit));
    std::vector<RunRecord> out;
    while (st.step()) out.push_back(runsTable().read(st));
    return out;
}

std::vector<RunRecord> RunStore::runsWithStatus(RunStatus status) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, runsTable().select("WHERE status = ? ORDER BY id DESC"),
                 std::string("list runs with status ") + toString(status));
    st.bind(1, toString(status));
    std::vector<RunRecord> out;
    while (st.step()) out.push_back(runsTable().read(st));
    return out;
}

std::optional<RunRecord> RunStore::getRun(int64_t id) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, runsTable().select("WHERE id = ?"), "read run " + std::to_string(id));
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return runsTable().read(st);
}

std::vector<MetricPoint> RunStore::metrics(int64_t runId, const std::string& name, int64_t afterStep) const {
    std::lock_guard lock(m_mutex);
    const std::string what = "read metrics of run " + std::to_string(runId);
    std::vector<MetricPoint> out;
    if (name.empty()) {
        Statement st(m_db, m_path, metricsTable().select("WHERE run_id = ? AND step > ? ORDER BY step, id"), what);
        st.bind(1, runId).bind(2, afterStep);
        while (st.step()) out.push_back(metricsTable().read(st));
    } else {
        Statement st(m_db, m_path,
                     metricsTable().select("WHERE run_id = ? AND name = ? AND step > ? ORDER BY step, id"), what);
        st.bind(1, runId).bind(2, name).bind(3, afterStep);
        while (st.step()) out.push_back(metricsTable().read(st));
    }
    return out;
}

// The *AfterId polls scan the rowid range (new rows sit at the end of the table); "+run_id" keeps
// SQLite from walking the whole run through the (run_id, ...) index and sorting it instead.
std::vector<MetricPoint> RunStore::metricsAfterId(int64_t runId, int64_t afterId, int limit) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, metricsTable().select("WHERE id > ? AND +run_id = ? ORDER BY id LIMIT ?"),
                 "read new metrics of run " + std::to_string(runId));
    st.bind(1, afterId).bind(2, runId).bind(3, sqlLimit(limit));
    std::vector<MetricPoint> out;
    while (st.step()) out.push_back(metricsTable().read(st));
    return out;
}

std::vector<MetricPoint> RunStore::latestMetrics(int64_t runId) const {
    std::lock_guard lock(m_mutex);
    // SQLite's bare columns with max(): id, name, value and time come from the row holding max(step)
    // (ties: unspecified which row; steps of one name are unique in practice).
    Statement st(m_db, m_path,
                 "SELECT " + metricsTable().columns({"step", "max(step)"}) +
                     " FROM metrics WHERE run_id = ? GROUP BY name ORDER BY name",
                 "read latest metrics of run " + std::to_string(runId));
    st.bind(1, runId);
    std::vector<MetricPoint> out;
    while (st.step()) out.push_back(metricsTable().read(st));
    return out;
}

std::vector<std::string> RunStore::metricNames(int64_t runId) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, "SELECT DISTINCT name FROM metrics WHERE run_id = ? ORDER BY name",
                 "read metric names of run " + std::to_string(runId));
    st.bind(1, runId);
    std::vector<std::string> out;
    while (st.step()) out.push_back(st.text(0));
    return out;
}

std::vector<std::pair<int64_t, double>> RunStore::minMetricPerRun(const std::string& name) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, "SELECT run_id, min(value) FROM metrics WHERE name = ? GROUP BY run_id ORDER BY run_id",
                 "read the smallest " + name + " of every run");
    st.bind(1, name);
    std::vector<std::pair<int64_t, double>> out;
    while (st.step()) out.emplace_back(st.int64(0), st.real(1));
    return out;
}

std::vector<DeviceSample> RunStore::deviceSamples(int64_t runId, int64_t afterStep) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, deviceSamplesTable().select("WHERE run_id = ? AND step > ? ORDER BY step, id"),
                 "read device samples of run " + std::to_string(runId));
    st.bind(1, runId).bind(2, afterStep);
    std::vector<DeviceSample> out;
    while (st.step()) out.push_back(deviceSamplesTable().read(st));
    return out;
}

std::vector<DeviceSample> RunStore::deviceSamplesAfterId(int64_t runId, int64_t afterId, int limit) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, deviceSamplesTable().select("WHERE id > ? AND +run_id = ? ORDER BY id LIMIT ?"),
                 "read new device samples of run " + std::to_string(runId));
    st.bind(1, afterId).bind(2, runId).bind(3, sqlLimit(limit));
    std::vector<DeviceSample> out;
    while (st.step()) out.push_back(deviceSamplesTable().read(st));
    return out;
}

std::vector<LogLine> RunStore::logs(int64_t runId, int limit) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path,
                 "SELECT * FROM (" + logsTable().select("WHERE run_id = ? ORDER BY id DESC LIMIT ?") + ") ORDER BY id",
                 "read log lines of run " + std::to_string(runId));
    st.bind(1, runId).bind(2, sqlLimit(limit));
    std::vector<LogLine> out;
    while (st.step()) out.push_back(logsTable().read(st));
    return out;
}

std::vector<LogLine> RunStore::logsAfterId(int64_t runId, int64_t afterId, int limit) const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, logsTable().select("WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?"),
                 "read new log lines of run " + std::to_string(runId));
    st.bind(1, runId).bind(2, afterId).bind(3, sqlLimit(limit));
    std::vector<LogLine> out;
    while (st.step()) out.push_back(logsTable().read(st));
    return out;
}

// ---------------------------------------------------------------------------------------------

std::string RunStore::quickCheck() const {
    std::lock_guard lock(m_mutex);
    Statement st(m_db, m_path, "PRAGMA quick_check", "check the store (PRAGMA quick_check)");
    std::string out;
    while (st.step()) out += (out.empty() ? "" : "; ") + st.text(0);
    return out;
}

int RunStore::reapOrphans() {
    std::lock_guard lock(m_mutex);
    requireWritable("reap orphaned runs");
    const std::string host = localHostName();
    Transaction tx(m_db, m_path, "reap orphaned runs");
    std::vector<std::pair<int64_t, int64_t>> dead;  // (run id, pid)
    {
        Statement st(m_db, m_path, "SELECT id, pid FROM runs WHERE status = 'running' AND host = ? AND pid > 0",
                     "find running runs of this host");
        st.bind(1, host);
        while (st.step()) {
            const int64_t pid = st.int64(1);
            if (!processAlive(pid)) dead.emplace_back(st.int64(0), pid);  // gone, or a zombie
        }
    }
    if (dead.empty()) return 0;
    const double now = unixNow();
    Statement upd(m_db, m_path,
                  "UPDATE runs SET status = 'failed', ended_at = ?, failure_reason = ? "
                  "WHERE id = ? AND status = 'running'",
                  "mark orphaned run failed");
    for (const auto& [id, pid] : dead) {
        upd.bind(1, now).bind(2, "supervisor process " + std::to_string(pid) + " vanished").bind(3, id);
        upd.run();
        upd.reset();
    }
    tx.commit();
    return static_cast<int>(dead.size());
}

}  // namespace fts
