// The engine's host (CPU) tensor allocator: large blocks freed by one training step are kept and handed to the next
// step instead of going back to the kernel, so a step does not pay page faults for its logits and gradients again.
#pragma once

#include <cstdint>

namespace fts {

struct HostAllocatorStats {
    int64_t hits = 0, misses = 0;     // large allocations served from the cache / from the system
    int64_t cachedBytes = 0;          // freed large blocks held for reuse now
    int64_t releasedBytes = 0;        // cached bytes given back to the system (on a miss, or over the cap)
};

// Installs the caching allocator as LibTorch's CPU allocator (once per process; later calls do nothing). Blocks of
// at least 1 MiB are cached by exact size, up to `capBytes` in total (FTS_HOST_CACHE_MB overrides; 0 disables the
// cache). A request the cache cannot serve first releases every cached block, so the process never holds more than
// the uncached allocator would plus the blocks that the very next requests reuse. Tensors allocated before the
// call keep their own deleters.
void installHostCachingAllocator(int64_t capBytes = int64_t(2) << 30);
HostAllocatorStats hostAllocatorStats();

}  // namespace fts
