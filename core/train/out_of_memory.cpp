// Out-of-memory reports (see out_of_memory.h).
#include "core/train/out_of_memory.h"

#include <new>
#include <sstream>

#include "core/config/memory_estimate.h"
#include "core/train/host_allocator.h"
#include "core/train/telemetry.h"

namespace fts {

const char* phaseName(StepPhase phase) {
    switch (phase) {
        case StepPhase::Setup:
            return "set-up";
        case StepPhase::Forward:
            return "forward";
        case StepPhase::Backward:
            return "backward";
        case StepPhase::Optimizer:
            return "optimizer step";
        case StepPhase::Eval:
            return "eval";
        case StepPhase::Samples:
            return "sample generation";
        case StepPhase::Checkpoint:
            return "checkpoint";
        case StepPhase::Export:
            return "export";
    }
    return "?";
}

bool isOutOfMemory(const std::exception& e) {
    if (dynamic_cast<const c10::OutOfMemoryError*>(&e) || dynamic_cast<const std::bad_alloc*>(&e)) return true;
    const std::string what = e.what();
    return what.find("out of memory") != std::string::npos || what.find("can't allocate memory") != std::string::npos;
}

std::string outOfMemoryMessage(int worldSize, const RunPosition& at, const std::string& what) {
    const torch::Device& device = at.device;
    const TrainConfig& cfg = at.config;
    std::ostringstream out;
    out << "out of memory ";
    if (at.phase == StepPhase::Setup)
        out << "during set-up";
    else
        out << "at step " << at.step << " (" << phaseName(at.phase) << ")";
    out << " on " << device.str();
    int64_t capacity = 0;
    const MemorySample m = sampleMemory(device.is_cuda() ? device.index() : -1);
    bool tensorLimit = false;
    if (device.is_cuda()) {
        capacity = m.capacity;
        out << ": the peak was " << formatBytes(m.peak) << " allocated (" << formatBytes(m.reserved) << " reserved) of "
            << formatBytes(m.capacity);
    } else if (const int64_t limit = hostTensorLimit(); limit > 0) {
        capacity = limit;
        tensorLimit = true;
        out << ": the peak was " << formatBytes(hostAllocatorStats().peakLiveBytes) << " of tensors, the limit is "
            << formatBytes(limit) << " (FTS_CPU_MEMORY_LIMIT)";
    }
    try {
        EstimateOptions o;
        o.worldSize = worldSize;
        if (capacity > 0) o.deviceCapacity = capacity;
        if (tensorLimit) o.runtimeBytes = 0;  // the limit counts tensors only
        const MemoryEstimate e = estimateMemory(cfg, o);
        out << ". The estimate is " << formatBytes(e.perRank.total) << " per rank (peak at " << e.perRank.phase << ")";
        if (!e.suggestions.empty()) {
            out << ". Each change estimated alone: ";
            for (size_t i = 0; i < e.suggestions.size(); ++i)
                out << (i ? "; " : "") << e.suggestions[i].description << " ("
                    << formatBytes(e.suggestions[i].perRank.total) << (e.suggestions[i].fits ? ", fits" : "") << ")";
        }
    } catch (const std::exception&) {  // no estimate for this model: the facts alone
    }
    std::string detail = what;
    if (const size_t nl = detail.find('\n'); nl != std::string::npos) detail.resize(nl);
    out << ". (LibTorch: " << detail << ")";
    return out.str();
}

}  // namespace fts
