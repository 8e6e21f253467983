// A small persistent worker pool for the CPU kernels (no LibTorch here, so no at::parallel_for): splits [0, n) into
// one contiguous piece per thread, with piece boundaries on multiples of `align` elements (whole SIMD vectors and
// cache lines per thread), runs piece 0 on the calling thread and waits for the rest.
#pragma once
#include <cstdint>
#include <functional>

namespace fts::kernels {

// fn(begin, end) for each piece; threads <= 0 means one per hardware thread. Calls from several threads at once
// are serialised. An exception thrown by fn is rethrown in the caller after every piece has finished.
void parallelRanges(int64_t n, int threads, int64_t align, const std::function<void(int64_t, int64_t)>& fn);

// Hardware threads of this machine (at least 1).
int hardwareThreads();

}  // namespace fts::kernels
