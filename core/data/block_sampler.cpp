// Epoch permutations are regenerated on demand from deriveSeed(seed, epoch); nothing but
// (epoch, position) needs saving to resume.
#include "core/data/block_sampler.h"

#include "core/data/seeded_shuffle.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"

#include <limits>
#include <string>

namespace fts {

nlohmann::json SamplerState::toJson() const {
    return {{"epoch", epoch}, {"position", position}, {"num_blocks", numBlocks},
            {"seed", seed},   {"rank", rank},         {"world_size", worldSize}};
}

SamplerState SamplerState::fromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw FormatError("sampler state: expected a JSON object, found " + jsonForMessage(j));
    constexpr std::string_view kWhere = "sampler state";
    SamplerState s;
    s.epoch = requiredField<int64_t>(j, "epoch", kWhere);
    s.position = requiredField<int64_t>(j, "position", kWhere);
    s.numBlocks = requiredField<int64_t>(j, "num_blocks", kWhere);
    s.seed = requiredField<uint64_t>(j, "seed", kWhere);
    s.rank = requiredField<int>(j, "rank", kWhere);
    s.worldSize = requiredField<int>(j, "world_size", kWhere);
    return s;
}

BlockSampler::BlockSampler(int64_t numBlocks, uint64_t seed, int rank, int worldSize)
    : m_numBlocks(numBlocks), m_seed(seed), m_rank(rank), m_worldSize(worldSize) {
    if (worldSize < 1 || rank < 0 || rank >= worldSize)
        throw Error("block sampler: rank " + std::to_string(rank) + " is out of range for world size " +
                    std::to_string(worldSize));
    if (numBlocks < worldSize)
        throw Error("block sampler: " + std::to_string(numBlocks) + " training block(s) cannot feed " +
                    std::to_string(worldSize) + " rank(s); use more data or a smaller max_length");
    if (numBlocks > static_cast<int64_t>(std::numeric_limits<uint32_t>::max()))
        throw Error("block sampler: " + std::to_string(numBlocks) + " blocks exceed the supported 2^32");
    m_perEpoch = (numBlocks - rank + worldSize - 1) / worldSize;
    loadEpoch(0);
}

std::vector<uint32_t> BlockSampler::epochPermutation(int64_t numBlocks, uint64_t seed, int64_t epoch) {
    return seededPermutation<uint32_t>(static_cast<size_t>(numBlocks), deriveSeed(seed, static_cast<uint64_t>(epoch)));
}

void BlockSampler::loadEpoch(int64_t epoch) {
    m_permutation = epochPermutation(m_numBlocks, m_seed, epoch);
    m_epoch = epoch;
}

int64_t BlockSampler::next() {
    if (m_position >= m_perEpoch) {
        loadEpoch(m_epoch + 1);
        m_position = 0;
    }
    const int64_t slot = m_rank + m_position * m_worldSize;
    ++m_position;
    return m_permutation[static_cast<size_t>(slot)];
}

SamplerState BlockSampler::state() const {
    constexpr std::string_view kWhere = "sampler state";
    SamplerState s;
    s.epoch = m_epoch;
    s.position = m_position;
    s.numBlocks = m_numBlocks;
    s.seed = m_seed;
    s.rank = m_rank;
    s.worldSize = m_worldSize;
    return s;
}

void BlockSampler::restore(const SamplerState& s) {
    if (s.numBlocks != m_numBlocks || s.seed != m_seed || s.rank != m_rank || s.worldSize != m_worldSize)
        throw Error("block sampler: the saved state is for " + std::to_string(s.numBlocks) + " blocks, seed " +
                    std::to_string(s.seed) + ", rank " + std::to_string(s.rank) + " of " + std::to_string(s.worldSize) +
                    "; this run has " + std::to_string(m_numBlocks) + " blocks, seed " + std::to_string(m_seed) +
                    ", rank " + std::to_string(m_rank) + " of " + std::to_string(m_worldSize) +
                    " (the data, seed or world size changed)");
    if (s.epoch < 0 || s.position < 0 || s.position > m_perEpoch)
        throw Error("block sampler: saved position " + std::to_string(s.position) + " of epoch " +
                    std::to_string(s.epoch) + " is out of range (" + std::to_string(m_perEpoch) + " blocks per epoch)");
    if (s.epoch != m_epoch) loadEpoch(s.epoch);
    m_position = s.position;
}

}  // namespace fts
