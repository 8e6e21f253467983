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
    json ev;
    try {
        ev = parseJson(line);
    } catch (const std::exception&) {
        log(-1, "info", host + ": " + line);
        return;
    }
    if (!ev.is_object()) return;
    try {
        onEvent(host, ev);
    } catch (const nlohmann::json::exception& e) {  // a field of the wrong kind: logged, never the end of the run
        log(-1, "warn", host + ": an event line with a malformed field (" + e.what() + "): " + line);
    }
}

void RunRecorder::onEvent(const std::string& nodeHost, const json& ev) {
    const std::string kind = fieldOr(ev, "event", "");
    const std::string host = fieldOr(ev, "host", nodeHost);
    const double time = fieldOr(ev, "time", unixNow());
    const int rank = fieldOr(ev, "rank", 0);
    const bool rankKnown = rank >= 0 && rank < m_world;
    if (kind == "metrics") {
        const int64_t step = fieldOr(ev, "step", int64_t(0));
        const json values = ev.contains("values") && ev["values"].is_object() ? ev["values"] : json::object();
        for (const auto& [name, value] : values.items())
            if (value.is_number()) m_metrics.push_back({step, name, value.get<double>(), time});
        if (values.contains("loss") && values["loss"].is_number()) {
            if (m_firstStepTime == 0) m_firstStepTime = time;
            const double loss = values["loss"].get<double>();
            if (m_progress) {
                const double tps = fieldOr(values, "tokens_per_s", 0.0);
                const double rate = double(step - m_startStep) / std::max(1e-9, unixNow() - m_trainStart);
                const double eta = rate > 0 ? double(m_totalSteps - step) / rate : NAN;
                if (m_tty) {
                    m_out << '\r' << progressLine(step, m_totalSteps, loss, tps, eta, 30) << std::flush;
                } else if (step == m_totalSteps || m_lastPrinted < 0 ||
                           step - m_lastPrinted >= std::max<int64_t>(1, m_totalSteps / 20)) {
                    m_out << progressLine(step, m_totalSteps, loss, tps, eta, 30) << "\n" << std::flush;
                    m_lastPrinted = step;
                }
            }
        }
        if (values.contains("eval_loss") && values["eval_loss"].is_number() && m_progress)
            m_out << (m_tty ? "\n" : "") << "eval loss " << values["eval_loss"].get<double>() << " at step " << step
                  << "\n";
    } else if (kind == "memory") {
        DeviceSample s{fieldOr(ev, "step", int64_t(0)),
                       time,
                       rank,
                       fieldOr(ev, "device", "cpu"),
                       fieldOr(ev, "allocated", int64_t(0)),
                       fieldOr(ev, "reserved", int64_t(0)),
                       fieldOr(ev, "peak", int64_t(0)),
                       fieldOr(ev, "capacity", int64_t(0))};
        s.host = host;
        m_memory.push_back(s);
    } else if (kind == "sample") {  // texts generated from the weights at a step (training.sample_prompts)
        const int64_t step = fieldOr(ev, "step", int64_t(0));
        const json samples = fieldOr(ev, "samples", json::array());
        for (size_t i = 0; i < samples.size(); ++i)
            if (samples[i].is_object())
                m_samples.push_back({step, time, fieldOr(samples[i], "index", int(i)),
                                     fieldOr(samples[i], "prompt", ""), fieldOr(samples[i], "text", ""), 0});
        if (m_progress && !samples.empty() && samples[0].is_object()) {
            // One line: the first reply, newlines as spaces, cut at a character boundary.
            std::string text = fieldOr(samples[0], "text", "");
            std::replace(text.begin(), text.end(), '\n', ' ');
            if (text.size() > 160) {
                size_t cut = 160;
                while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
                text = text.substr(0, cut) + "...";
            }
            m_out << (m_tty ? "\n" : "") << "sample at step " << step << ": " << text << "\n";
        }
    } else if (kind == "log") {
        const std::string level = fieldOr(ev, "level", "info"), message = fieldOr(ev, "message", "");
        m_logs.push_back({time, rank, level, message});
        // A rank's warning (a damaged checkpoint skipped, bad data rows, an fp16 overflow that ends the run...) is
        // printed as it happens, with --quiet too: it is not progress.
        if (level == "warn" || level == "warning")
            m_out << (m_tty && m_progress ? "\n" : "") << "warning"
                  << (rank >= 0 && m_world > 1 ? " (rank " + std::to_string(rank) + ")" : std::string()) << ": "
                  << message << "\n"
                  << std::flush;
    } else if (kind == "stderr") {
        const std::string line = fieldOr(ev, "line", "");
        m_logs.push_back({time, rank, "stderr", line});
        if (rankKnown) {
            auto& tail = m_stderrTail[size_t(rank)];
            tail.push_back(line);
            if (tail.size() > 20) tail.erase(tail.begin());
        }
    } else if (kind == "start") {
        m_totalSteps = fieldOr(ev, "total_steps", int64_t(0));
        m_startStep = fieldOr(ev, "start_step", int64_t(0));
        m_trainStart = unixNow();
        m_store.setTotalSteps(m_runId, m_totalSteps);
        if (ev.contains("versions") && ev["versions"].is_object()) m_store.setVersions(m_runId, ev["versions"].dump());
        std::ostringstream msg;
        if (m_world > 1) msg << m_world << " ranks, ";
        msg << "training on " << fieldOr(ev, "device", "?") << ": " << fieldOr(ev, "parameters", int64_t(0))
            << " parameters, " << fieldOr(ev, "train_sequences", int64_t(0)) << " train / "
            << fieldOr(ev, "eval_sequences", int64_t(0)) << " eval sequences, steps " << m_startStep << " -> "
            << m_totalSteps;
        m_logs.push_back({time, 0, "info", msg.str()});
        if (m_progress) m_out << "run " << m_runId << ": " << msg.str() << "\n";
    } else if (kind == "checkpoint") {
        m_logs.push_back(
            {time, 0, "info",
             "checkpoint at step " + std::to_string(fieldOr(ev, "step", int64_t(0))) + ": " + fieldOr(ev, "path", "")});
    } else if (kind == "end") {
        if (rank == 0) {
            m_endStatus = fieldOr(ev, "status", "");
            if (ev.contains("final") && ev["final"].is_object()) m_final = ev["final"];
        }
    } else if (kind == "error") {
        const std::string message = fieldOr(ev, "message", "unknown error");
        m_logs.push_back({time, rank, "error", message});
        if (rankKnown) m_reportedError[size_t(rank)] = true;
        const bool remote = !host.empty() && host != "localhost" && host != "127.0.0.1";
        m_failures.rankFailed(rank, (remote ? "on " + host + ": " : std::string()) + message,
                              fieldOr(ev, "collective", false));
    } else if (kind == "node_started") {
        m_startedNodes.push_back(host);
        m_logs.push_back({time, -1, "info",
                          "host " + host + " (" + fieldOr(ev, "hostname", "?") + "): node started, pid " +
                              std::to_string(fieldOr(ev, "pid", int64_t(0)))});
    } else if (kind == "rank_started") {
        m_logs.push_back({time, rank, "info",
                          "worker rank " + std::to_string(rank) + " of " + std::to_string(m_world) + " started on " +
                              host + " (pid " + std::to_string(fieldOr(ev, "pid", int64_t(0))) + ")"});
    } else if (kind == "rank_exit") {
        onRankExit(host, ev);
    } else if (kind == "node_error") {
        m_failures.launchFailed("host " + host + ": " + fieldOr(ev, "message", "node error"));
    }
}

void RunRecorder::onRankExit(const std::string& host, const json& ev) {
    const int rank = fieldOr(ev, "rank", 0);
    if (fieldOr(ev, "ok", false)) return;
    const int sig = fieldOr(ev, "signal", 0);
    if (m_killedByUs && sig == 9) return;  // we stopped it after another failure
    std::string why =
        "worker rank " + std::to_string(rank) + " on " + host + " " + fieldOr(ev, "description", "failed");
    const bool rankKnown = rank >= 0 && rank < m_world;
    if (rankKnown && !m_stderrTail[size_t(rank)].empty()) {
        why += "; last output:";
        for (const auto& l : m_stderrTail[size_t(rank)]) why += "\n  " + l;
    }
    // an exit after the rank's own error event: that event already says why
    if (sig != 0 || !rankKnown || !m_reportedError[size_t(rank)])
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
