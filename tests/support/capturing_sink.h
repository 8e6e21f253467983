// An EventSink that keeps every event a run publishes, for in-process trainer tests: the values of one metric in
// step order, the metrics events with their steps, the log messages.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/events/event_sink.h"

namespace fts::test {

struct CapturingSink : EventSink {
    std::vector<nlohmann::json> events;
    void publish(const nlohmann::json& e) override { events.push_back(e); }
    std::vector<double> values(const std::string& name) const {
        std::vector<double> v;
        for (const auto& e : events)
            if (e.value("event", "") == "metrics" && e.at("values").contains(name))
                v.push_back(e["values"][name].get<double>());
        return v;
    }
    std::vector<std::pair<int64_t, nlohmann::json>> metrics() const {
        std::vector<std::pair<int64_t, nlohmann::json>> v;
        for (const auto& e : events)
            if (e.value("event", "") == "metrics") v.emplace_back(e.at("step").get<int64_t>(), e.at("values"));
        return v;
    }
    std::vector<std::string> logs() const {
        std::vector<std::string> v;
        for (const auto& e : events)
            if (e.value("event", "") == "log") v.push_back(e.value("message", ""));
        return v;
    }
};

}  // namespace fts::test
