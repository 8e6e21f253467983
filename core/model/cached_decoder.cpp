// The attention bias of a cached (incremental) forward; see cached_decoder.h.
#include "core/model/cached_decoder.h"

#include "core/model/hf_model.h"
#include "core/util/error.h"

namespace fts {

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
