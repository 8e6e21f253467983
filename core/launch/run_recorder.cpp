// Events -> store rows, progress and failures (see run_recorder.h).
#include "core/launch/run_recorder.h"
#include "core/util/json_fields.h"
#include "core/util/json_parse.h"
#include "core/util/wall_clock.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace fts {
using nlohmann::json;

std::string formatEta(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "?";
    long s = std::lround(seconds);
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
    return buf;
}

std::string progressLine(int64_t step, int64_t total, double loss, double tokensPerS, double eta, int width) {
    std::ostringstream ss;
    const double frac = total > 0 ? std::min(1.0, double(step) / double(total)) : 0.0;
    const int filled = int(frac * width);
    ss << '[' << std::string(size_t(filled), '#') << std::string(size_t(width - filled), '.') << "] "
       << "step " << step << '/' << total << "  loss " << std::fixed << std::setprecision(4) << loss << "  "
       << std::setprecision(0) << tokensPerS << " tok/s  ETA " << formatEta(eta);
    return ss.str();
}

RunRecorder::RunRecorder(RunStore& store, int64_t runId, int worldSize, bool progress, std::ostream& out,
                         FailurePolicy& failures)
    : m_store(store),
      m_runId(runId),
      m_world(worldSize),
      m_progress(progress),
      m_tty(::isatty(2) == 1),
      m_out(out),
      m_failures(failures),
      m_lastFlush(std::chrono::steady_clock::now()),
      m_reportedError(size_t(worldSize), false),
      m_stderrTail(size_t(worldSize)) {}

void RunRecorder::log(int rank, const std::string& level, const std::string& message) {
    m_logs.push_back({unixNow(), rank, level, message});
}

void RunRecorder::onNodeStderr(const std::string& host, const std::string& line) {
    log(-1, "stderr", host + ": " + line);
    for (auto& [h, last] : m_nodeStderr)
        if (h == host) {
            last = line;
            return;
        }
    m_nodeStderr.emplace_back(host, line);
}

const std::string& RunRecorder::lastStderr(const std::string& host) const {
    static const std::string none;
    for (const auto& [h, last] : m_nodeStderr)
        if (h == host) return last;
    return none;
}

bool RunRecorder::nodeStarted(const std::string& host) const {
    return std::find(m_startedNodes.begin(), m_startedNodes.end(), host) != m_startedNodes.end();
}

void RunRecorder::onNodeLine(const std::string& host, const std::string& line) {
    json parsed;
    try {
        parsed = parseJson(line);
    } catch (const std::exception&) {
        log(-1, "info", host + ": " + line);
        return;
    }
    try {
        const std::optional<RunEvent> ev = readRunEvent(parsed);
        if (ev) onEvent(host, *ev);                 // a kind this version does not know is dropped
    } catch (const nlohmann::json::exception& e) {  // a field of the wrong kind: logged, never the end of the run
        log(-1, "warn", host + ": an event line with a malformed field (" + e.what() + "): " + line);
    }
}

