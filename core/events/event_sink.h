// Where a worker's events go: one JSON object per line on stdout (JsonLinesSink), or a test's capture. The events
// themselves, typed: run_events.h. The same stream works locally and over ssh.
#pragma once
#include <nlohmann/json.hpp>

#include "core/events/run_events.h"
#include "core/util/wall_clock.h"  // unixNow

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace fts {

class EventSink {
public:
    virtual ~EventSink() = default;
    // Named publish, not emit: Qt defines `emit` as a macro and tests include both.
    virtual void publish(const nlohmann::json& event) = 0;
    // A typed event (run_events.h) as its line; rank: the rank it concerns (the node stamps the relaying rank when
    // absent).
    void publishEvent(RunEventBody event, std::optional<int> rank = std::nullopt);
    void log(const std::string& level, const std::string& message);
};

// Writes each event as one line to a FILE* (stdout for workers) and flushes it.
class JsonLinesSink : public EventSink {
public:
    explicit JsonLinesSink(std::FILE* out) : m_out(out) {}
    void publish(const nlohmann::json& event) override;

private:
    std::FILE* m_out;
    std::mutex m_mutex;
};

}  // namespace fts
