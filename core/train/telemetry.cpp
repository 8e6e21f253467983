// Device memory telemetry (see telemetry.h). CPU numbers come from /proc; CUDA numbers from
// LibTorch's caching allocator (what the process really holds, not what nvidia-smi guesses).
#include "core/train/telemetry.h"

#include "core/train/host_allocator.h"

#include <torch/torch.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#if __has_include(<c10/cuda/CUDACachingAllocator.h>)
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#define FTS_HAVE_CUDA_ALLOCATOR 1
#endif

namespace fts {

static int64_t procStatusKb(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) == 0) {
            std::istringstream ss(line.substr(std::string(key).size()));
            int64_t kb = 0;
            ss >> kb;
            return kb;
        }
    }
    return 0;
}

static int64_t memTotalBytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    int64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemTotal:") return kb * 1024;
    return 0;
}

bool cpuTensorTelemetry() {
    static const bool on = [] {
        const char* v = std::getenv("FTS_CPU_MEMORY");
        return v && std::strcmp(v, "tensors") == 0;
    }();
    return on;
}

int64_t processRssBytes() { return procStatusKb("VmRSS:") * 1024; }

MemorySample sampleMemory(int deviceIndex) {
    MemorySample s;
    if (deviceIndex < 0) {
        s.device = "cpu";
        s.allocated = s.reserved = processRssBytes();
        s.peak = procStatusKb("VmHWM:") * 1024;
        s.capacity = memTotalBytes();
        if (cpuTensorTelemetry() && hostAllocatorInstalled()) {
            const HostAllocatorStats h = hostAllocatorStats();
            s.allocated = h.liveBytes;
            s.peak = h.peakLiveBytes;
        }
        return s;
    }
    s.device = "cuda:" + std::to_string(deviceIndex);
#ifdef FTS_HAVE_CUDA_ALLOCATOR
    using namespace c10::CachingDeviceAllocator;
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(c10::DeviceIndex(deviceIndex));
    const auto agg = static_cast<size_t>(StatType::AGGREGATE);
    s.allocated = stats.allocated_bytes[agg].current;
    s.peak = stats.allocated_bytes[agg].peak;
    s.reserved = stats.reserved_bytes[agg].current;
    size_t freeB = 0, totalB = 0;
    if (cudaMemGetInfo(&freeB, &totalB) == cudaSuccess) s.capacity = int64_t(totalB);
#endif
    return s;
}

}  // namespace fts
