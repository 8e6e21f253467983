// Internal: the offload part of the "deepspeed" block (zero_optimization.offload_optimizer / offload_param /
// sub_group_size, their deprecated forms, and the top-level "aio" block) read with DeepSpeed 0.19.8's rules, and the
// zero_optimization keys this engine does not act on, each warned about by name when set away from DeepSpeed's
// default (the default is what the engine does). Invariant: no key is accepted in silence.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "core/config/config_reader.h"
#include "core/config/train_config.h"

namespace fts::config_detail {

// `zero`: the zero_optimization object at key path `path`; `stage` its resolved stage. Relative nvme_path values
// resolve against baseDir (the config file's folder; DeepSpeed: the working directory).
void parseZeroOffload(const json& zero, const std::string& path, int stage, const std::filesystem::path& baseDir,
                      IssueList& issues, ZeroConfig& out);
// Warns about every zero_optimization key that is valid for DeepSpeed but not used here when its value differs from
// DeepSpeed's default.
void warnUnusedZeroKeys(const json& zero, const std::string& path, IssueList& issues);
// The top-level "aio" block (absent or null: the defaults).
void parseAio(const json& block, IssueList& issues, AioConfig& out);

json offloadOptimizerToJson(const OffloadOptimizerConfig& o);
json offloadParamToJson(const OffloadParamConfig& o);
json aioToJson(const AioConfig& a);

}  // namespace fts::config_detail
