// Out of memory during a run, in words a user can act on: the step and phase it happened in (forward, backward,
// optimizer, eval, checkpoint...), the device's memory then, the estimate, and the changes that would fit
// (core/config/memory_estimate.h), instead of LibTorch's paragraph.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "core/config/train_config.h"

namespace fts {

enum class StepPhase { Setup, Forward, Backward, Optimizer, Eval, Samples, Checkpoint, Export };
const char* phaseName(StepPhase phase);  // "forward", "backward", "optimizer step", ...

// Where the run is: the step being made (1-based while inside it) and what it is doing.
struct RunPosition {
    int64_t step = 0;
    StepPhase phase = StepPhase::Setup;
    torch::Device device{torch::kCPU};
    TrainConfig config;  // as the run resolved it (bf16 "auto" decided)
};

// True for LibTorch's out-of-memory errors (CUDA's caching allocator, the CPU allocator) and std::bad_alloc.
bool isOutOfMemory(const std::exception& e);

// "out of memory at step 12 (backward) on cuda:0: 22.1 GiB allocated of 23.6 GiB; the estimate was ...; changes that
// fit: ...; LibTorch: <what>". The suggestions must fit the device's total memory (CPU: FTS_CPU_MEMORY_LIMIT).
std::string outOfMemoryMessage(int worldSize, const RunPosition& at, const std::string& what);

}  // namespace fts
