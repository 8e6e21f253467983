// Presentation of run records: JSON for `fts runs show --json` / export, and the plain aligned text
// of `fts runs list` and `fts runs show`. Pure functions of their inputs (pass `now` for determinism).
#pragma once
#include "core/store/run_store.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace fts {

// Every RunRecord field. The JSON columns (config, versions, final_metrics) are parsed back into
// JSON values (null when empty, the raw string when not valid JSON). Each time comes twice:
// "<x>_at" as ISO-8601 UTC ("2024-05-01T12:34:56Z") and "<x>_at_unix" in seconds; both null when 0.
// "duration_s" is ended - started (the last session's wall time), null until the run has both; "training_s" the
// training time over every session (trainingSeconds), null when not recorded. "status" is toString(status).
nlohmann::json runToJson(const RunRecord& run);

std::string isoUtc(double unixSeconds);           // "2024-05-01T12:34:56Z" (whole seconds, floor)
std::string formatLocalTime(double unixSeconds);  // "2024-05-01 14:34" in the local time zone; "-" for 0
std::string formatDuration(double seconds);       // "45s", "3m05s", "1h02m", "2d03h"; "-" when < 0
// The training time of an ended run over all its sessions (a stopped and resumed run counts each): the end's
// "elapsed_s" in finalMetricsJson (the trainer's clock, carried in checkpoints); nullopt when not recorded.
std::optional<double> trainingSeconds(const RunRecord& run);
// An ended run's trainingSeconds, else ended - started; for a run still running, now - started (now 0: the current
// time) plus the earlier sessions' training time of a resumed run; -1 if never started.
double runDurationSeconds(const RunRecord& run, double now = 0);
// "loss" (else "train_loss") of finalMetricsJson when it is a finite number and the run has ended.
std::optional<double> finalLoss(const RunRecord& run);

// The `fts runs list` table: ID NAME STATUS MODEL STEPS FINAL-LOSS STARTED DURATION, columns padded
// by display width (UTF-8 aware, CJK counted double), long names/models shortened with "...".
// One header line plus one line per run, each ending in '\n'; no trailing blanks.
std::string formatRunTable(const std::vector<RunRecord>& runs, double now = 0);

// The `fts runs show ID` text: every field of the run, its final metrics, and lastMetrics (e.g.
// RunStore::latestMetrics) as a NAME STEP VALUE table.
std::string formatRunDetails(const RunRecord& run, const std::vector<MetricPoint>& lastMetrics, double now = 0);

}  // namespace fts
