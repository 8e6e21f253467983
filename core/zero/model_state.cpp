// ModelStateBytes helpers and the ZeRO paper's formulas (see model_state.h).
#include "core/zero/model_state.h"

#include "core/util/error.h"

namespace fts {

int64_t ModelStateBytes::sum(const std::map<std::string, int64_t>& m) {
    int64_t s = 0;
    for (const auto& [k, v] : m) s += v;
    return s;
}

nlohmann::json ModelStateBytes::toJson() const {
    return {{"parameters", parameters},   {"gradients", gradients}, {"optimizer", optimizer},
            {"buckets", buckets},         {"total", total()},       {"host_offload", hostOffload},
            {"nvme_offload", nvmeOffload}};
}

double zeroPaperBytes(int stage, double psi, int n) {
    switch (stage) {
        case 0:
            return 16.0 * psi;
        case 1:
            return 4.0 * psi + 12.0 * psi / n;
        case 2:
            return 2.0 * psi + 14.0 * psi / n;
        case 3:
            return 16.0 * psi / n;
    }
    throw ConfigError("ZeRO stage " + std::to_string(stage) + ": expected 0-3");
}

}  // namespace fts
