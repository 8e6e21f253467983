// training.objective's preference settings: the "preference" section (TRL 1.16's DPOConfig / ORPOConfig /
// CPOConfig names) read into PreferenceSection and written back, and the rules that relate it to the other
// sections; internal to core/config (train_config.cpp calls it).
#pragma once
#include <filesystem>

#include "core/config/config_reader.h"
#include "core/config/train_config.h"

namespace fts::config_detail {

// The preference objectives ("sft" is not one): dpo, orpo, simpo, kto.
bool isPreferenceObjective(const std::string& objective);

// Reads the "preference" object. Each key is checked against what the objective uses (a DPO key under "orpo" is a
// warning naming it, as is the whole section under "sft"); the keys TRL 1.16 removed are read as older TRL did.
void parsePreference(const json& v, const std::string& objective, const std::filesystem::path& baseDir,
                     IssueList& issues, PreferenceSection& out);

// The cross-section rules once every section is read: a preference objective needs pairs in an instruction layout
// (data.format "lm" becomes "auto" when not written; "classification", packing and a classifier are refused), and
// data.format "trl" needs a preference objective.
void checkPreferenceFits(const json& doc, TrainConfig& cfg, IssueList& issues);

json preferenceToJson(const std::string& objective, const PreferenceSection& p);

}  // namespace fts::config_detail
