// The events' JSON (see run_events.h): one writer and one reader per kind, side by side, so the two cannot drift.
#include "core/events/run_events.h"

#include "core/util/json_fields.h"
#include "core/util/wall_clock.h"

namespace fts {
using nlohmann::json;

namespace {

// Each kind: its name, its fields written, its fields read (absent: the struct's default).
struct Codec {
    static const char* name(const StartEvent&) { return "start"; }
    static void write(json& j, const StartEvent& e) {
        j["world_size"] = e.worldSize;
        j["start_step"] = e.startStep;
        j["total_steps"] = e.totalSteps;
        j["device"] = e.device;
        j["parameters"] = e.parameters;
        j["train_sequences"] = e.trainSequences;
        j["eval_sequences"] = e.evalSequences;
        j["data"] = e.data;
        j["tokens_per_step"] = e.tokensPerStep;
        j["versions"] = e.versions;
    }
    static void read(const json& j, StartEvent& e) {
        e.worldSize = fieldOr(j, "world_size", e.worldSize);
        e.startStep = fieldOr(j, "start_step", e.startStep);
        e.totalSteps = fieldOr(j, "total_steps", e.totalSteps);
        e.device = fieldOr(j, "device", std::string("?"));
        e.parameters = fieldOr(j, "parameters", e.parameters);
        e.trainSequences = fieldOr(j, "train_sequences", e.trainSequences);
        e.evalSequences = fieldOr(j, "eval_sequences", e.evalSequences);
        if (j.contains("data")) e.data = j["data"];
        e.tokensPerStep = fieldOr(j, "tokens_per_step", e.tokensPerStep);
        if (j.contains("versions") && j["versions"].is_object()) e.versions = j["versions"];
    }

    static const char* name(const MetricsEvent&) { return "metrics"; }
    static void write(json& j, const MetricsEvent& e) {
        j["step"] = e.step;
        j["values"] = json::object();
        for (const auto& [k, v] : e.values) j["values"][k] = v;
    }
    static void read(const json& j, MetricsEvent& e) {
        e.step = fieldOr(j, "step", e.step);
        if (j.contains("values") && j["values"].is_object())
            for (const auto& [k, v] : j["values"].items())
                if (v.is_number()) e.values[k] = v.get<double>();  // a non-number (NaN written as null) is skipped
    }

    static const char* name(const MemoryEvent&) { return "memory"; }
    static void write(json& j, const MemoryEvent& e) {
        j["step"] = e.step;
        j["device"] = e.device;
        j["allocated"] = e.allocated;
        j["reserved"] = e.reserved;
        j["peak"] = e.peak;
        j["capacity"] = e.capacity;
    }
    static void read(const json& j, MemoryEvent& e) {
        e.step = fieldOr(j, "step", e.step);
        e.device = fieldOr(j, "device", std::string("cpu"));
        e.allocated = fieldOr(j, "allocated", e.allocated);
        e.reserved = fieldOr(j, "reserved", e.reserved);
        e.peak = fieldOr(j, "peak", e.peak);
        e.capacity = fieldOr(j, "capacity", e.capacity);
    }

    static const char* name(const LogEvent&) { return "log"; }
    static void write(json& j, const LogEvent& e) {
        j["level"] = e.level;
        j["message"] = e.message;
    }
    static void read(const json& j, LogEvent& e) {
        e.level = fieldOr(j, "level", e.level);
        e.message = fieldOr(j, "message", e.message);
    }

    static const char* name(const ModelStatesEvent&) { return "model_states"; }
    static void write(json& j, const ModelStatesEvent& e) {
        j["plan"] = e.plan;
        j["table"] = e.table;
        j["bytes"] = {{"parameters", e.parameters},   {"gradients", e.gradients}, {"optimizer", e.optimizer},
                      {"buckets", e.buckets},         {"on_device", e.onDevice},  {"host_offload", e.hostOffload},
                      {"nvme_offload", e.nvmeOffload}};
    }
    static void read(const json& j, ModelStatesEvent& e) {
        e.plan = fieldOr(j, "plan", e.plan);
        e.table = fieldOr(j, "table", e.table);
        const json b = fieldOr(j, "bytes", json::object());
        e.parameters = fieldOr(b, "parameters", e.parameters);
        e.gradients = fieldOr(b, "gradients", e.gradients);
        e.optimizer = fieldOr(b, "optimizer", e.optimizer);
        e.buckets = fieldOr(b, "buckets", e.buckets);
        e.onDevice = fieldOr(b, "on_device", e.onDevice);
        e.hostOffload = fieldOr(b, "host_offload", e.hostOffload);
        e.nvmeOffload = fieldOr(b, "nvme_offload", e.nvmeOffload);
    }

    static const char* name(const CheckpointEvent&) { return "checkpoint"; }
    static void write(json& j, const CheckpointEvent& e) {
        j["step"] = e.step;
        j["path"] = e.path;
    }
    static void read(const json& j, CheckpointEvent& e) {
        e.step = fieldOr(j, "step", e.step);
        e.path = fieldOr(j, "path", e.path);
    }

