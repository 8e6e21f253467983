// One rank's training run (see trainer.h): the device it trains on, the loop (train_loop.h), and LibTorch's errors
// in words a user can act on (an out-of-memory names the step, the phase and the changes that would fit).
#include "core/train/trainer.h"

#include <torch/torch.h>

#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#endif

#include "core/train/out_of_memory.h"
#include "core/train/train_loop.h"
#include "core/util/error.h"

namespace fts {

namespace {

torch::Device chooseDevice(const std::string& spec, int rank) {
    if (spec == "cpu") return torch::kCPU;
    if (spec == "auto") {
        if (torch::cuda::is_available()) return torch::Device(torch::kCUDA, rank % int(torch::cuda::device_count()));
        return torch::kCPU;
    }
    if (!torch::cuda::is_available())
        throw ConfigError("training.device: \"" + spec + "\" asks for CUDA, but LibTorch sees no CUDA device here");
    if (spec == "cuda") return torch::Device(torch::kCUDA, rank % int(torch::cuda::device_count()));
    int index = std::stoi(spec.substr(5));
    if (index >= int(torch::cuda::device_count()))
        throw ConfigError("training.device: \"" + spec + "\" but only " + std::to_string(torch::cuda::device_count()) +
                          " CUDA devices are visible");
    return torch::Device(torch::kCUDA, index);
}

// training.bf16 "auto": bf16 where the device computes it natively (CUDA, compute capability 8.0 or newer).
bool deviceRunsBf16(torch::Device device) {
#if __has_include(<cuda_runtime_api.h>)
    if (!device.is_cuda()) return false;
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device.index()) != cudaSuccess) return false;
    return major >= 8;
#else
    (void)device;
    return false;
#endif
}

TrainOutcome train(const TrainConfig& givenCfg, const TrainOptions& opt, EventSink& events,
                   const std::atomic<bool>& stopRequested, RunPosition& where) {
    const torch::Device device = chooseDevice(givenCfg.training.device, opt.localRank >= 0 ? opt.localRank : opt.rank);
    TrainConfig cfg = givenCfg;  // what waited for the device: training.bf16 "auto"
    if (cfg.deepspeed.bf16Auto) cfg.deepspeed.bf16 = deviceRunsBf16(device);
    where.device = device;
    where.config = cfg;
    TrainLoop loop(cfg, device, opt, events, stopRequested, where);
    return loop.run();
}

}  // namespace

TrainOutcome runTraining(const TrainConfig& cfg, const TrainOptions& opt, EventSink& events,
                         const std::atomic<bool>& stopRequested) {
    RunPosition where;
    where.config = cfg;
    try {
        return train(cfg, opt, events, stopRequested, where);
    } catch (const c10::OutOfMemoryError& e) {  // what a user can do about it, not LibTorch's paragraph
        throw Error(outOfMemoryMessage(opt.worldSize, where, e.what_without_backtrace()));
    } catch (const std::bad_alloc& e) {
        throw Error(outOfMemoryMessage(opt.worldSize, where, e.what()));
    } catch (const c10::Error& e) {  // LibTorch's own errors: keep the message, drop the C++ backtrace
        if (isOutOfMemory(e)) throw Error(outOfMemoryMessage(opt.worldSize, where, e.what_without_backtrace()));
        throw Error(e.what_without_backtrace());
    }
}

}  // namespace fts
