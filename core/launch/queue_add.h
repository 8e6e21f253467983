// Putting a config on the run queue (`fts queue add`, the studio's "Add to queue"): a plain config becomes one entry,
// a config with a sweep block one entry per run of the sweep (core/config/sweep.h). Each entry holds its resolved
// config (absolute paths) with an output folder of its own: not another waiting run's, not a folder with files, and
// a name of its own: a name another run or entry has gets what differs from that one ("quickstart lr=0.001") or a
// number (" #2"). The entries of one add are one submission (QueueEntry::submission).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fts {

class RunStore;

struct QueueAddOptions {
    std::filesystem::path configPath;
    std::string devices = "auto";  // queue_devices.h
    std::string name;              // the run's name (default: training.run_name, or the file's name); sweeps add values
};

struct QueueAddResult {
    std::vector<int64_t> ids;
    std::vector<std::string> names;
    std::string sweep;                  // the sweep's name when the config had one
    std::vector<std::string> warnings;  // the config's warnings about swept keys (SweepPlan::warnings)
    std::vector<std::string> notes;     // swept keys mapped to the key that rules them (SweepPlan::notes)
};

// Throws ConfigError naming the file and key (an invalid config, a sweep run that does not parse, bad --devices).
QueueAddResult addToQueue(RunStore& store, const QueueAddOptions& options);

// Ranks a device request starts (cpu:N, gpus:N, localhost:ids, a hostfile's slots; auto: 1).
int ranksOf(const std::string& devices);

}  // namespace fts
