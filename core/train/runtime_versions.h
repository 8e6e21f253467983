// What `fts --version` (and the run's start event) says about the runtime: this build, the LibTorch it runs with,
// the CUDA runtime and cuDNN that LibTorch was built with, the NCCL library it loaded, and the CUDA devices it sees.
// LibTorch-free header, so the CLI can print it.
#pragma once
#include <string>
#include <vector>

namespace fts {

// Several lines, e.g. "fts 0.1.0\nLibTorch 2.11.0+cu130 (CUDA runtime 13.0, cuDNN 9.13.0, NCCL 2.27.7)\n
// CUDA devices: none visible". Never throws: a part that cannot be read says so.
std::string runtimeVersionText();

// One line per CUDA device LibTorch sees: "cuda:0 NVIDIA H100 80GB HBM3, compute 9.0, 79.1 GiB (78.6 GiB free)";
// empty without one.
std::vector<std::string> cudaDeviceDescriptions();

}  // namespace fts
