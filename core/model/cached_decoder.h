// Incremental decoding for generation (core/generate): a causal LM that keeps the keys and values of the tokens it
// has seen, so each new token costs one position instead of the whole sequence. The decoder-only architectures
// (GPT-2, Llama, Mistral, Qwen2) implement it next to LanguageModel; a LoRA adapter applies as in forward().
// Invariant: forwardCached over a prompt and then one token at a time gives, at each step, the last-position logits
// forward() gives for the whole sequence so far (tests/core/generate).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace fts {

// Keys and values per layer, (B, kv heads, L, head_dim) each, after RoPE where the model has it. Empty before the
// first call. Rows are sequences; a row's padding keys stay in the cache and are masked by keyMask.
struct KvCache {
    std::vector<torch::Tensor> keys, values;
    int64_t length() const { return keys.empty() || !keys[0].defined() ? 0 : keys[0].size(2); }
    void clear() { keys.clear(), values.clear(); }
    // Keeps only these rows (batch indices, int64), e.g. to drop the sequences that have finished.
    void selectRows(const torch::Tensor& rows) {
        for (auto* v : {&keys, &values})
            for (auto& t : *v) t = t.index_select(0, rows.to(t.device()));
    }
};

class CachedDecoder {
public:
    virtual ~CachedDecoder() = default;
    // inputIds (B, T) int64: the next T tokens of every row; positionIds (B, T) int64: their positions (a left-padded
    // row's first token is at 0); keyMask (B, L + T) int64 with L = cache.length(): 1 where a key is a token, 0 where
    // it is padding. Attention is causal over cache order (and within the sliding window where the model has one).
    // Appends this call's keys and values to the cache and returns the logits of each row's last token, (B, V)
    // (what generation samples from; the lm_head is not run over the whole prompt).
    virtual torch::Tensor forwardCached(const torch::Tensor& inputIds, const torch::Tensor& positionIds,
                                        const torch::Tensor& keyMask, KvCache& cache) = 0;
    // A length N > 0 at which the cache goes stale: once the sequence (padding included) reaches N + 1 tokens with a
    // cache of at most N, generation drops the cache and runs the whole sequence again (Phi-3's LongRoPE switches to
    // its long factors past N = original_max_position_embeddings, as transformers' Phi3 generation does). 0: never.
    virtual int64_t cacheRecomputeLength() const { return 0; }
};

// Appends one layer's new keys and values (B, K, T, D) to the cache and replaces k and v with the layer's whole
// cache (B, K, L + T, D), what attention reads.
void appendToCache(KvCache& cache, size_t layer, torch::Tensor& k, torch::Tensor& v);

}  // namespace fts
