// A kernel-by-kernel profile of a few training steps (training.profile, `fts train --profile`): LibTorch's Kineto
// profiler from C++, over steps wait+1 .. wait+active of this process. Writes, in the run's output folder under
// profile/ (profile/rankN/ with several ranks):
//   trace.json    the Chrome trace (open in Perfetto or chrome://tracing), as torch.profiler's trace handler writes;
//   summary.txt   per step: wall time, GPU busy time, kernel launches, LibTorch operator calls, host
//                 synchronisations and values read on the host; then the kernels by total time and the operators by
//                 calls, with their share;
//   summary.json  the same figures for scripts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/config/train_config.h"

namespace c10 {
struct Device;
}

namespace fts {

class StepProfiler {
public:
    // Disabled settings: every call is a no-op.
    StepProfiler(const ProfileSettings& settings, const c10::Device& device, std::filesystem::path folder);
    ~StepProfiler();
    StepProfiler(const StepProfiler&) = delete;
    StepProfiler& operator=(const StepProfiler&) = delete;

    // Before and after each optimizer step of this process (0-based count of the steps it ran). Returns, when the
    // profiled steps are done and the files are written, a line for the run's log naming them.
    void beforeStep(int64_t stepsRun);
    std::optional<std::string> afterStep();
    // The run ends: a window still open is closed and written (fewer steps); one never begun is reported.
    std::optional<std::string> finish();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fts
