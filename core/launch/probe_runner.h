// A probe: a few optimizer steps of a config variant run through the supervisor (a run in the store like any other,
// in a scratch output folder removed afterwards), measured from what the store recorded: tokens/s (the median of the
// steps after the first, which pays for start-up), steps/s and the peak memory any rank reached. `fts probe` (each
// ZeRO stage) and `fts plan` (the variants the memory estimate keeps) are built on it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace fts {

class RunStore;

struct ProbeOptions {
    std::filesystem::path scratch;  // a folder of the caller's (the variant's config and output go under it)
    std::filesystem::path storePath, workerExecutable;
    int64_t steps = 4;
    int nproc = 0, numGpus = 0;      // as fts train's --nproc / --num_gpus
    std::string include;             // as fts train's --include (localhost:0,2)
    std::filesystem::path hostfile;  // as fts train's --hostfile (several hosts)
    std::function<std::shared_ptr<void>(int, const std::string&, int, const std::string&)> hostStore;
};

struct ProbeMeasurement {
    int64_t runId = 0;
    int64_t peak = 0;  // bytes: the most any rank recorded (device_samples.peak)
    double tokensPerS = 0, stepsPerS = 0;
    double seconds = 0;   // wall time of the whole probe (start-up included)
    std::string failure;  // empty: it ran its steps
};

// Runs `config` (a resolved config document) for options.steps steps, named `runName`, with its output under
// options.scratch / tag (removed afterwards: a probe keeps no checkpoint).
ProbeMeasurement runProbe(nlohmann::json config, const std::string& tag, const std::string& runName,
                          const ProbeOptions& options);

// The figures of a finished run from the store (tokens/s, steps/s, peak), as runProbe measures them.
void measureProbeRun(const RunStore& store, ProbeMeasurement& m);

}  // namespace fts
