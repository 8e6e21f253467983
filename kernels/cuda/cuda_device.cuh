// Whether the CUDA kernels exist in this build and how many devices the CUDA runtime sees. Plain C++
// declarations (no CUDA headers): core includes this to pick the fused path; cuda_stubs.cpp answers
// "not built" when nvcc was absent at configure time, so the API always links.
#pragma once

namespace fts::kernels {

bool cudaKernelsBuilt();
// Devices visible to the CUDA runtime; 0 when there is none, no driver, or no CUDA build.
int cudaDeviceCount();

}  // namespace fts::kernels
