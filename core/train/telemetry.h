// Device memory telemetry for one rank: CUDA caching-allocator statistics on GPU, process RSS on CPU.
#pragma once
#include <cstdint>
#include <string>

namespace fts {

struct MemorySample {
    std::string device;                                           // "cpu" or "cuda:N"
    int64_t allocated = 0, reserved = 0, peak = 0, capacity = 0;  // bytes
};

// deviceIndex < 0: CPU (allocated = reserved = RSS, peak = VmHWM, capacity = MemTotal).
MemorySample sampleMemory(int deviceIndex);
int64_t processRssBytes();

}  // namespace fts
