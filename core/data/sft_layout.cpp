// Sample stores, the split/shuffle plan and the sequence layout (see sft_layout.h). The layout is decided
// from lengths alone, so the token arrays can be streamed out one after the other without holding them.
#include "core/data/sft_layout.h"

#include "core/data/seeded_shuffle.h"
#include "core/util/atomic_file_writer.h"
#include "core/util/error.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace fts {
namespace {

void writeAll(int fd, const void* data, size_t bytes, const std::filesystem::path& dir) {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(fd, p, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 && (errno == ENOSPC || errno == EDQUOT))
            throw IoError(dir.string() + ": the disk is full while spilling tokenized samples for the token cache (" +
                          freeSpaceText(dir) +
                          "); free space there, or set data.cache_dir to a folder on another disk");
        if (n <= 0)
            throw IoError(dir.string() + ": cannot write the tokenized-sample spill file (" + std::strerror(errno) +
                          ")");
        p += n;
        bytes -= static_cast<size_t>(n);
    }
}

void readAll(int fd, void* data, size_t bytes, int64_t offset) {
    char* p = static_cast<char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::pread(fd, p, bytes, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw IoError(std::string("tokenized-sample spill file: read failed (") + std::strerror(errno) + ")");
        p += n;
        offset += n;
        bytes -= static_cast<size_t>(n);
    }
}

}  // namespace

void MemorySampleStore::add(SftSample&& s) {
    m_lengths.push_back(static_cast<int32_t>(s.inputIds.size()));
    m_samples.push_back(std::move(s));
}

void MemorySampleStore::read(int64_t i, std::vector<int32_t>& ids, std::vector<int32_t>& labels) const {
    const SftSample& s = m_samples[static_cast<size_t>(i)];
    ids = s.inputIds;
    labels = s.labels;
}

FileSampleStore::FileSampleStore(const std::filesystem::path& dir) : m_dir(dir) {
    std::filesystem::create_directories(dir);
    std::string name = (dir / "spill-XXXXXX").string();
    m_fd = ::mkstemp(name.data());
    if (m_fd < 0)
        throw IoError(dir.string() + ": cannot create a spill file for tokenized samples (" + std::strerror(errno) +
                      ")");
    ::unlink(name.c_str());
}

FileSampleStore::~FileSampleStore() {
    if (m_fd >= 0) ::close(m_fd);
}

void FileSampleStore::add(SftSample&& s) {
    const size_t n = s.inputIds.size();
    m_offsets.push_back(m_end);
    m_lengths.push_back(static_cast<int32_t>(n));
    writeAll(m_fd, s.inputIds.data(), n * 4, m_dir);
    writeAll(m_fd, s.labels.data(), n * 4, m_dir);
    m_end += static_cast<int64_t>(n) * 8;
}

void FileSampleStore::read(int64_t i, std::vector<int32_t>& ids, std::vector<int32_t>& labels) const {
    const auto n = static_cast<size_t>(m_lengths[static_cast<size_t>(i)]);
    ids.resize(n);
    labels.resize(n);
    readAll(m_fd, ids.data(), n * 4, m_offsets[static_cast<size_t>(i)]);
    readAll(m_fd, labels.data(), n * 4, m_offsets[static_cast<size_t>(i)] + static_cast<int64_t>(n) * 4);
}

SftPlan planSftSplit(const SftOptions& options, int64_t numSamples, int64_t numEvalFileSamples) {
    SftPlan plan;
    const auto n = static_cast<size_t>(numSamples);
    if (!options.evalPath.empty()) {
        plan.evalFromTrainStore = false;
        for (int64_t i = 0; i < numEvalFileSamples; ++i) plan.eval.push_back(i);
        for (int64_t i = 0; i < numSamples; ++i) plan.train.push_back(i);
    } else if (options.evalFraction > 0 && n > 1) {
        const auto perm = seededPermutation<int64_t>(n, deriveSeed(options.seed, 0x65766131));
        auto held = static_cast<size_t>(std::llround(options.evalFraction * static_cast<double>(n)));
        held = std::clamp<size_t>(held, 1, n - 1);
        std::vector<char> isEval(n, 0);
        for (size_t i = 0; i < held; ++i) isEval[static_cast<size_t>(perm[i])] = 1;
        for (size_t i = 0; i < n; ++i) (isEval[i] ? plan.eval : plan.train).push_back(static_cast<int64_t>(i));
    } else {
        for (int64_t i = 0; i < numSamples; ++i) plan.train.push_back(i);
    }
    if (options.shuffle && !plan.train.empty()) {
        const auto perm = seededPermutation<int64_t>(plan.train.size(), options.seed);
        std::vector<int64_t> shuffled;
        shuffled.reserve(plan.train.size());
        for (int64_t i : perm) shuffled.push_back(plan.train[static_cast<size_t>(i)]);
        plan.train.swap(shuffled);
    }
    return plan;
}

std::pair<int64_t, int64_t> writeSequences(const SampleStore& store, const std::vector<int64_t>& order,
                                           int64_t maxLength, bool packing, SequenceWriter& writer) {
    // Greedy in-order packing (samples never split), decided from lengths alone.
    std::vector<int64_t> offsets{0};
    std::vector<char> continues(order.size(), 0);  // 1: the sample follows another in its sequence
    int64_t total = 0, current = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        const int64_t n = store.length(order[k]);
        if (!packing || (current > 0 && current + n > maxLength)) {
            if (current > 0) offsets.push_back(total);
            current = 0;
        }
        continues[k] = current > 0 && n > 0;
        current += n;
        total += n;
    }
    if (current > 0) offsets.push_back(total);
    writer.offsets(offsets);

    std::vector<int32_t> ids, labels;
    for (int64_t i : order) {
        store.read(i, ids, labels);
        writer.inputIds(ids.data(), ids.size());
    }
    int64_t trainable = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        store.read(order[k], ids, labels);
        for (int32_t l : labels) trainable += l != kIgnoreLabel;
        // The first token of each packed sample predicts nothing from the previous sample.
        if (continues[k]) labels[0] = kIgnoreLabel;
        writer.labels(labels.data(), labels.size());
    }
    std::vector<int32_t> positions;
    for (int64_t i : order) {
        const auto n = static_cast<size_t>(store.length(i));
        while (positions.size() < n) positions.push_back(static_cast<int32_t>(positions.size()));
        writer.positionIds(positions.data(), n);
    }
    return {total, trainable};
}

}  // namespace fts
