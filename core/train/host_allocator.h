// The engine's host (CPU) tensor allocator: large blocks freed by one training step are kept and handed to the next
// step instead of going back to the kernel, so a step does not pay page faults for its logits and gradients again.
#pragma once

#include <cstdint>

namespace fts {

struct HostAllocatorStats {
    int64_t hits = 0, misses = 0;  // large allocations served from the cache / from the system
    int64_t cachedBytes = 0;       // freed large blocks held for reuse now
    int64_t releasedBytes = 0;     // cached bytes given back to the system (on a miss, or over the cap)
    // Tensor bytes handed out and not yet freed (every size), and their high-water mark since the last
    // resetHostPeak(): the CPU counterpart of the CUDA caching allocator's allocated_bytes current / peak.
    int64_t liveBytes = 0, peakLiveBytes = 0;
};

// Installs the caching allocator as LibTorch's CPU allocator (once per process; later calls do nothing). Blocks of
// at least 1 MiB are cached by exact size, up to `capBytes` in total (FTS_HOST_CACHE_MB overrides; 0 disables the
// cache); a freed block beyond the cap goes back to the system. Tensors allocated before the call keep their own
// deleters.
void installHostCachingAllocator(int64_t capBytes = int64_t(2) << 30);
// Gives every cached block back to the system: the trainer calls it once its set-up is done, so what loading the
// model and building the optimizer freed (full tensors cut to shards, initial copies) does not stay resident.
void releaseHostCache();
HostAllocatorStats hostAllocatorStats();
// Starts a new high-water mark at the bytes live now (torch.cuda.reset_peak_memory_stats's counterpart).
void resetHostPeak();
// FTS_CPU_MEMORY_LIMIT (a size, e.g. "2GiB"): the tensor bytes a CPU run may hold at once; an allocation beyond
// it fails as CUDA's do when the device is full (c10::OutOfMemoryError). 0: no limit.
int64_t hostTensorLimit();
// True when the caching allocator is LibTorch's CPU allocator (installHostCachingAllocator ran).
bool hostAllocatorInstalled();

}  // namespace fts
