// Device memory telemetry for one rank: CUDA caching-allocator statistics on GPU, process RSS on CPU.
#pragma once
#include <cstdint>
#include <string>

namespace fts {

struct MemorySample {
    std::string device;                                           // "cpu" or "cuda:N"
    int64_t allocated = 0, reserved = 0, peak = 0, capacity = 0;  // bytes
};

// deviceIndex < 0: CPU (allocated = reserved = RSS, peak = VmHWM, capacity = MemTotal). With FTS_CPU_MEMORY=tensors
// allocated and peak are the tensor bytes LibTorch's CPU allocator has handed out (host_allocator.h), the
// counterpart of CUDA's allocated_bytes: what the estimate's "allocator peak" predicts (docs/estimate.md).
MemorySample sampleMemory(int deviceIndex);
int64_t processRssBytes();
bool cpuTensorTelemetry();  // FTS_CPU_MEMORY=tensors

}  // namespace fts
