// HF hub cache lookup (see hf_cache.h): cache folder precedence as huggingface_hub's constants, then
// refs/<revision> -> snapshots/<commit>, or a commit hash given directly as the revision.
#include "core/config/hf_cache.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

std::string envValue(const std::map<std::string, std::string>* env, const char* name) {
    if (env) {
        auto it = env->find(name);
        return it == env->end() ? std::string() : it->second;
    }
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool validPart(const std::string& s) {
    if (s.empty() || s == "." || s == ".." || s.find("..") != std::string::npos) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
    return true;
}

}  // namespace

bool looksLikeHfModelId(const std::string& s) {
    const std::string repo = s.substr(0, s.find('@'));
    const size_t slash = repo.find('/');
    if (slash == std::string::npos || repo.find('/', slash + 1) != std::string::npos) return false;
    if (s.find('@') != std::string::npos && s.size() == repo.size() + 1) return false;
    return validPart(repo.substr(0, slash)) && validPart(repo.substr(slash + 1));
}

std::vector<fs::path> hfHubCacheDirs(const std::map<std::string, std::string>* env) {
    std::vector<fs::path> dirs;
    auto add = [&](const fs::path& p) {
        if (!p.empty() && std::find(dirs.begin(), dirs.end(), p) == dirs.end()) dirs.push_back(p);
    };
    add(envValue(env, "HF_HUB_CACHE"));
    add(envValue(env, "HUGGINGFACE_HUB_CACHE"));
    if (const std::string home = envValue(env, "HF_HOME"); !home.empty()) add(fs::path(home) / "hub");
    if (const std::string xdg = envValue(env, "XDG_CACHE_HOME"); !xdg.empty())
        add(fs::path(xdg) / "huggingface" / "hub");
    else if (const std::string home = envValue(env, "HOME"); !home.empty())
        add(fs::path(home) / ".cache" / "huggingface" / "hub");
    return dirs;
}

fs::path resolveHfCachedModel(const std::string& id, const std::map<std::string, std::string>* env) {
    if (!looksLikeHfModelId(id))
        throw ConfigError("\"" + id + "\" is not a Hugging Face model id (expected org/name[@revision])");
    const size_t at = id.find('@');
    const std::string repo = id.substr(0, at);
    const std::string revision = at == std::string::npos ? "main" : id.substr(at + 1);
    std::string folder = "models--" + repo;
    folder.replace(folder.find('/'), 1, "--");
    std::vector<std::string> looked;
    std::error_code ec;
    for (const fs::path& cache : hfHubCacheDirs(env)) {
        const fs::path repoDir = cache / folder;
        if (!fs::is_directory(repoDir, ec)) {
            looked.push_back(repoDir.string() + " (not found)");
            continue;
        }
        std::string commit;
        const fs::path ref = repoDir / "refs" / revision;
        if (fs::is_regular_file(ref, ec)) {
            std::ifstream in(ref);
            std::getline(in, commit);
            while (!commit.empty() && std::isspace(static_cast<unsigned char>(commit.back()))) commit.pop_back();
        } else if (fs::is_directory(repoDir / "snapshots" / revision, ec)) {
            commit = revision;  // a commit hash given directly
        }
        if (!commit.empty()) {
            const fs::path snap = repoDir / "snapshots" / commit;
            if (fs::is_directory(snap, ec)) return snap;
            looked.push_back(ref.string() + " points to " + commit + ", but " + snap.string() + " is missing");
            continue;
        }
        std::string present;
        for (const auto& e : fs::directory_iterator(repoDir / "snapshots", ec))
            present += (present.empty() ? "" : ", ") + e.path().filename().string();
        looked.push_back(repoDir.string() + " has no refs/" + revision +
                         " and no snapshot named so (snapshots: " + (present.empty() ? "none" : present) + ")");
    }
    std::string msg = "model \"" + id +
                      "\" is not in the local Hugging Face cache (nothing is downloaded; run "
                      "`huggingface-cli download " +
                      repo + "` first or give a model folder). Looked in:";
    if (looked.empty()) msg += "\n  - no cache folder (HF_HUB_CACHE, HF_HOME and HOME are all unset)";
    for (const auto& l : looked) msg += "\n  - " + l;
    throw IoError(msg);
}

}  // namespace fts
