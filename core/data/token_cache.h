// On-disk cache of tokenized SFT data: one binary file per key, memory-mapped on load, so a second
// run with the same data, tokenizer, template and lengths starts at once. The key is an XXH3-128
// hash of the bytes of the data files and of tokenizer.json (and tokenizer_config.json when
// present) plus every option that changes the result. The file is built streaming (samples spill to an
// unlinked file, arrays are written as they are laid out; see sft_layout.h), so memory does not grow with
// the data. Invariants: a cache file is written to a temporary name, fsynced and renamed, so readers never see a partial file; a file whose header,
// size or key does not match is ignored (rebuilt), never trusted.
#pragma once
#include "core/data/sft_dataset.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace fts {

// Read-only view of sequences laid out like SftSequences.
struct SftSequencesView {
    const int32_t* inputIds = nullptr;
    const int32_t* labels = nullptr;
    const int32_t* positionIds = nullptr;
    const int64_t* offsets = nullptr;  // size() + 1 entries
    int64_t numSequences = 0;

    int64_t size() const { return numSequences; }
    int64_t length(int64_t i) const { return offsets[i + 1] - offsets[i]; }
};

class CachedSftData {
public:
    ~CachedSftData();
    CachedSftData(const CachedSftData&) = delete;
    CachedSftData& operator=(const CachedSftData&) = delete;

    const SftSequencesView& train() const { return m_train; }
    const SftSequencesView& eval() const { return m_eval; }
    const SftStats& stats() const { return m_stats; }
    bool fromCache() const { return m_fromCache; }  // false: built in this call (and then written)
    const std::filesystem::path& file() const { return m_file; }

    // Maps a cache file; nullptr when it is missing or does not hold `key` (a stale or foreign file).
    static std::unique_ptr<CachedSftData> open(const std::filesystem::path& file, const std::string& key);

private:
    CachedSftData() = default;
    void* m_map = nullptr;
    size_t m_size = 0;
    SftSequencesView m_train, m_eval;
    SftStats m_stats;
    bool m_fromCache = true;
    std::filesystem::path m_file;
    friend std::unique_ptr<CachedSftData> loadOrBuildSftData(const SftOptions&, const Tokenizer&,
                                                             const std::filesystem::path&);
};

// Hex key of (data files, tokenizer files, template, options). Reads the data files once.
std::string sftCacheKey(const SftOptions& options, const Tokenizer& tokenizer);

// <cacheDir>/sft-<key>.bin when present and valid, else builds it streaming (the same arrays as buildSftData)
// and maps it.
std::unique_ptr<CachedSftData> loadOrBuildSftData(const SftOptions& options, const Tokenizer& tokenizer,
                                                  const std::filesystem::path& cacheDir);

}  // namespace fts
