// Training events: what a worker tells its supervisor, one JSON object per line on stdout.
// Kinds: start, metrics, memory, log, checkpoint, eval, end, error. The same stream works locally and over ssh.
#pragma once
#include <nlohmann/json.hpp>

#include "core/util/wall_clock.h"  // unixNow

#include <cstdio>
#include <mutex>
#include <string>

namespace fts {

class EventSink {
public:
    virtual ~EventSink() = default;
    // Named publish, not emit: Qt defines `emit` as a macro and tests include both.
    virtual void publish(const nlohmann::json& event) = 0;
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
