// Internal: the Hugging Face Trainer's argument names in the training section and what they do to the deepspeed
// block, re-stated from transformers' HfTrainerDeepSpeedConfig (trainer_config_process / _finalize): "auto" values
// take the Trainer's value, an explicit value that differs from one the training section names is an error naming
// both keys, and a block without optimizer or scheduler gets the Trainer's. Differences: docs/config.md.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config_reader.h"
#include "core/config/train_config.h"

namespace fts::config_detail {

// The Trainer's names the training section accepts.
const std::vector<std::string>& trainerArgumentKeys();

// Reads those keys of the training section (path "training") into `out`.
void parseTrainerArguments(const json& training, IssueList& issues, TrainerArguments& out);

// The model's hidden size for the bucket sizes, or nullopt with `why` set.
using HiddenSizeSource = std::function<std::optional<int64_t>(std::string& why)>;

// What filling did beyond the block itself.
struct TrainerFill {
    json block;                         // the deepspeed block with every "auto" the Trainer fills filled
    bool bf16AtRunStart = false;        // training.bf16 "auto" decides bf16.enabled on the device
    std::optional<double> warmupRatio;  // warm-up as a fraction of steps not known yet (epochs)
};

// HfTrainerDeepSpeedConfig's fill_match / fill_only over `block` (at key path "deepspeed"). maxSteps 0: the
// total is known at run start, so total_num_steps stays "auto" (the block parser takes it from the run).
TrainerFill fillTrainerAutos(const json& block, const TrainerArguments& args, int worldSize, int64_t maxSteps,
                             const HiddenSizeSource& hiddenSize, IssueList& issues);

// After the block is parsed: the Trainer's optimizer values where the block has no optimizer, the Trainer's
// scheduler (lr_scheduler_type, warm-up) where it has no scheduler, the deferred warm-up fraction and bf16.
void applyTrainerArguments(const json& block, const TrainerArguments& args, const TrainerFill& fill, int64_t maxSteps,
                           IssueList& issues, DeepSpeedConfig& ds);

// The Trainer keys of the resolved training section (configToResolvedJson), as given: parsing the resolved config
// again finds the same values (they equal the resolved deepspeed block's, so no mismatch).
void trainerArgumentsToJson(const TrainerArguments& args, json& training);

}  // namespace fts::config_detail
