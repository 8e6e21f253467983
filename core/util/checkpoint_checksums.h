// checksums.json in a checkpoint folder: the xxh3-64 of every other file in it, so a damaged checkpoint (a torn
// disk write, a bit flip, a file truncated by a copy) is found on load instead of training on garbage.
//   {"algorithm": "xxh3-64", "files": {"model.safetensors": "0f3c...", "trainer_state.json": "...", ...}}
// Files the saver wrote itself carry the checksum AtomicFileWriter computed as the bytes passed; the others
// (other ranks' shards moved in) are hashed once. Checkpoints written before this file existed have none and are
// accepted as they are.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fts {

inline constexpr const char* kChecksumsFile = "checksums.json";

// Writes <dir>/checksums.json covering every regular file in `dir` (but itself): `known` gives checksums already
// computed by name; the rest are read and hashed.
void writeCheckpointChecksums(const std::filesystem::path& dir, const std::map<std::string, uint64_t>& known);

// What is wrong with a checkpoint folder's files, one line each ("<file>: checksum mismatch: the file is damaged",
// "<file>: missing"); empty when every listed file matches or the folder has no checksums.json.
std::vector<std::string> checkpointDamage(const std::filesystem::path& dir);

// The newest checkpoint of outputDir whose files are intact. Each newer damaged one is reported through
// `report` (its folder and what is wrong) and skipped. Empty when there is no intact checkpoint.
std::filesystem::path newestIntactCheckpoint(
    const std::filesystem::path& outputDir,
    const std::function<void(const std::filesystem::path&, const std::string&)>& report);

}  // namespace fts
