// `fts doctor`: what a user checks when something fails, one line per fact with OK / warning / error and what to do.
// The torch-free checks live here (the store and its health, free memory and disk, the Hugging Face cache, ssh hosts
// through the launcher's probe); the CLI adds the LibTorch, CUDA, NCCL and GPU lines (core/train/runtime_versions.h).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/launch/node_transport.h"

namespace fts {

struct DoctorLine {
    enum class Level { Ok, Info, Warning, Error };
    Level level = Level::Ok;
    std::string topic;   // "store", "memory", "disk", "hf cache", "host h1", "gpus", ...
    std::string detail;  // what was found
    std::string fix;     // what to do (warnings and errors)
};
const char* doctorLevelName(DoctorLine::Level level);  // "ok", "info", "warning", "error"

// The run store at `path`: missing (info: created by the first run), unreadable or damaged (error), or its schema,
// run count and PRAGMA quick_check.
DoctorLine checkStore(const std::filesystem::path& path);
// Free space of the file system holding `path` (the nearest existing parent): warning under 5 GiB, error under 512 MiB.
DoctorLine checkDisk(const std::string& topic, const std::filesystem::path& path);
// MemAvailable of /proc/meminfo: warning under 4 GiB.
DoctorLine checkMemory();
// The Hugging Face hub cache found (hf_cache.h's search order) and the models in it.
DoctorLine checkHfCache();
// Each host probed as a launch probes it (reachable over ssh in BatchMode, fts there and its version, GPUs).
std::vector<DoctorLine> checkHosts(const std::vector<std::string>& hosts, const TransportOptions& transport,
                                   int timeoutMs);

}  // namespace fts
