// Where checkpoints live, torch-free (the supervisor needs it too):
// <output_dir>/checkpoints/step-NNNNNNNN/ and <output_dir>/checkpoints/latest naming the newest one.
// Each checkpoint's trainer_state.json records the run id that wrote it: a folder belongs to the run whose
// checkpoints it holds, rotation deletes only a run's own, and a new run refuses a folder another run holds.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fts {

std::string checkpointDirName(int64_t step);  // "step-00000100"
// The newest complete checkpoint under outputDir/checkpoints (empty path when there is none).
std::filesystem::path latestCheckpoint(const std::filesystem::path& outputDir);
// Every complete checkpoint folder under outputDir/checkpoints (a trainer_state.json inside), oldest first.
std::vector<std::filesystem::path> listCheckpoints(const std::filesystem::path& outputDir);
// The run id a checkpoint folder's trainer_state.json records; -1 when it cannot be read or records none.
int64_t checkpointRunId(const std::filesystem::path& checkpointDir);
// Name of the temporary folder a save by run `runId` builds before renaming it to `finalName`, and whether a
// folder name is such a leftover of `runId` (an interrupted save: safe to delete for that run only).
std::string checkpointTempName(const std::string& finalName, int64_t runId, uint32_t nonce);
bool isCheckpointTempOf(const std::string& folderName, int64_t runId);

}  // namespace fts
