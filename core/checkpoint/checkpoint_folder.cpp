// Atomic single-rank checkpoints (see checkpoint_folder.h). Layout:
//   <output_dir>/checkpoints/step-00000100/{config.json, model.safetensors, optimizer.safetensors,
//                                          rng.safetensors, trainer_state.json, tokenizer files}
//   <output_dir>/checkpoints/latest      (text: the folder name of the newest complete checkpoint)
#include "core/checkpoint/checkpoint_folder.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"
#include "core/util/checkpoint_checksums.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "core/util/owner_only.h"
#include "core/util/json_parse.h"

namespace fts {
namespace fs = std::filesystem;

uint64_t writeTensorFile(const fs::path& file, const TensorList& tensors) {
    std::vector<NamedTensor> named;
    named.reserve(tensors.size());
    for (const auto& [name, t] : tensors) named.push_back({name, t});
    return saveSafetensors(file, named);
}

TensorList readTensorFile(const fs::path& file) {
    if (!fs::exists(file)) throw IoError(file.string() + ": missing from the checkpoint");
    TensorList out;
    for (auto& [name, t] : loadSafetensors(file)) out.emplace_back(name, t);
    return out;
}

nlohmann::json readTrainerState(const fs::path& dir) {
    const fs::path file = dir / "trainer_state.json";
    if (!fs::exists(file)) throw IoError(file.string() + ": missing; the checkpoint is incomplete");
    try {
        auto st = parseJson(readFile(file));
        for (const char* key : {"step", "optimizer_step", "train_blocks", "sampler"})
            if (!st.contains(key)) throw FormatError(file.string() + ": key \"" + key + "\" is missing");
        return st;
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(file.string() + ": not valid JSON: " + e.what());
    }
}

fs::path saveCheckpoint(const fs::path& outputDir, int64_t step, const CheckpointContents& c, int64_t keep) {
    const fs::path root = outputDir / "checkpoints";
    createOwnerOnlyDirectory(root);  // weights and trainer state: the owner's only (core/util/owner_only.h)
    const int64_t runId = c.trainerState.value("run_id", int64_t(0));
    const std::string name = checkpointDirName(step);
    const fs::path target = root / name;
    const fs::path tmp = root / checkpointTempName(name, runId, std::random_device{}());
    fs::create_directories(tmp);
    try {
        // The large files' checksums come from their writers; the small ones are hashed when the manifest is made.
        std::map<std::string, uint64_t> sums = c.movedInChecksums;
        writeFileAtomic(tmp / "config.json", c.hfConfig.dump(2) + "\n");
        if (!c.modelTensors.empty())
            sums["model.safetensors"] = writeTensorFile(tmp / "model.safetensors", c.modelTensors);
        if (c.writeExtra) c.writeExtra(tmp);
        if (!c.optimizerTensors.empty() || c.movedIn.empty())
            sums["optimizer.safetensors"] = writeTensorFile(tmp / "optimizer.safetensors", c.optimizerTensors);
        for (const auto& f : c.movedIn) {
            if (!fs::exists(f)) throw IoError(f.string() + ": missing (a rank did not write its optimizer shard)");
            fs::rename(f, tmp / f.filename());
        }
        sums["rng.safetensors"] = writeTensorFile(tmp / "rng.safetensors", c.rngTensors);
        for (const auto& f : c.tokenizerFiles) writeFileAtomic(tmp / f.filename(), readFile(f));
        writeFileAtomic(tmp / "trainer_state.json", c.trainerState.dump(2) + "\n");
        writeCheckpointChecksums(tmp, sums);
        renameDirAtomic(tmp, target);
    } catch (...) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw;
    }
    writeFileAtomic(root / "latest", name + "\n");
    if (keep > 0) pruneOwnCheckpoints(outputDir, runId, target, keep);
    return target;
}

void pruneOwnCheckpoints(const fs::path& outputDir, int64_t runId, const fs::path& newest, int64_t keep) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(outputDir / "checkpoints", ec))  // this run's interrupted saves
        if (e.is_directory(ec) && isCheckpointTempOf(e.path().filename().string(), runId)) fs::remove_all(e.path(), ec);
    std::vector<fs::path> own;
    for (const fs::path& dir : listCheckpoints(outputDir))
        if (checkpointRunId(dir) == runId) own.push_back(dir);
    for (size_t i = 0; i + size_t(keep) < own.size(); ++i)
        if (own[i] != newest) fs::remove_all(own[i]);
}

}  // namespace fts