    static const char* name(const SampleEvent&) { return "sample"; }
    static void write(json& j, const SampleEvent& e) {
        j["step"] = e.step;
        j["samples"] = json::array();
        for (const auto& s : e.samples)
            j["samples"].push_back({{"index", s.index}, {"prompt", s.prompt}, {"text", s.text}});
    }
    static void read(const json& j, SampleEvent& e) {
        e.step = fieldOr(j, "step", e.step);
        // A list; anything else throws (json::type_error): the line is malformed, not a sample event without texts.
        const auto samples = j.contains("samples") ? j["samples"].get<std::vector<json>>() : std::vector<json>();
        for (size_t i = 0; i < samples.size(); ++i)
            if (samples[i].is_object())
                e.samples.push_back({fieldOr(samples[i], "index", int(i)), fieldOr(samples[i], "prompt", std::string()),
                                     fieldOr(samples[i], "text", std::string())});
    }

    static const char* name(const EndEvent&) { return "end"; }
    static void write(json& j, const EndEvent& e) {
        j["status"] = e.status;
        j["final"] = e.final;
    }
    static void read(const json& j, EndEvent& e) {
        e.status = fieldOr(j, "status", e.status);
        if (j.contains("final") && j["final"].is_object()) e.final = j["final"];
    }

    static const char* name(const ErrorEvent&) { return "error"; }
    static void write(json& j, const ErrorEvent& e) {
        j["message"] = e.message;
        if (e.collective) j["collective"] = true;
    }
    static void read(const json& j, ErrorEvent& e) {
        e.message = fieldOr(j, "message", std::string("unknown error"));
        e.collective = fieldOr(j, "collective", false);
    }

    static const char* name(const NodeStartedEvent&) { return "node_started"; }
    static void write(json& j, const NodeStartedEvent& e) {
        j["pid"] = e.pid;
        j["fts"] = e.fts;
        j["hostname"] = e.hostname;
    }
    static void read(const json& j, NodeStartedEvent& e) {
        e.pid = fieldOr(j, "pid", e.pid);
        e.fts = fieldOr(j, "fts", e.fts);
        e.hostname = fieldOr(j, "hostname", std::string("?"));
    }

    static const char* name(const RankStartedEvent&) { return "rank_started"; }
    static void write(json& j, const RankStartedEvent& e) {
        j["local_rank"] = e.localRank;
        j["pid"] = e.pid;
    }
    static void read(const json& j, RankStartedEvent& e) {
        e.localRank = fieldOr(j, "local_rank", e.localRank);
        e.pid = fieldOr(j, "pid", e.pid);
    }

    static const char* name(const RankExitEvent&) { return "rank_exit"; }
    static void write(json& j, const RankExitEvent& e) {
        j["ok"] = e.ok;
        j["signal"] = e.signal;
        j["description"] = e.description;
    }
    static void read(const json& j, RankExitEvent& e) {
        e.ok = fieldOr(j, "ok", e.ok);
        e.signal = fieldOr(j, "signal", e.signal);
        e.description = fieldOr(j, "description", std::string("failed"));
    }

    static const char* name(const NodeErrorEvent&) { return "node_error"; }
    static void write(json& j, const NodeErrorEvent& e) { j["message"] = e.message; }
    static void read(const json& j, NodeErrorEvent& e) { e.message = fieldOr(j, "message", std::string("node error")); }

    static const char* name(const StderrEvent&) { return "stderr"; }
    static void write(json& j, const StderrEvent& e) { j["line"] = e.line; }
    static void read(const json& j, StderrEvent& e) { e.line = fieldOr(j, "line", e.line); }
};

// The body of kind `kind`, read from j: tries each alternative of the variant in turn.
template <size_t I = 0>
std::optional<RunEventBody> readBody(const std::string& kind, const json& j) {
    if constexpr (I == std::variant_size_v<RunEventBody>) {
        return std::nullopt;
    } else {
        using T = std::variant_alternative_t<I, RunEventBody>;
        T e;
        if (kind != Codec::name(e)) return readBody<I + 1>(kind, j);
        Codec::read(j, e);
        return RunEventBody(std::move(e));
    }
}

}  // namespace

const char* runEventKind(const RunEventBody& body) {
    return std::visit([](const auto& e) { return Codec::name(e); }, body);
}

json runEventJson(const RunEvent& event) {
    json j{{"event", runEventKind(event.body)}};
    std::visit([&j](const auto& e) { Codec::write(j, e); }, event.body);
    if (event.rank) j["rank"] = *event.rank;
    if (!event.host.empty()) j["host"] = event.host;
    j["time"] = event.time != 0 ? event.time : unixNow();
    return j;
}

json runEventJson(RunEventBody body, std::optional<int> rank) {
    RunEvent e;
    e.rank = rank;
    e.body = std::move(body);
    return runEventJson(e);
}

std::optional<RunEvent> readRunEvent(const json& line) {
    if (!line.is_object()) return std::nullopt;
    std::optional<RunEventBody> body = readBody(fieldOr(line, "event", std::string()), line);
    if (!body) return std::nullopt;
    RunEvent e;
    e.body = std::move(*body);
    if (line.contains("rank")) e.rank = fieldOr(line, "rank", 0);
    e.host = fieldOr(line, "host", std::string());
    e.time = fieldOr(line, "time", 0.0);
    return e;
}

}  // namespace fts
