// FTS_CUDA_CHECK: turns a failed CUDA runtime call into fts::kernels::KernelError naming the kernel entry point,
// the call, the CUDA error and the source line. For .cu files only.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "kernels/kernel_types.h"

#define FTS_CUDA_CHECK(what, call)                                                                                     \
    do {                                                                                                               \
        const cudaError_t ftsErr_ = (call);                                                                            \
        if (ftsErr_ != cudaSuccess)                                                                                    \
            throw ::fts::kernels::KernelError(std::string(what) + ": " #call " failed: " + cudaGetErrorName(ftsErr_) + \
                                              " (" + cudaGetErrorString(ftsErr_) + ") at " __FILE__ ":" +              \
                                              std::to_string(__LINE__));                                               \
    } while (0)
