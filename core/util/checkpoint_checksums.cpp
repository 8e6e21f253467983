// The checkpoint checksum manifest (see checkpoint_checksums.h).
#include "core/util/checkpoint_checksums.h"

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/atomic_file_writer.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts {
namespace fs = std::filesystem;

void writeCheckpointChecksums(const fs::path& dir, const std::map<std::string, uint64_t>& known) {
    nlohmann::json files = nlohmann::json::object();
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file() || name == kChecksumsFile) continue;
        const auto it = known.find(name);
        files[name] = checksumHex(it != known.end() ? it->second : fileChecksum(e.path()));
    }
    writeFileAtomic(dir / kChecksumsFile, nlohmann::json{{"algorithm", "xxh3-64"}, {"files", files}}.dump(2) + "\n");
}

std::vector<std::string> checkpointDamage(const fs::path& dir) {
    const fs::path manifest = dir / kChecksumsFile;
    std::error_code ec;
    if (!fs::exists(manifest, ec)) return {};
    nlohmann::json doc;
    try {
        doc = parseJson(readFile(manifest));
    } catch (const std::exception& e) {
        return {manifest.string() + ": unreadable (" + e.what() + ")"};
    }
    // No value(key, default): it throws when the key holds another type (fuzz_checkpoint_state: "algorithm": 4).
    const auto algorithm = doc.is_object() ? doc.find("algorithm") : doc.end();
    if (!doc.is_object() || algorithm == doc.end() || !algorithm->is_string() || *algorithm != "xxh3-64" ||
        !doc.contains("files") || !doc["files"].is_object())
        return {manifest.string() + ": expected {\"algorithm\": \"xxh3-64\", \"files\": {name: checksum}}"};
    std::vector<std::string> problems;
    for (const auto& [name, want] : doc["files"].items()) {
        const fs::path file = dir / name;
        if (name.find('/') != std::string::npos || name == ".." || !want.is_string()) {
            problems.push_back(manifest.string() + ": bad entry \"" + name + "\"");
            continue;
        }
        if (!fs::is_regular_file(file, ec)) {
            problems.push_back(file.string() + ": missing");
            continue;
        }
        try {
            if (checksumHex(fileChecksum(file)) != want.get<std::string>())
                problems.push_back(file.string() + ": checksum mismatch: the file is damaged");
        } catch (const Error& e) {
            problems.push_back(e.what());
        }
    }
    return problems;
}

fs::path newestIntactCheckpoint(const fs::path& outputDir,
                                const std::function<void(const fs::path&, const std::string&)>& report) {
    // The checkpoint `latest` names (what resume has always taken), then the older ones, newest first.
    const fs::path latest = latestCheckpoint(outputDir);
    if (latest.empty()) return {};
    std::vector<fs::path> candidates{latest};
    const std::vector<fs::path> all = listCheckpoints(outputDir);
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (it->filename().string() < latest.filename().string()) candidates.push_back(*it);
    for (const fs::path& dir : candidates) {
        const std::vector<std::string> damage = checkpointDamage(dir);
        if (damage.empty()) return dir;
        std::string text;
        for (const std::string& d : damage) text += (text.empty() ? "" : "; ") + d;
        if (report) report(dir, text);
    }
    return {};
}

}  // namespace fts
