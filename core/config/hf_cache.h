// Finds a model named by Hugging Face id ("org/name", optionally "org/name@revision") in the local HF hub cache,
// laid out as huggingface_hub writes it: <cache>/models--org--name/{refs/<revision>, snapshots/<commit>/}.
// Invariant: torch-free and read-only; the cache is never written or downloaded into.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fts {

// True for strings shaped like an HF repo id: "name" parts of [A-Za-z0-9._-] joined by exactly one '/',
// with an optional "@revision"; not absolute, no "..", no "./" prefix.
bool looksLikeHfModelId(const std::string& s);

// The hub cache folders to search, in order: $HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE (legacy), $HF_HOME/hub,
// then $XDG_CACHE_HOME/huggingface/hub or ~/.cache/huggingface/hub (huggingface_hub's defaults).
// `env` replaces the process environment when non-null (tests).
std::vector<std::filesystem::path> hfHubCacheDirs(const std::map<std::string, std::string>* env = nullptr);

// The snapshot folder for `id` ("org/name[@revision]", revision default "main": a ref name or a commit hash).
// Throws IoError listing every place it looked (and the snapshots present) when the model is not cached.
std::filesystem::path resolveHfCachedModel(const std::string& id,
                                           const std::map<std::string, std::string>* env = nullptr);

}  // namespace fts
