// Compare logic (no widgets): curves of one metric per run against step / tokens seen / wall time, EMA
// smoothing, config flattening and diff, per-run summary, CSV. Invariant: pure functions of their inputs.
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <nlohmann/json_fwd.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/store/run_store.h"

namespace fts {

enum class CompareXAxis { Step, TokensSeen, WallTime };

// What the compare page needs of one run, read from the store off the UI thread.
struct CompareRunData {
    RunRecord run;
    std::vector<MetricPoint> metrics;
    std::vector<DeviceSample> samples;
};

struct CompareCurve {
    QVector<double> x, y;  // sorted by x
};

// The curve of `metric` against the chosen x axis. TokensSeen uses the run's "tokens_seen" metric at the
// same step (step 0 is 0 tokens; points of steps without a tokens_seen value are left out). WallTime is the
// run's training time, its "elapsed_s" metric at that step (a resumed run goes on from where it stopped; the
// time it was stopped is not counted), or for runs recorded without it the seconds since its first point.
// Non-finite values are dropped.
CompareCurve compareCurve(const CompareRunData& data, const std::string& metric, CompareXAxis axis);

// Debiased exponential moving average (weight 0 = raw, 0.99 = heavy): s_i = w s_{i-1} + (1-w) y_i, divided
// by 1 - w^(i+1) so the start is not pulled towards zero. weight is clamped to [0, 0.999].
QVector<double> emaSmooth(const QVector<double>& ys, double weight);

// Flattens a JSON document into sorted (key path, compact value) pairs: objects join keys with '.',
// arrays use [i]; scalars and empty containers are leaves ("{}", "[]").
std::vector<std::pair<QString, QString>> flattenJson(const nlohmann::json& doc);

struct ConfigDiffRow {
    QString key;
    QStringList values;  // one per config; an absent key is an empty string
    bool differs = false;
};
// The union of key paths of all configs, sorted; diffOnly keeps only the keys whose values differ
// (a key present in one config and absent in another differs).
std::vector<ConfigDiffRow> configDiff(const std::vector<nlohmann::json>& configs, bool diffOnly);

// The config a run is compared by: the core's resolved config (defaults filled in) when the stored
// config still parses and validates, else the stored JSON as written; nullopt if neither parses.
// resolved tells which one it is.
std::optional<nlohmann::json> comparableConfig(const RunRecord& run, bool* resolved = nullptr);

struct RunSummary {
    std::optional<double> finalLoss, finalEvalLoss, bestEvalLoss;
    std::optional<double> meanTokensPerS;            // mean of the run's tokens_per_s points
    std::optional<double> peakMemoryBytes;           // largest peak over all ranks and devices
    std::optional<double> durationS;                 // endedAt (or last metric time) - startedAt
    std::optional<double> tokensSeen;                // last tokens_seen point
    int64_t steps = 0;                               // last step with metrics
    std::map<std::string, double> finalEvalMetrics;  // classification: last eval_accuracy, eval_f1, eval_mse, ...
};
// From the metric points (the stored final metrics fill in what the points lack).
RunSummary summarizeRun(const CompareRunData& data);

// CSV of the curves: columns run,x,y[,smoothed] with one row per point; names are quoted when needed.
QString curvesToCsv(const QStringList& runNames, const std::vector<CompareCurve>& curves,
                    const std::vector<QVector<double>>& smoothed, const QString& xName);

}  // namespace fts