namespace {

template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

void RunRecorder::onEvent(const std::string& nodeHost, const RunEvent& ev) {
    const std::string host = ev.host.empty() ? nodeHost : ev.host;
    const double time = ev.time != 0 ? ev.time : unixNow();
    const int rank = ev.rank.value_or(0);
    const bool rankKnown = rank >= 0 && rank < m_world;
    const char* const lineStart = m_tty && m_progress ? "\n" : "";  // off the progress bar's line
    std::visit(
        Overloaded{
            [&](const MetricsEvent& e) {
                for (const auto& [name, value] : e.values) m_metrics.push_back({e.step, name, value, time});
                if (const auto loss = e.values.find("loss"); loss != e.values.end()) {
                    if (m_firstStepTime == 0) m_firstStepTime = time;
                    if (m_progress) printProgress(e.step, loss->second, e.values);
                }
                if (const auto eval = e.values.find("eval_loss"); eval != e.values.end() && m_progress)
                    m_out << (m_tty ? "\n" : "") << "eval loss " << eval->second << " at step " << e.step << "\n";
            },
            [&](const MemoryEvent& e) {
                DeviceSample s{e.step, time, rank, e.device, e.allocated, e.reserved, e.peak, e.capacity};
                s.host = host;
                m_memory.push_back(s);
            },
            [&](const SampleEvent& e) {  // texts generated from the weights at a step (training.sample_prompts)
                for (const SampleEvent::Text& t : e.samples)
                    m_samples.push_back({e.step, time, t.index, t.prompt, t.text, 0});
                if (m_progress && !e.samples.empty()) {
                    // One line: the first reply, newlines as spaces, cut at a character boundary.
                    std::string text = e.samples.front().text;
                    std::replace(text.begin(), text.end(), '\n', ' ');
                    if (text.size() > 160) {
                        size_t cut = 160;
                        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
                        text = text.substr(0, cut) + "...";
                    }
                    m_out << (m_tty ? "\n" : "") << "sample at step " << e.step << ": " << text << "\n";
                }
            },
            [&](const LogEvent& e) {
                m_logs.push_back({time, rank, e.level, e.message});
                // A rank's warning (a damaged checkpoint skipped, bad data rows, an fp16 overflow that ends the
                // run...) is printed as it happens, with --quiet too: it is not progress.
                if (e.level == "warn" || e.level == "warning")
                    m_out << lineStart << "warning"
                          << (rank >= 0 && m_world > 1 ? " (rank " + std::to_string(rank) + ")" : std::string()) << ": "
                          << e.message << "\n"
                          << std::flush;
            },
            [&](const ModelStatesEvent& e) {
                m_logs.push_back({time, rank, "info",
                                  "rank " + std::to_string(rank) + " model states, " + e.plan + ":\n" + e.table});
                if (m_progress && rank == 0)  // rank 0's table stands for the others (docs/zero.md)
                    m_out << lineStart << "model states of rank 0, " << e.plan << ":\n" << e.table << "\n";
            },
            [&](const StderrEvent& e) {
                m_logs.push_back({time, rank, "stderr", e.line});
                if (rankKnown) {
                    auto& tail = m_stderrTail[size_t(rank)];
                    tail.push_back(e.line);
                    if (tail.size() > 20) tail.erase(tail.begin());
                }
            },
            [&](const StartEvent& e) {
                m_totalSteps = e.totalSteps;
                m_startStep = e.startStep;
                m_trainStart = unixNow();
                m_store.setTotalSteps(m_runId, m_totalSteps);
                if (e.versions.is_object()) m_store.setVersions(m_runId, e.versions.dump());
                std::ostringstream msg;
                if (m_world > 1) msg << m_world << " ranks, ";
                msg << "training on " << e.device << ": " << e.parameters << " parameters, " << e.trainSequences
                    << " train / " << e.evalSequences << " eval sequences, steps " << m_startStep << " -> "
                    << m_totalSteps;
                m_logs.push_back({time, 0, "info", msg.str()});
                if (m_progress) m_out << "run " << m_runId << ": " << msg.str() << "\n";
            },
            [&](const CheckpointEvent& e) {
                m_logs.push_back({time, 0, "info", "checkpoint at step " + std::to_string(e.step) + ": " + e.path});
            },
            [&](const EndEvent& e) {
                if (rank != 0) return;
                m_endStatus = e.status;
                m_final = e.final;
            },
            [&](const ErrorEvent& e) {
                m_logs.push_back({time, rank, "error", e.message});
                if (rankKnown) m_reportedError[size_t(rank)] = true;
                const bool remote = !host.empty() && host != "localhost" && host != "127.0.0.1";
                m_failures.rankFailed(rank, (remote ? "on " + host + ": " : std::string()) + e.message, e.collective);
            },
            [&](const NodeStartedEvent& e) {
                m_startedNodes.push_back(host);
                m_logs.push_back(
                    {time, -1, "info",
                     "host " + host + " (" + e.hostname + "): node started, pid " + std::to_string(e.pid)});
            },
            [&](const RankStartedEvent& e) {
                m_logs.push_back({time, rank, "info",
                                  "worker rank " + std::to_string(rank) + " of " + std::to_string(m_world) +
                                      " started on " + host + " (pid " + std::to_string(e.pid) + ")"});
            },
            [&](const RankExitEvent& e) { onRankExit(host, rank, e); },
            [&](const NodeErrorEvent& e) { m_failures.launchFailed("host " + host + ": " + e.message); },
        },
        ev.body);
}

void RunRecorder::printProgress(int64_t step, double loss, const std::map<std::string, double>& values) {
    const auto tpsAt = values.find("tokens_per_s");
    const double tps = tpsAt == values.end() ? 0.0 : tpsAt->second;
    const double rate = double(step - m_startStep) / std::max(1e-9, unixNow() - m_trainStart);
    const double eta = rate > 0 ? double(m_totalSteps - step) / rate : NAN;
    if (m_tty) {
        m_out << '\r' << progressLine(step, m_totalSteps, loss, tps, eta, 30) << std::flush;
    } else if (step == m_totalSteps || m_lastPrinted < 0 ||
               (m_printEvery > 0 && step - m_lastPrinted >= m_printEvery)) {
        m_out << progressLine(step, m_totalSteps, loss, tps, eta, 30) << "\n" << std::flush;
        m_lastPrinted = step;
    }
}

void RunRecorder::onRankExit(const std::string& host, int rank, const RankExitEvent& ev) {
    if (ev.ok) return;
    if (m_killedByUs && ev.signal == 9) return;  // we stopped it after another failure
    std::string why = "worker rank " + std::to_string(rank) + " on " + host + " " + ev.description;
    const bool rankKnown = rank >= 0 && rank < m_world;
    if (rankKnown && !m_stderrTail[size_t(rank)].empty()) {
        why += "; last output:";
        for (const auto& l : m_stderrTail[size_t(rank)]) why += "\n  " + l;
    }
    // an exit after the rank's own error event: that event already says why
    if (ev.signal != 0 || !rankKnown || !m_reportedError[size_t(rank)])
        m_failures.rankFailed(rank, why, false);
    else
        m_failures.rankFailed(rank, why, true);
}

void RunRecorder::flushIfDue() {
    if (std::chrono::steady_clock::now() - m_lastFlush > std::chrono::milliseconds(250)) flush();
}

void RunRecorder::flush() {
    if (!m_metrics.empty()) m_store.addMetrics(m_runId, m_metrics);
    if (!m_memory.empty()) m_store.addDeviceSamples(m_runId, m_memory);
    if (!m_logs.empty()) m_store.addLogs(m_runId, m_logs);
    if (!m_samples.empty()) m_store.addSamples(m_runId, m_samples);
    m_samples.clear();
    m_metrics.clear();
    m_memory.clear();
    m_logs.clear();
    m_lastFlush = std::chrono::steady_clock::now();
}

void RunRecorder::endProgressLine() {
    if (m_tty && m_progress) m_out << "\n";
}

}  // namespace fts
