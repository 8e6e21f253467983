// The queue runner behind `fts queue run` (and started by the studio): takes the store's waiting entries in order,
// starts each as `fts train` (a run in the store like any other) when its devices are free, and records how each
// ended. One runner per store (a lock file beside it). It survives its own end: a run it started keeps going if the
// runner is killed, and the next runner adopts it; a run whose processes are gone (the machine restarted) is
// started again with --resume, so it continues from its checkpoint and nothing runs twice. docs/queue.md.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace fts {

struct QueueRunnerOptions {
    std::filesystem::path storePath;      // empty: RunStore::defaultPath()
    std::filesystem::path ftsExecutable;  // the `fts` that runs each entry (`fts train`)
    std::vector<int> gpus;                // the GPUs to hand out (default: every GPU nvidia-smi lists)
    bool gpusGiven = false;               // gpus was set (even empty): do not ask nvidia-smi
    int cpuSlots = 1;                     // runs on the CPU at once
    bool untilEmpty = true;               // return when nothing waits or runs; false: wait for new entries
    int pollMs = 500;
    std::function<void(const std::string&)> log;  // one line per event (started, ended, waiting because ...)
};

// The lock file of a store's runner ("<store>.queue-runner.lock"), and the pid of the runner holding it (0: none).
std::filesystem::path queueRunnerLockPath(const std::filesystem::path& storePath);
int64_t queueRunnerPid(const std::filesystem::path& storePath);

// Runs until the queue is empty (untilEmpty) or `stop` is set; on stop the runs it started are asked to stop (they
// save a checkpoint) and go back to waiting, to resume with the next runner. Returns 0, or 1 when another runner
// holds the store's queue (ConfigError for bad options; StoreError from the store).
int runQueue(const QueueRunnerOptions& options, const std::atomic<bool>& stop);

}  // namespace fts
