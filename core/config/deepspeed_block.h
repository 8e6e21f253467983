// Internal: the "deepspeed" block of the training config, read with DeepSpeed 0.19.8's own rules (batch
// triple resolution and assertions, fp16/bf16, optimizer, scheduler, ZeRO stage) and written back resolved.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>

#include "core/config/config_reader.h"
#include "core/config/train_config.h"

namespace fts::config_detail {

// Reads the block at key path "deepspeed". maxSteps (training.max_steps, 0 = unknown) resolves a
// missing scheduler total_num_steps. Every problem goes to `issues`; the result is meaningful only when
// no error was recorded.
// Relative paths in it (offload nvme_path) resolve against baseDir.
DeepSpeedConfig parseDeepSpeedBlock(const json& block, int worldSize, int64_t maxSteps, IssueList& issues,
                                    const std::filesystem::path& baseDir = {});

// The resolved block: every key DeepSpeed would need to reproduce `ds`, nothing Finetune Studio ignores.
json deepSpeedToJson(const DeepSpeedConfig& ds);

const char* schedulerTypeName(SchedulerType type);  // "WarmupLR", ...; "" for None

}  // namespace fts::config_detail
