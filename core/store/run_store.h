// The run store: every run, its per-step metrics, device memory samples and log lines in one SQLite
// file (WAL mode, versioned schema with migrations). One writer (the supervisor), many readers (GUI, CLI).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct sqlite3;

namespace fts {

enum class RunStatus { Pending, Running, Completed, Failed, Stopped };
const char* toString(RunStatus s);  // "pending", "running", ...
RunStatus runStatusFromString(const std::string& s);

struct RunRecord {
    int64_t id = 0;
    std::string name;
    RunStatus status = RunStatus::Pending;
    double createdAt = 0, startedAt = 0, endedAt = 0;  // unix seconds (0 = not yet)
    std::string configJson;                            // the full config as given
    std::string resolvedConfigJson;  // configToResolvedJson at launch: defaults and "auto" filled in (schema 4)
    std::string configPath;
    std::string model;    // model path or id
    std::string dataset;  // dataset path
    std::string outputDir;
    std::string host;              // hostname of the supervisor
    std::string versionsJson;      // {"fts": ..., "torch": ..., "cuda": ...}
    std::string finalMetricsJson;  // {"loss": ..., "eval_loss": ..., ...}
    std::string failureReason;
    int64_t pid = 0;  // supervisor pid while running (for stop/reattach)
    int worldSize = 1;
    int64_t totalSteps = 0;         // planned optimizer steps
    int64_t lastStep = 0;           // latest step with metrics
    std::string notes;              // the user's free text (schema 2)
    std::vector<std::string> tags;  // the user's labels, sorted and unique (schema 2)
    std::string hostsJson;          // [{"host": H, "first_rank": R, "slots": [..]}] of a launch (schema 3)
};

struct MetricPoint {
    int64_t step = 0;
    std::string name;  // "loss", "eval_loss", "lr", "grad_norm", "tokens_per_s", ...
    double value = 0;
    double time = 0;  // unix seconds
    int64_t id = 0;   // row id in the store: filled by reads, ignored by writes
};

struct DeviceSample {
    int64_t step = 0;
    double time = 0;
    int rank = 0;
    std::string device;                                           // "cpu", "cuda:0"
    int64_t allocated = 0, reserved = 0, peak = 0, capacity = 0;  // bytes (CPU: process RSS)
    std::string host;  // the host of the rank, as the hostfile names it ("" before schema 3)
    int64_t id = 0;    // row id in the store: filled by reads, ignored by writes
};

struct LogLine {
    double time = 0;
    int rank = -1;      // -1: the supervisor
    std::string level;  // "info", "warn", "error"
    std::string message;
    int64_t id = 0;  // row id in the store: filled by reads, ignored by writes
};

// A text generated from the run's weights at a step (training.sample_prompts): prompt index, prompt and reply.
struct SampleText {
    int64_t step = 0;
    double time = 0;
    int index = 0;  // the prompt's position in training.sample_prompts
    std::string prompt, text;
    int64_t id = 0;  // row id in the store: filled by reads, ignored by writes
};

// All methods throw StoreError (naming the file, the operation and SQLite's message) on failure,
// including updates of a run id that does not exist and any write through a readOnly store.
// One connection per object; calls on one object are serialised by an internal mutex.
class RunStore {
public:
    // Opens (creating and migrating as needed). readOnly stores never write or migrate.
    explicit RunStore(const std::filesystem::path& file, bool readOnly = false);
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    static std::filesystem::path defaultPath();  // $XDG_DATA_HOME/finetune-studio/runs.sqlite
    static constexpr int kSchemaVersion = 7;
    int schemaVersion() const;
    const std::filesystem::path& path() const { return m_path; }

    bool isReadOnly() const { return m_readOnly; }
    static std::string localHostName();  // gethostname(), as stored in RunRecord::host

    // run.id is ignored; an empty run.host becomes localHostName(), createdAt 0 becomes now.
    int64_t createRun(const RunRecord& run);  // returns the new id
    void markStarted(int64_t id, int64_t pid, double time);
    void setTotalSteps(int64_t id, int64_t totalSteps);
    void setVersions(int64_t id, const std::string& versionsJson);  // {"fts":..,"torch":..,"device":..}
    void finishRun(int64_t id, RunStatus status, double time, const std::string& finalMetricsJson,
                   const std::string& failureReason);
    void setPid(int64_t id, int64_t pid);

