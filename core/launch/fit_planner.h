// "Fit to my hardware" (`fts plan`, the studio's plan dialog): the variants of a config that train the same model
// the same way (ZeRO stage, CPU/NVMe offload, activation checkpointing, micro-batch x gradient accumulation at the
// same train_batch_size, chunked loss), the memory estimate of each against the memory a rank has (with a margin),
// probes of the most promising few that fit (runs in the store, time-boxed), and the fastest measured one that fits
// as the proposal, with the table behind the choice. Applying it rewrites only the planned keys. docs/plan.md.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/train_config.h"
#include "core/launch/probe_runner.h"

namespace fts {

// The settings a plan chooses between; everything else in the config stays as written.
struct PlanKnobs {
    int stage = 0;
    OffloadDevice offloadOptimizer = OffloadDevice::None, offloadParam = OffloadDevice::None;
    bool activationCheckpointing = false;
    int64_t microBatch = 1, accumulation = 1;
    bool chunkedLoss = true;
    std::string label() const;  // "stage 2, offload optimizer cpu, micro-batch 4 x 2, checkpointing, chunked loss"
    std::string tag() const;    // the same, file-name safe: "s2-oocpu-mb4x2-ac-cl"
    bool operator==(const PlanKnobs&) const = default;
};

PlanKnobs knobsOf(const TrainConfig& config);

// One key a plan changes: "deepspeed.zero_optimization.stage", its text before ("0", "absent") and after.
struct PlanKeyChange {
    std::string key, before, after;
};

// The user's config document with only the keys that set `knobs` rewritten (micro-batch and accumulation where the
// document gives them: deepspeed's keys and/or the Trainer's per_device_train_batch_size and
// gradient_accumulation_steps; offload blocks keep their other fields). Parsed back against baseDir for worldSize,
// the result must resolve to `knobs` with the same train_batch_size, else ConfigError naming the key.
nlohmann::json applyPlanKnobs(const nlohmann::json& document, const PlanKnobs& knobs,
                              const std::filesystem::path& baseDir, int worldSize,
                              std::vector<PlanKeyChange>* changes = nullptr);

struct PlanCandidate {
    PlanKnobs knobs;
    int64_t estimate = 0;         // bytes per rank the run needs (the estimate's total: what must fit)
    int64_t estimatePeak = 0;     // the figure the measured peak is compared with (CUDA: allocator peak; CPU: total)
    bool fitsByEstimate = false;  // estimate <= capacity x (1 - margin)
    double predicted = 0;         // relative speed the ranking expects (1 = the fastest kind of variant)
    std::string invalid;          // the config refuses this combination (the reason); never probed
    std::optional<ProbeMeasurement> probe;  // tokens/s: the mean over its probes
    int probes = 0;                         // how many times it was probed (2: a close second was run again)
    bool fitsMeasured() const { return probe && probe->failure.empty(); }
};

struct PlanOptions {
    std::filesystem::path configPath;
    int worldSize = 1;       // ranks the run uses (--nproc / --num_gpus / the hostfile's slots)
    int64_t capacity = 0;    // bytes one rank may use; 0: the devices' free memory (as fts train judges)
    double margin = 0.10;    // the estimate must leave this share of the capacity free
    double maxMinutes = 10;  // time box for the probes (the estimates take well under a second)
    int maxProbes = 4;       // at most this many probes
    // The two fastest probed within this share of each other are probed once more each (time box allowing) and
    // judged on the mean: a few steps on a busy machine vary by several percent.
    double confirmWithin = 0.10;
    ProbeOptions probe;  // steps, ranks, store, scratch (a fresh folder is made when empty)
    std::function<void(const std::string&)> progress;  // one line per stage of the plan
    std::function<void(const PlanCandidate&)> probed;  // each probe as it ends
};

// One line of what the plan says when nothing fits or every probe failed: its parts, so that the studio can say it
// in the user's language, and the English line the CLI prints.
struct PlanAdvice {
    enum class Kind {
        NothingFits,   // bytes: the smallest estimate (candidate: its variant), usable: what a rank may use
        MoreGpus,      // ranks: how many ranks of this size would hold it at stage 3, bytes: per rank then
        NvmeOffload,   // bytes per rank with NVMe offload at stage 3; fits: within usable
        Qlora,         // bytes per rank as QLoRA; fits: within usable
        ProbesFailed,  // every probe failed; text holds each variant's failure
    };
    Kind kind = Kind::NothingFits;
    int64_t bytes = 0, usable = 0;
    int ranks = 0;
    bool fits = false;
    std::optional<size_t> candidate;  // index into PlanResult::candidates
    std::string text;
};
const char* planAdviceKindName(PlanAdvice::Kind kind);  // "nothing_fits", "more_gpus", "nvme", "qlora", ...

struct PlanResult {
    int64_t capacity = 0;
    std::string capacitySource;  // "nvidia-smi memory.free", "--capacity", "FTS_DEVICE_MEMORY", ...
    int worldSize = 1;
    PlanKnobs current;                      // the config as given
    std::vector<PlanCandidate> candidates;  // every variant, fastest predicted first (invalid ones last)
    std::optional<size_t> chosen;           // index into candidates
    bool chosenByEstimateOnly = false;      // no probe finished: the best predicted that fits by estimate
    bool timeBoxReached = false;
    double seconds = 0;
    std::vector<PlanAdvice> advice;  // nothing fits: the smallest estimate and what would make it fit
    std::vector<std::string> notes;  // what the plan left out and why (offload on a CPU device, NVMe without a path)
};

// Throws ConfigError for a config that does not parse, or a capacity that cannot be known (give options.capacity).
PlanResult planFit(const PlanOptions& options);

nlohmann::json toJson(const PlanResult& result);
nlohmann::json toJson(const PlanKnobs& knobs);

}  // namespace fts
