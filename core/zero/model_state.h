// The engine's own accounting of the model states one rank holds (parameters, gradients, optimizer state),
// in bytes by dtype, from the tensors it actually allocated; plus the ZeRO paper's closed forms to compare
// with. No LibTorch here: the CLI and the events carry these numbers.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace fts {

struct ModelStateBytes {
    std::map<std::string, int64_t> parameters;  // dtype name ("float32", "bfloat16", ...) -> bytes
    std::map<std::string, int64_t> gradients;
    std::map<std::string, int64_t> optimizer;  // fp32 master copy and AdamW moments
    int64_t buckets = 0;                       // communication buffers held between steps (reduce bucket)
    int64_t hostOffload = 0;  // optimizer state offloaded to host memory (and NVMe swap buffers); not in total()
    int64_t nvmeOffload = 0;  // optimizer state in swap files on NVMe; not in total()
    // NVMe traffic so far (swap files of the optimizer state and of offloaded parameters): bytes read and written
    // and the seconds the step waited for the disk. Not in toJson() (the trainer reports it per step).
    int64_t swapRead = 0, swapWritten = 0;
    double swapWaitSeconds = 0;
    static int64_t sum(const std::map<std::string, int64_t>& m);
    // What rests on the training device (with a CPU device: in host memory besides the offloaded part).
    int64_t total() const { return sum(parameters) + sum(gradients) + sum(optimizer) + buckets; }
    // {"parameters": {...}, "gradients": {...}, "optimizer": {...}, "buckets": n, "total": n, "host_offload": n,
    //  "nvme_offload": n}
    nlohmann::json toJson() const;
};

// The accounting as a table for the terminal and the run's log: one row per kind of state (parameters, gradients,
// optimizer, and the buckets when there are any), one column per dtype and the row's total, then what rests on the
// device, and in host memory and on NVMe when anything does. Sizes as formatBytes writes them ("12.0 MiB"; "-" where a kind holds none of a dtype).
std::string modelStateTable(const ModelStateBytes& m);

// The ZeRO paper's model-state bytes per rank for psi parameters on n ranks in mixed precision (2 bytes per
// parameter and per gradient, 12 bytes of fp32 optimizer state): stage 0: 16psi, 1: 4psi + 12psi/n,
// 2: 2psi + 14psi/n, 3: 16psi/n.
double zeroPaperBytes(int stage, double psi, int n);

}  // namespace fts
