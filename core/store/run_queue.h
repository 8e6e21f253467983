// The run queue in the store (its `queue` table): configs waiting for their devices, in the user's order, each
// becoming a run when the queue runner (core/launch/queue_runner.h) starts it. An entry holds its config as it was
// queued (the resolved document: paths absolute), the devices it asks for, its status, the run it became and why
// it waits or failed; a sweep's entries carry the sweep's name and their swept values. Shared by `fts queue`, the
// runner and the studio's Queue page: every change is one statement or one transaction, so they can work at once.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fts {

class RunStore;

enum class QueueStatus { Waiting, Running, Done, Failed, Cancelled };
const char* toString(QueueStatus s);  // "waiting", "running", "done", "failed", "cancelled"
QueueStatus queueStatusFromString(const std::string& s);

struct QueueEntry {
    int64_t id = 0;
    double position = 0;           // the order: smaller first
    std::string name;              // the run's name
    std::string configJson;        // the config as queued (resolved, paths absolute)
    std::string configPath;        // the file it came from ("" for a sweep's expansion of one)
    std::string devices = "auto";  // "auto", "cpu", "gpus:N", "localhost:0,2", "hostfile:PATH" (queue_devices.h)
    QueueStatus status = QueueStatus::Waiting;
    int64_t runId = 0;        // the run in the store once started (0: none yet)
    std::string reason;       // waiting: why; failed/cancelled: what happened
    std::string sweep;        // the sweep's name ("" when not from a sweep)
    std::string sweepValues;  // JSON object {"key": value, ...} of a sweep's entry
    // The `queue add` it came in with: the id of that add's first entry (0 on add: the entry's own id). A sweep is
    // one submission, whatever its name: the same sweep file queued twice is two sweeps.
    int64_t submission = 0;
    double createdAt = 0, startedAt = 0, endedAt = 0;
    int64_t pid = 0;      // the `fts train` process while running
    bool resume = false;  // start it with --resume (it was interrupted: its checkpoint continues it)
    bool cancelRequested = false;
    bool finished() const {
        return status == QueueStatus::Done || status == QueueStatus::Failed || status == QueueStatus::Cancelled;
    }
};

// All methods throw StoreError (naming the store, the operation and SQLite's message).
class RunQueue {
public:
    explicit RunQueue(RunStore& store) : m_store(store) {}

    int64_t add(QueueEntry entry);         // at the end of the queue; returns its id
    std::vector<QueueEntry> list() const;  // in queue order (waiting and running first, then finished, newest first)
    std::optional<QueueEntry> get(int64_t id) const;
    // Moves a waiting entry to `index` among the waiting entries (0: next to start). StoreError if not waiting.
    void move(int64_t id, int index);
    // A waiting entry is cancelled at once; a running one is marked for the runner to stop (its run ends stopped).
    // Returns false when the entry had already finished.
    bool cancel(int64_t id);
    // Deletes a finished entry (its run stays in the store); StoreError for one waiting or running (cancel it first).
    void remove(int64_t id);
    // Deletes every finished entry; returns how many.
    int clearFinished();

    // ---- the runner's side ----
    void markRunning(int64_t id, int64_t pid);
    void setRun(int64_t id, int64_t runId);  // the supervisor of a queued run, once its run row exists
    void setReason(int64_t id, const std::string& reason);
    void finish(int64_t id, QueueStatus status, const std::string& reason);
    // Back to waiting, to be started again with --resume (an interrupted run), keeping its place and its run.
    void requeue(int64_t id, const std::string& reason);

private:
    RunStore& m_store;
};

}  // namespace fts
