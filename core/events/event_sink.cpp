// Training events as JSON lines (see event_sink.h).
#include "core/events/event_sink.h"

namespace fts {

void EventSink::publishEvent(RunEventBody event, std::optional<int> rank) {
    publish(runEventJson(std::move(event), rank));
}

void EventSink::log(const std::string& level, const std::string& message) { publishEvent(LogEvent{level, message}); }

void JsonLinesSink::publish(const nlohmann::json& event) {
    // Replace invalid UTF-8 rather than throwing: a log line must never kill a run.
    std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::lock_guard<std::mutex> lock(m_mutex);
    std::fwrite(line.data(), 1, line.size(), m_out);
    std::fputc('\n', m_out);
    std::fflush(m_out);
}

}  // namespace fts
