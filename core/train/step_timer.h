// Where a training step's time goes, section by section (forward, backward, the optimizer step): DeepSpeed's
// wall_clock_breakdown. On CUDA the sections are timed by device events on the current stream, so the step is not
// synchronised to time it; the events are read when the figures are taken (at the log interval, where the loss is
// read anyway). On the CPU, work is synchronous and a steady clock times it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace c10 {
struct Device;
}

namespace fts {

enum class StepSection { Forward, Backward, Optimizer };

class StepTimer {
public:
    // Disabled: every call is a no-op.
    StepTimer(bool enabled, const c10::Device& device);
    ~StepTimer();
    StepTimer(const StepTimer&) = delete;
    StepTimer& operator=(const StepTimer&) = delete;

    bool enabled() const { return impl_ != nullptr; }
    // A section may run several times in a step (one forward and backward per micro-batch): the times add up.
    void begin(StepSection section);
    void end(StepSection section);
    void stepDone();  // one optimizer step has finished
    // Milliseconds per optimizer step, by section, averaged over the steps since the last call:
    // {"time_forward_ms", ...}, {"time_backward_ms", ...}, {"time_step_ms", ...}. Waits for the sections' events.
    // Empty when disabled or when no step finished since the last call.
    std::vector<std::pair<std::string, double>> take();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fts
