// The second half of SFT data construction, shared by the in-memory path (buildSftData) and the streaming
// token-cache writer: kept samples go to a SampleStore (memory, or an unlinked spill file so memory does not
// grow with the data), then the split/shuffle plan and the packing are computed from sample lengths alone,
// and the sequences are emitted array by array (offsets, input ids, labels, position ids) to a writer.
// Invariant: both paths produce byte-identical arrays for the same samples and options.
#pragma once
#include "core/data/sft_dataset.h"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace fts {

class SampleStore {
public:
    virtual ~SampleStore() = default;
    virtual void add(SftSample&& s) = 0;
    // ids and labels of sample i (resized to its length).
    virtual void read(int64_t i, std::vector<int32_t>& ids, std::vector<int32_t>& labels) const = 0;
    int64_t size() const { return static_cast<int64_t>(m_lengths.size()); }
    int32_t length(int64_t i) const { return m_lengths[static_cast<size_t>(i)]; }

protected:
    std::vector<int32_t> m_lengths;
};

class MemorySampleStore final : public SampleStore {
public:
    void add(SftSample&& s) override;
    void read(int64_t i, std::vector<int32_t>& ids, std::vector<int32_t>& labels) const override;

private:
    std::vector<SftSample> m_samples;
};

// Samples appended to a file created in `dir` and unlinked at once (nothing is left behind, even on a crash);
// memory holds 12 bytes per sample (offset + length).
class FileSampleStore final : public SampleStore {
public:
    explicit FileSampleStore(const std::filesystem::path& dir);
    ~FileSampleStore() override;
    FileSampleStore(const FileSampleStore&) = delete;
    FileSampleStore& operator=(const FileSampleStore&) = delete;
    void add(SftSample&& s) override;
    void read(int64_t i, std::vector<int32_t>& ids, std::vector<int32_t>& labels) const override;

private:
    int m_fd = -1;
    std::vector<int64_t> m_offsets;  // byte offset of each sample: ids then labels, int32 each
    int64_t m_end = 0;
    std::filesystem::path m_dir;
};

// Which samples go to train and eval, in layout order: without an eval file, evalFraction of them are held
// out by a seeded permutation (at least one, never all); train is then shuffled with the seed when asked.
// evalStore: the eval file's samples (their own store, file order) or nullptr.
struct SftPlan {
    std::vector<int64_t> train, eval;
    bool evalFromTrainStore = true;  // false: eval indices refer to the eval file's store
};
SftPlan planSftSplit(const SftOptions& options, int64_t numSamples, int64_t numEvalFileSamples);

// Receives one split's arrays in this order: offsets, then every input id, every label, every position id.
class SequenceWriter {
public:
    virtual ~SequenceWriter() = default;
    virtual void offsets(const std::vector<int64_t>& offsets) = 0;
    virtual void inputIds(const int32_t* p, size_t n) = 0;
    virtual void labels(const int32_t* p, size_t n) = 0;
    virtual void positionIds(const int32_t* p, size_t n) = 0;
};

// Lays the samples `order` of `store` out (packed greedily in order into maxLength when packing, else one per
// sequence) and writes them. Returns {tokens, trainable tokens (labels != -100 before packing masks the first
// label of each later sample)}.
std::pair<int64_t, int64_t> writeSequences(const SampleStore& store, const std::vector<int64_t>& order,
                                           int64_t maxLength, bool packing, SequenceWriter& writer);

// A writer that fills SftSequences.
class MemorySequenceWriter final : public SequenceWriter {
public:
    explicit MemorySequenceWriter(SftSequences& out) : m_out(out) {}
    void offsets(const std::vector<int64_t>& o) override { m_out.offsets = o; }
    void inputIds(const int32_t* p, size_t n) override { m_out.inputIds.insert(m_out.inputIds.end(), p, p + n); }
    void labels(const int32_t* p, size_t n) override { m_out.labels.insert(m_out.labels.end(), p, p + n); }
    void positionIds(const int32_t* p, size_t n) override {
        m_out.positionIds.insert(m_out.positionIds.end(), p, p + n);
    }

private:
    SftSequences& m_out;
};

// The whole construction with the given stores and writers: reads, renders and tokenizes the training file
// (and the eval file) into the stores, plans the split and shuffle, then writes train and eval. Fills stats.
// buildSftData uses memory for both; the token cache a spill file and the cache file itself.
class Tokenizer;
void buildSftSequences(const SftOptions& options, const Tokenizer& tokenizer, SampleStore& trainStore,
                       SampleStore& evalStore, SequenceWriter& train, SequenceWriter& eval, SftStats& stats);

}  // namespace fts
