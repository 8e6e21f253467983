// Byte-pair-encoding model with HF's semantics: initial symbols are the piece's characters (with
// continuing_subword_prefix / end_of_word_suffix, byte_fallback to <0xXX> tokens, unk fusing), then
// merges are applied lowest rank first (leftmost on ties) through a priority queue, exactly as HF's
// Word::merge_all. Results are cached per piece in a sharded cache (64 shards, each with its own lock
// and bounded size, cleared when full), so concurrent encodes rarely contend. Dropout is rejected.
#pragma once
#include "core/data/tokenizer_model.h"

#include <array>
#include <shared_mutex>
#include <unordered_map>

namespace fts::tok {

class BpeModel final : public TokenizerModel {
public:
    static std::unique_ptr<BpeModel> fromJson(const nlohmann::json& spec, const JsonContext& ctx);

    void tokenize(std::string_view piece, std::vector<int32_t>& out) const override;
    std::optional<int32_t> tokenToId(std::string_view token) const override;
    const std::string* idToToken(int32_t id) const override;
    int32_t idLimit() const override { return static_cast<int32_t>(m_tokens.size()); }
    int32_t vocabCount() const override { return static_cast<int32_t>(m_vocab.size()); }

    static constexpr size_t kCacheShards = 64;
    static constexpr size_t kCacheShardCapacity = 1024;  // entries per shard
    static constexpr size_t kCacheMaxBytes = 256;        // longer pieces are not cached

private:
    struct MergeValue {
        uint32_t rank;
        int32_t newId;
    };
    static uint64_t pairKey(int32_t a, int32_t b) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    }
    const MergeValue* findMerge(int32_t a, int32_t b) const {
        auto it = m_merges.find(pairKey(a, b));
        return it == m_merges.end() ? nullptr : &it->second;
    }
    int32_t lookup(std::string_view s) const {
        auto it = m_vocab.find(s);
        return it == m_vocab.end() ? -1 : it->second;
    }
    void mergeWord(std::string_view word, std::vector<int32_t>& out) const;

    std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> m_vocab;
    std::vector<std::string> m_tokens;  // id -> token ("" for ids the vocabulary skips)
    std::vector<uint8_t> m_hasToken;
    std::vector<int32_t> m_bmpCharId;  // code point (< 0x10000) -> id of the one-character token, -1
    std::unordered_map<uint64_t, MergeValue> m_merges;
    std::array<int32_t, 256> m_byteFallbackIds{};
    std::string m_unkToken;
    bool m_hasUnk = false;
    std::string m_prefix;  // continuing_subword_prefix
    std::string m_suffix;  // end_of_word_suffix
    bool m_fuseUnk = false;
    bool m_byteFallback = false;
    bool m_ignoreMerges = false;
    std::string m_file;

    struct alignas(64) CacheShard {
        std::shared_mutex mutex;
        std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> map;
    };
    mutable std::array<CacheShard, kCacheShards> m_cache;
};

}  // namespace fts::tok
