// Before a run starts: does the memory estimate (core/config/memory_estimate.h) fit the memory each local rank's
// device has free? `fts train` refuses a run that does not (naming the estimate, the free memory and the cheapest
// changes that fit, each with its own estimate) unless --force; the studio asks the same before it starts one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/memory_estimate.h"
#include "core/config/train_config.h"

namespace fts {

struct MemoryCheck {
    bool judged = false;  // false: the free memory is unknown (a CUDA device without nvidia-smi): nothing refused
    bool fits = true;
    int64_t available = 0;    // bytes one rank may use
    std::string device;       // "cuda:0", "cuda:0,1", "cpu"
    std::string source;       // where `available` comes from: "nvidia-smi memory.free", "MemAvailable / 2 ranks", ...
    MemoryEstimate estimate;  // with deviceCapacity = available and the suggestions when it does not fit
};

// The free memory of the devices the ranks of this machine use: FTS_DEVICE_MEMORY (a size per rank, e.g. "24GiB":
// tests and deliberate caps) when set; on CUDA (training.device "cuda...", or "auto" where nvidia-smi lists a GPU)
// nvidia-smi's memory.free of those GPUs (the smallest), `gpus` being the ids CUDA_VISIBLE_DEVICES will hold (empty:
// the caller's CUDA_VISIBLE_DEVICES mapping training.device's index or 0..world-1); on CPU the host's MemAvailable
// shared by the ranks. Throws ConfigError for a malformed FTS_DEVICE_MEMORY; IoError/ConfigError of the
// estimate (unreadable config.json) propagate.
MemoryCheck checkRunMemory(const TrainConfig& cfg, int worldSize, const std::vector<int>& gpus);

// The refusal `fts train` prints (several lines, no trailing newline), naming configPath.
std::string describeMemoryRefusal(const MemoryCheck& check, const std::string& configPath);

// GPU index -> free bytes from `nvidia-smi --query-gpu=index,memory.free --format=csv,noheader,nounits` output.
std::vector<std::pair<int, int64_t>> parseGpuFreeMemory(const std::string& csv);

}  // namespace fts
