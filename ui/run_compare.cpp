// Compare logic: curves, smoothing, config diff and run summaries (see run_compare.h).
#include "ui/run_compare.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "core/config/train_config.h"
#include "core/util/json_parse.h"

namespace fts {
namespace {

void flattenInto(const nlohmann::json& v, const QString& prefix, std::vector<std::pair<QString, QString>>& out) {
    if (v.is_object() && !v.empty()) {
        for (auto it = v.begin(); it != v.end(); ++it) {
            const QString key = QString::fromStdString(it.key());
            flattenInto(it.value(), prefix.isEmpty() ? key : prefix + QLatin1Char('.') + key, out);
        }
        return;
    }
    if (v.is_array() && !v.empty()) {
        for (size_t i = 0; i < v.size(); ++i) flattenInto(v[i], prefix + QStringLiteral("[%1]").arg(i), out);
        return;
    }
    out.emplace_back(prefix, QString::fromStdString(v.dump()));
}

QString csvField(const QString& s) {
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
    QString q = s;
    q.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

QString number(double v) { return QString::number(v, 'g', 10); }

}  // namespace

CompareCurve compareCurve(const CompareRunData& data, const std::string& metric, CompareXAxis axis) {
    std::map<int64_t, double> tokensAt, elapsedAt;
    double firstTime = 0;
    for (const MetricPoint& p : data.metrics) {
        if (axis == CompareXAxis::TokensSeen && p.name == "tokens_seen" && std::isfinite(p.value))
            tokensAt[p.step] = p.value;
        if (axis == CompareXAxis::WallTime && p.name == "elapsed_s" && std::isfinite(p.value))
            elapsedAt[p.step] = p.value;
        if (p.time > 0 && (firstTime == 0 || p.time < firstTime)) firstTime = p.time;
    }
    // Runs without elapsed_s (recorded before it existed): seconds since the first point (a resumed run's
    // startedAt is its last start, which would put its earlier points below zero).
    const double t0 =
        data.run.startedAt > 0 && (firstTime == 0 || data.run.startedAt < firstTime) ? data.run.startedAt : firstTime;
    // The training time at a step: elapsed_s there, else at the last step before it that has one (an eval
    // at a step the log interval skipped); step 0 (the baseline eval) is 0.
    const auto elapsedAtStep = [&](int64_t step) -> std::optional<double> {
        if (step == 0) return 0.0;
        auto it = elapsedAt.upper_bound(step);
        if (it == elapsedAt.begin()) return std::nullopt;
        return std::prev(it)->second;
    };

    std::vector<std::pair<double, double>> pts;
    for (const MetricPoint& p : data.metrics) {
        if (p.name != metric || !std::isfinite(p.value)) continue;
        double x = 0;
        switch (axis) {
            case CompareXAxis::Step:
                x = double(p.step);
                break;
            case CompareXAxis::TokensSeen: {
                if (p.step == 0) {
                    x = 0;
                    break;
                }
                const auto it = tokensAt.find(p.step);
                if (it == tokensAt.end()) continue;
                x = it->second;
                break;
            }
            case CompareXAxis::WallTime:
                if (!elapsedAt.empty()) {  // training time: the time a run was stopped is not in it
                    const auto e = elapsedAtStep(p.step);
                    if (!e) continue;
                    x = *e;
                    break;
                }
                if (p.time <= 0) continue;
                x = p.time - t0;
                break;
        }
        pts.emplace_back(x, p.value);
    }
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    CompareCurve c;
    c.x.reserve(qsizetype(pts.size()));
    c.y.reserve(qsizetype(pts.size()));
    for (const auto& [x, y] : pts) {
        if (!c.x.isEmpty() && c.x.constLast() == x) {
            c.y.last() = y;  // the same x written twice (a re-read step): the later value wins
            continue;
        }
        c.x.push_back(x);
        c.y.push_back(y);
    }
    return c;
}

QVector<double> emaSmooth(const QVector<double>& ys, double weight) {
    const double w = std::clamp(weight, 0.0, 0.999);
    if (w == 0.0) return ys;
    QVector<double> out;
    out.reserve(ys.size());
    double acc = 0, wPow = 1;
    for (double y : ys) {
        acc = w * acc + (1.0 - w) * y;
        wPow *= w;
        out.push_back(acc / (1.0 - wPow));
    }
    return out;
}

std::vector<std::pair<QString, QString>> flattenJson(const nlohmann::json& doc) {
    std::vector<std::pair<QString, QString>> out;
    flattenInto(doc, QString(), out);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<ConfigDiffRow> configDiff(const std::vector<nlohmann::json>& configs, bool diffOnly) {
    std::map<QString, QStringList> table;  // key -> value per config
    const int n = int(configs.size());
    for (int i = 0; i < n; ++i) {
        for (auto& [key, value] : flattenJson(configs[size_t(i)])) {
            QStringList& values = table[key];
            while (values.size() < n) values.push_back(QString());
            values[i] = value;
        }
    }
    std::vector<ConfigDiffRow> rows;
    for (auto& [key, values] : table) {
        ConfigDiffRow row{key, values, false};
        for (int i = 1; i < n; ++i) row.differs = row.differs || values[i] != values[0];
        if (!diffOnly || row.differs) rows.push_back(std::move(row));
    }
    return rows;
}

std::optional<nlohmann::json> comparableConfig(const RunRecord& run, bool* resolved) {
    if (resolved) *resolved = false;
    // What the run resolved at launch (schema 4), else the stored config resolved again now.
    if (auto stored = parseJsonOrDiscarded(run.resolvedConfigJson);
        !run.resolvedConfigJson.empty() && stored.is_object()) {
        if (resolved) *resolved = true;
        return stored;
    }
    const std::filesystem::path baseDir =
        run.configPath.empty() ? std::filesystem::path() : std::filesystem::path(run.configPath).parent_path();
    try {
        const ConfigParseResult parsed = parseTrainConfigText(run.configJson, baseDir, std::max(1, run.worldSize));
        if (parsed.ok()) {
            if (resolved) *resolved = true;
            return configToResolvedJson(*parsed.config);
        }
    } catch (const std::exception&) {
        // fall back to the stored JSON
    }
    auto doc = parseJsonOrDiscarded(run.configJson);
    if (doc.is_discarded()) return std::nullopt;
    return doc;
}

RunSummary summarizeRun(const CompareRunData& data) {
    RunSummary s;
    int64_t lossStep = -1, evalStep = -1, tokStep = -1;
    std::map<std::string, int64_t> evalMetricStep;
    double tokSum = 0, lastTime = 0;
    int tokCount = 0;
    std::optional<double> lastElapsed;  // the trainer's training time at its last point
    for (const MetricPoint& p : data.metrics) {
        if (!std::isfinite(p.value)) continue;
        s.steps = std::max(s.steps, p.step);
        lastTime = std::max(lastTime, p.time);
        if (p.name == "elapsed_s") {
            lastElapsed = p.value;
        } else if (p.name == "loss" && p.step >= lossStep) {
            lossStep = p.step;
            s.finalLoss = p.value;
        } else if (p.name == "eval_loss") {
            if (p.step >= evalStep) {
                evalStep = p.step;
                s.finalEvalLoss = p.value;
            }
            if (!s.bestEvalLoss || p.value < *s.bestEvalLoss) s.bestEvalLoss = p.value;
        } else if (p.name.rfind("eval_", 0) == 0) {  // classification metrics: the last of each
            auto [it, fresh] = evalMetricStep.try_emplace(p.name, p.step);
            if (fresh || p.step >= it->second) {
                it->second = p.step;
                s.finalEvalMetrics[p.name] = p.value;
            }
        } else if (p.name == "tokens_per_s") {
            tokSum += p.value;
            ++tokCount;
        } else if (p.name == "tokens_seen" && p.step >= tokStep) {
            tokStep = p.step;
            s.tokensSeen = p.value;
        }
    }
    if (tokCount > 0) s.meanTokensPerS = tokSum / tokCount;
    for (const DeviceSample& d : data.samples) {
        const double peak = double(std::max(d.peak, d.allocated));
        if (!s.peakMemoryBytes || peak > *s.peakMemoryBytes) s.peakMemoryBytes = peak;
    }
    const auto fin = parseJsonOrDiscarded(data.run.finalMetricsJson);
    if (fin.is_object()) {
        const auto num = [&](const char* key) -> std::optional<double> {
            const auto it = fin.find(key);
            if (it == fin.end() || !it->is_number()) return std::nullopt;
            return it->get<double>();
        };
        if (!s.finalLoss) s.finalLoss = num("loss");
        if (!s.finalEvalLoss) s.finalEvalLoss = num("eval_loss");
        if (!s.bestEvalLoss) s.bestEvalLoss = s.finalEvalLoss;
        if (!s.tokensSeen) s.tokensSeen = num("tokens_seen");
    }
    s.steps = std::max(s.steps, data.run.lastStep);
    // The training time (the trainer's elapsed_s, which a resumed run carries on), else the wall time of its session.
    if (fin.is_object() && fin.contains("elapsed_s") && fin["elapsed_s"].is_number())
        lastElapsed = fin["elapsed_s"].get<double>();
    const double end = data.run.endedAt > 0 ? data.run.endedAt : lastTime;
    if (lastElapsed)
        s.durationS = *lastElapsed;
    else if (data.run.startedAt > 0 && end >= data.run.startedAt)
        s.durationS = end - data.run.startedAt;
    return s;
}

QString curvesToCsv(const QStringList& runNames, const std::vector<CompareCurve>& curves,
                    const std::vector<QVector<double>>& smoothed, const QString& xName) {
    const bool withSmoothed = !smoothed.empty();
    QString out =
        QStringLiteral("run,%1,value%2\n").arg(csvField(xName), withSmoothed ? QStringLiteral(",smoothed") : QString());
    for (size_t i = 0; i < curves.size(); ++i) {
        const QString name = csvField(i < size_t(runNames.size()) ? runNames[qsizetype(i)] : QString());
        const CompareCurve& c = curves[i];
        for (qsizetype k = 0; k < c.x.size(); ++k) {
            out += name + QLatin1Char(',') + number(c.x[k]) + QLatin1Char(',') + number(c.y[k]);
            if (withSmoothed && i < smoothed.size() && k < smoothed[i].size())
                out += QLatin1Char(',') + number(smoothed[i][k]);
            out += QLatin1Char('\n');
        }
    }
    return out;
}

}  // namespace fts
