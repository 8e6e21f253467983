// The attention bias of a cached (incremental) forward; see cached_decoder.h.
#include "core/model/cached_decoder.h"

#include "core/model/hf_model.h"
#include "core/util/error.h"

namespace fts {

torch::Tensor cachedAttentionBias(const torch::Tensor& keyMask, int64_t pastLength, int64_t queryLength, int64_t window,
                                  torch::ScalarType dtype) {
    const int64_t L = pastLength, T = queryLength, S = L + T;
    if (keyMask.dim() != 2 || keyMask.size(1) != S)
        throw Error("cached forward: the key mask must have shape (batch, " + std::to_string(S) + "), found " +
                    c10::str(keyMask.sizes()));
    const int64_t B = keyMask.size(0);
    const auto device = keyMask.device();
    const auto idx = torch::arange(S, torch::TensorOptions().dtype(torch::kInt64).device(device));
    const auto query = idx.narrow(0, L, T).view({T, 1});  // cache index of each query
    torch::Tensor allowed = idx.view({1, S}).le(query);   // (T, S) causal in cache order
    if (window > 0) allowed = allowed.logical_and(query - idx.view({1, S}) < window);
    allowed = allowed.view({1, 1, T, S}).logical_and(keyMask.ne(0).view({B, 1, 1, S}));
    return torch::zeros({B, 1, T, S}, torch::TensorOptions().dtype(dtype).device(device))
        .masked_fill(allowed.logical_not(), lowestOf(dtype));
}

void appendToCache(KvCache& cache, size_t layer, torch::Tensor& k, torch::Tensor& v) {
    if (cache.keys.size() <= layer) cache.keys.resize(layer + 1), cache.values.resize(layer + 1);
    torch::Tensor& keys = cache.keys[layer];
    torch::Tensor& values = cache.values[layer];
    keys = keys.defined() ? torch::cat({keys, k}, 2) : k;
    values = values.defined() ? torch::cat({values, v}, 2) : v;
    k = keys;
    v = values;
}

}  // namespace fts
