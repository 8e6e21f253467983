// One way the GGUF export spreads a tensor's rows over threads: [0, n) cut into `threads` contiguous parts, each
// run on a thread of its own and joined before returning (inline when small or single-threaded).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace fts::gguf {

inline void parallelRanges(int64_t n, int threads, int64_t minimum, const std::function<void(int64_t, int64_t)>& fn) {
    if (threads <= 1 || n < minimum) {
        fn(0, n);
        return;
    }
    std::vector<std::thread> pool;
    const int64_t part = (n + threads - 1) / threads;
    for (int64_t first = 0; first < n; first += part) pool.emplace_back(fn, first, std::min(n, first + part));
    for (std::thread& t : pool) t.join();
}

}  // namespace fts::gguf
