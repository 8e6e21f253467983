// Variables exported on every node, as DeepSpeed's launcher exports them: the .deepspeed_env files (name
// from DS_ENV_FILE, default ".deepspeed_env") in the home folder and then the working folder (the later
// file wins), one NAME=VALUE per line; plus the launcher's own NCCL_*, GLOO_*, UCX_* and TORCH_* variables.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace fts {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// NAME=VALUE lines; blank lines and lines starting with '#' are skipped (DeepSpeed would fail on them).
// A trailing newline is not part of the value; everything after the first '=' is. Throws ConfigError
// naming the file and line for a line without '=' or a NAME that is not [A-Za-z_][A-Za-z0-9_]*.
EnvList parseDeepspeedEnv(const std::string& text, const std::string& fileName);

// The variables to export on remote nodes, in order (later entries override earlier ones):
// launcher environment (prefixes above), then ~/.deepspeed_env, then ./.deepspeed_env. `sources` gets the
// files that were read. home/cwd: where to look (the caller passes $HOME and the working folder).
EnvList nodeEnvironment(const std::filesystem::path& home, const std::filesystem::path& cwd,
                        std::vector<std::filesystem::path>* sources = nullptr);

}  // namespace fts
