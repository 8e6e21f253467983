// ModelStateBytes helpers and the ZeRO paper's formulas (see model_state.h).
#include "core/zero/model_state.h"

#include <algorithm>
#include <set>
#include <vector>

#include "core/config/memory_estimate.h"  // formatBytes
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

std::string modelStateTable(const ModelStateBytes& m) {
    std::set<std::string> dtypes;
    for (const auto* kind : {&m.parameters, &m.gradients, &m.optimizer})
        for (const auto& [dtype, bytes] : *kind) dtypes.insert(dtype);
    std::vector<std::vector<std::string>> rows{{""}};
    for (const std::string& d : dtypes) rows[0].push_back(d);
    rows[0].push_back("total");
    auto kindRow = [&](const char* name, const std::map<std::string, int64_t>& byDtype) {
        std::vector<std::string> row{name};
        for (const std::string& d : dtypes) row.push_back(byDtype.count(d) ? formatBytes(byDtype.at(d)) : "-");
        row.push_back(formatBytes(ModelStateBytes::sum(byDtype)));
        rows.push_back(std::move(row));
    };
    auto totalRow = [&](const char* name, int64_t bytes) {
        std::vector<std::string> row{name};
        row.resize(dtypes.size() + 1, "");
        row.push_back(formatBytes(bytes));
        rows.push_back(std::move(row));
    };
    kindRow("parameters", m.parameters);
    kindRow("gradients", m.gradients);
    kindRow("optimizer", m.optimizer);
    if (m.buckets > 0) totalRow("buckets", m.buckets);
    totalRow("on device", m.total());
    if (m.hostOffload > 0) totalRow("host offload", m.hostOffload);
    if (m.nvmeOffload > 0) totalRow("nvme offload", m.nvmeOffload);
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    std::string out;
    for (size_t r = 0; r < rows.size(); ++r) {
        std::string line = "  " + rows[r][0] + std::string(width[0] - rows[r][0].size(), ' ');
        for (size_t c = 1; c < rows[r].size(); ++c)
            line += "  " + std::string(width[c] - rows[r][c].size(), ' ') + rows[r][c];
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + (r + 1 < rows.size() ? "\n" : "");
    }
    return out;
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
