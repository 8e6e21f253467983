// Checkpoint folder naming and lookup (see checkpoint_dir.h).
#include "core/util/checkpoint_dir.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/json_parse.h"

namespace fts {
namespace fs = std::filesystem;

std::string checkpointDirName(int64_t step) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "step-%08lld", static_cast<long long>(step));
    return buf;
}

fs::path latestCheckpoint(const fs::path& outputDir) {
    const fs::path root = outputDir / "checkpoints";
    std::error_code ec;
    const fs::path latest = root / "latest";
    if (fs::exists(latest, ec)) {
        std::string name = readFile(latest);
        while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
        fs::path dir = root / name;
        if (!name.empty() && fs::exists(dir / "trainer_state.json", ec)) return dir;
    }
    // Fall back to the newest complete step folder (a crash between the rename and the update of latest).
    fs::path best;
    if (fs::exists(root, ec))
        for (const auto& e : fs::directory_iterator(root)) {
            const std::string n = e.path().filename().string();
            if (e.is_directory() && n.rfind("step-", 0) == 0 && n.find('.') == std::string::npos &&
                fs::exists(e.path() / "trainer_state.json", ec) && (best.empty() || n > best.filename().string()))
                best = e.path();
        }
    return best;
}

std::vector<fs::path> listCheckpoints(const fs::path& outputDir) {
    const fs::path root = outputDir / "checkpoints";
    std::vector<fs::path> found;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return found;
    for (const auto& e : fs::directory_iterator(root, ec)) {
        const std::string n = e.path().filename().string();
        if (e.is_directory(ec) && n.rfind("step-", 0) == 0 && n.find('.') == std::string::npos &&
            fs::exists(e.path() / "trainer_state.json", ec))
            found.push_back(e.path());
    }
    std::sort(found.begin(), found.end());  // step-%08d: the names sort by step
    return found;
}

int64_t checkpointRunId(const fs::path& checkpointDir) {
    try {
        const auto state = parseJson(readFile(checkpointDir / "trainer_state.json"));
        const auto it = state.find("run_id");
        return it != state.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
    } catch (const std::exception&) {
        return -1;
    }
}

std::string checkpointTempName(const std::string& finalName, int64_t runId, uint32_t nonce) {
    return finalName + ".tmp-run" + std::to_string(runId) + "-" + std::to_string(nonce);
}

bool isCheckpointTempOf(const std::string& folderName, int64_t runId) {
    const std::string tag = ".tmp-run" + std::to_string(runId) + "-";
    return folderName.rfind("step-", 0) == 0 && folderName.find(tag) != std::string::npos;
}

}  // namespace fts
