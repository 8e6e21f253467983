// Build without nvcc: the CUDA entry points exist (the API always links) and say that no kernel was compiled.
// kernels/CMakeLists.txt compiles this file only when FTS_CUDA_ENABLED is off.
#include "kernels/cuda/adamw.cuh"
#include "kernels/cuda/block_ops.cuh"
#include "kernels/cuda/bnb4bit.cuh"
#include "kernels/cuda/cuda_device.cuh"
#include "kernels/cuda/unscale.cuh"

namespace fts::kernels {

namespace {
[[noreturn]] void notBuilt(const char* what) {
    throw KernelError(std::string(what) +
                      ": fts_kernels was built without CUDA (nvcc was not found when "
                      "CMake configured; reconfigure with FTS_WITH_CUDA=ON and a CUDA toolkit)");
}
}  // namespace

bool cudaKernelsBuilt() { return false; }
int cudaDeviceCount() { return 0; }
void adamwCuda(const AdamWTensor*, size_t, DType, const AdamWHyper&, cudaStream_t) { notBuilt("adamwCuda"); }
void unscaleCuda(const GradTensor*, size_t, float, float*, cudaStream_t) { notBuilt("unscaleCuda"); }
void rmsNormForwardCuda(const void*, DType, const void*, DType, void*, float*, int64_t, int64_t, float, cudaStream_t) {
    notBuilt("rmsNormForwardCuda");
}
void rmsNormBackwardCuda(const void*, const void*, DType, const void*, DType, const float*, void*, float*, int64_t,
                         int64_t, cudaStream_t) {
    notBuilt("rmsNormBackwardCuda");
}
int64_t rmsNormPartialRows(int64_t rows) { return rows < 1024 ? rows : 1024; }
void ropeCuda(const void*, const void*, const void*, void*, DType, const RopeShape&, bool, cudaStream_t) {
    notBuilt("ropeCuda");
}
void siluMulForwardCuda(const void*, const void*, void*, DType, int64_t, cudaStream_t) {
    notBuilt("siluMulForwardCuda");
}
void siluMulBackwardCuda(const void*, const void*, const void*, void*, void*, DType, int64_t, cudaStream_t) {
    notBuilt("siluMulBackwardCuda");
}
void dequantize4bitCuda(const uint8_t*, const Quant4Scales&, int64_t, int64_t, Quant4Type, void*, DType, cudaStream_t) {
    notBuilt("dequantize4bitCuda");
}

}  // namespace fts::kernels