    void setRunName(int64_t id, const std::string& name);
    void setRunNotes(int64_t id, const std::string& notes);
    // Tags are trimmed, emptied ones dropped, then stored sorted and unique. A tag holding a comma or a
    // newline is refused (StoreError naming the tag): the column keeps them comma-separated.
    void setRunTags(int64_t id, const std::vector<std::string>& tags);
    // Deletes the run and (ON DELETE CASCADE) its metrics, device samples and logs. A run still
    // marked running is refused unless force (its supervisor would keep writing to a missing run).
    void deleteRun(int64_t id, bool force = false);

    // Batched writes: each call is one transaction with one prepared statement reused per row.
    // addMetrics skips NaN/inf values (a diverged loss is reported through logs, not plotted) but
    // still advances the run's lastStep to the largest step in the batch.
    void addMetrics(int64_t runId, const std::vector<MetricPoint>& points);
    void addDeviceSamples(int64_t runId, const std::vector<DeviceSample>& samples);
    void addLogs(int64_t runId, const std::vector<LogLine>& lines);
    void addSamples(int64_t runId, const std::vector<SampleText>& samples);

    std::vector<RunRecord> listRuns(int limit = 1000) const;  // newest first
    std::optional<RunRecord> getRun(int64_t id) const;
    // Metrics with step > afterStep (for incremental polling); empty name = all names.
    std::vector<MetricPoint> metrics(int64_t runId, const std::string& name = "", int64_t afterStep = -1) const;
    std::vector<DeviceSample> deviceSamples(int64_t runId, int64_t afterStep = -1) const;
    std::vector<LogLine> logs(int64_t runId, int limit = 200) const;  // latest `limit` lines, oldest first (<= 0: all)
    std::vector<RunRecord> runsWithStatus(RunStatus status) const;    // newest first

    // Polling by row id: every row inserted after the row `afterId` (pass the largest id seen, 0 at
    // first), in insertion order. Unlike afterStep this never misses rows written late for a step
    // already seen (eval_loss after loss, one rank's sample after another's). limit <= 0: no limit.
    std::vector<MetricPoint> metricsAfterId(int64_t runId, int64_t afterId, int limit = 0) const;
    std::vector<DeviceSample> deviceSamplesAfterId(int64_t runId, int64_t afterId, int limit = 0) const;
    std::vector<LogLine> logsAfterId(int64_t runId, int64_t afterId, int limit = 0) const;
    std::vector<SampleText> samplesAfterId(int64_t runId, int64_t afterId = 0, int limit = 0) const;
    // The point with the largest step of each metric name, sorted by name.
    std::vector<MetricPoint> latestMetrics(int64_t runId) const;
    std::vector<std::string> metricNames(int64_t runId) const;  // sorted
    // The smallest value of metric `name` of every run that has one (e.g. the best eval_loss), in one query.
    std::vector<std::pair<int64_t, double>> minMetricPerRun(const std::string& name) const;  // sorted by run id

    // Runs left "running" whose supervisor pid no longer exists are marked failed ("supervisor vanished").
    // Only runs whose host is this host and whose pid > 0 are checked (kill(pid, 0) fails with ESRCH);
    // failureReason becomes "supervisor process <pid> vanished". Returns the number of runs reaped.
    int reapOrphans();
    // PRAGMA quick_check: "ok", or SQLite's list of the problems it found (fts doctor).
    std::string quickCheck() const;

private:
    friend class RunQueue;  // the queue's table (run_queue.h) on this connection
    std::filesystem::path m_path;
    sqlite3* m_db = nullptr;
    bool m_readOnly = false;
    mutable std::mutex m_mutex;  // one sqlite3 connection, used by one call at a time

    void openAndMigrate();
    void migrate();
    void requireWritable(const char* operation) const;
    void requireOneChange(const char* operation, int64_t id) const;
};

}  // namespace fts
