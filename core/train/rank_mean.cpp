// Means over the ranks (see rank_mean.h): one all-reduce of the sums and the counts.
#include "core/train/rank_mean.h"

#include <torch/torch.h>

#include <cmath>

#include "core/dist/communicator.h"

namespace fts {

std::vector<double> meanOverRanks(Communicator& comm, std::vector<double> v) {
    if (comm.worldSize() <= 1 || v.empty()) return v;
    const auto n = int64_t(v.size());
    auto t = torch::zeros({2 * n}, torch::kFloat64);  // sums, then counts
    for (int64_t k = 0; k < n; ++k)
        if (std::isfinite(v[size_t(k)])) {
            t[k] = v[size_t(k)];
            t[n + k] = 1.0;
        }
    comm.allReduce(t);
    for (int64_t k = 0; k < n; ++k) {
        const double count = t[n + k].item<double>();
        v[size_t(k)] = count > 0 ? t[k].item<double>() / count : std::nan("");
    }
    return v;
}

NamedValues meanOverRanks(Communicator& comm, NamedValues m) {
    std::vector<double> v;
    for (const auto& [name, value] : m) v.push_back(value);
    v = meanOverRanks(comm, std::move(v));
    size_t k = 0;
    for (auto& [name, value] : m) value = v[k++];
    return m;
}

}  // namespace fts
