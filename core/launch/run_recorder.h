// What the supervisor does with the events of a run's ranks (each tagged with its host by `fts node`):
// metrics, device memory (per host and device) and log lines become store rows in batches; the start,
// eval and metrics events drive the terminal progress; errors and abnormal rank exits go to the failure
// policy. One object per run; called from the supervisor's poll loop only.
#pragma once
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/events/run_events.h"
#include "core/launch/failure_policy.h"
#include "core/store/run_store.h"

namespace fts {

// Progress text (pure, tested).
std::string formatEta(double seconds);  // progress-bar style: "1:02:03" / "4:05"; "?" when unknown
std::string progressLine(int64_t step, int64_t total, double loss, double tokensPerS, double etaSeconds, int width);

class RunRecorder {
public:
    RunRecorder(RunStore& store, int64_t runId, int worldSize, bool progress, std::ostream& out,
                FailurePolicy& failures);

    // One line a node wrote (JSON; anything else is kept as a log line of that host).
    void onNodeLine(const std::string& host, const std::string& line);
    // Text a node process wrote on stderr (ssh's or the node's own messages): logged, and kept for errors.
    void onNodeStderr(const std::string& host, const std::string& line);
    void log(int rank, const std::string& level, const std::string& message);

    void flushIfDue();
    void flush();
    void endProgressLine();

    bool nodeStarted(const std::string& host) const;
    const std::string& lastStderr(const std::string& host) const;
    const std::string& endStatus() const { return m_endStatus; }
    const nlohmann::json& finalMetrics() const { return m_final; }
    double firstStepTime() const { return m_firstStepTime; }  // unix seconds of the first metrics event (0: none)
    // Set when the supervisor kills the ranks itself (their SIGKILL is then not a failure of their own).
    void setKilledByUs() { m_killedByUs = true; }
    // Output that is not a terminal gets a progress line every `steps` steps (deepspeed.steps_per_print; 0: only
    // the first and the last), besides warnings, evals and samples. A terminal's progress bar redraws every logged
    // step.
    void setPrintInterval(int64_t steps) { m_printEvery = steps; }

private:
    void onEvent(const std::string& nodeHost, const RunEvent& ev);
    void onRankExit(const std::string& host, int rank, const RankExitEvent& ev);
    void printProgress(int64_t step, double loss, const std::map<std::string, double>& values);

    RunStore& m_store;
    int64_t m_runId;
    int m_world;
    bool m_progress, m_tty;
    std::ostream& m_out;
    FailurePolicy& m_failures;
    std::vector<MetricPoint> m_metrics;
    std::vector<DeviceSample> m_memory;
    std::vector<LogLine> m_logs;
    std::vector<SampleText> m_samples;
    std::chrono::steady_clock::time_point m_lastFlush;
    int64_t m_totalSteps = 0, m_startStep = 0, m_lastPrinted = -1, m_printEvery = 10;
    double m_trainStart = 0, m_firstStepTime = 0;
    std::string m_endStatus;
    nlohmann::json m_final = nlohmann::json::object();
    std::vector<bool> m_reportedError;
    std::vector<std::vector<std::string>> m_stderrTail;             // per rank, the last lines
    std::vector<std::pair<std::string, std::string>> m_nodeStderr;  // host -> last line
    std::vector<std::string> m_startedNodes;
    bool m_killedByUs = false;
};

}  // namespace fts
