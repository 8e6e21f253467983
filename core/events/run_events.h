// The events of a run, typed: what a worker rank tells its node (JSON lines on its stdout) and a node tells the
// supervisor (its stdout, over ssh too). Each struct below is one kind of event, with its fields and their units;
// the writers (core/train's loop, fts worker, core/launch/node_runner) build these structs and the reader
// (core/launch/run_recorder) gets them back, so a field is named and converted in one place (run_events.cpp).
// Every line also carries an envelope: the rank it concerns (the node stamps the rank it relays for), the host (the
// node stamps its hostfile name) and the time (Unix seconds).
// The hosts check (`fts hosts check`) speaks its own events (core/dist/link_check.h).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fts {

// ---- from a worker rank ----

// Training begins (rank 0): what it trains on and for how long.
struct StartEvent {
    int worldSize = 1;
    int64_t startStep = 0;  // > 0 after a resume
    int64_t totalSteps = 0;
    std::string device;  // "cpu", "cuda:0"
    int64_t parameters = 0;
    int64_t trainSequences = 0, evalSequences = 0;
    nlohmann::json data;        // the data's summary (training_data.h)
    int64_t tokensPerStep = 0;  // global batch x max_length
    nlohmann::json versions;    // {"fts", "torch", "device", "cuda_available"}
};

// Scalar metrics at a step (loss, lr, grad_norm, tokens_per_s, eval_*, swap_*; core/store/metric_names.h).
struct MetricsEvent {
    int64_t step = 0;
    std::map<std::string, double> values;
};

// A rank's device memory after a step, bytes (LibTorch's allocator; CPU: the host allocator's counts).
struct MemoryEvent {
    int64_t step = 0;
    std::string device;
    int64_t allocated = 0, reserved = 0, peak = 0, capacity = 0;
};

// A line for the run's log. level: "info", "warn" (printed by fts train as it happens) or "error".
struct LogEvent {
    std::string level = "info";
    std::string message;
};

// A rank's model states as its step engine allocated them (core/zero/model_state.h), bytes, with the plan that
// placed them (ZeroPlan::summary) and the table the terminal and the log show.
struct ModelStatesEvent {
    std::string plan;
    std::string table;
    int64_t parameters = 0, gradients = 0, optimizer = 0, buckets = 0;
    int64_t onDevice = 0, hostOffload = 0, nvmeOffload = 0;
};

// A checkpoint was committed (rank 0).
struct CheckpointEvent {
    int64_t step = 0;
    std::string path;
};

// Texts generated from the weights at a step (training.sample_prompts; rank 0).
struct SampleEvent {
    struct Text {
        int index = 0;
        std::string prompt, text;
    };
    int64_t step = 0;
    std::vector<Text> samples;
};

// A rank finished: status "completed" or "stopped"; final: steps, tokens_seen, loss, eval_*, export_dir.
struct EndEvent {
    std::string status;
    nlohmann::json final = nlohmann::json::object();
};

// A rank failed. collective: a collective operation failed (often because a peer died first).
struct ErrorEvent {
    std::string message;
    bool collective = false;
};

// ---- from a node (one `fts node` per host) ----

struct NodeStartedEvent {
    int64_t pid = 0;
    std::string fts;       // the node's fts version
    std::string hostname;  // the host's own name
};

struct RankStartedEvent {
    int localRank = 0;
    int64_t pid = 0;
};

// A worker exited: ok (status 0), the signal that ended it (0: none) and the exit status in words.
struct RankExitEvent {
    bool ok = false;
    int signal = 0;
    std::string description;
};

struct NodeErrorEvent {
    std::string message;
};

// A line a worker wrote to its stderr.
struct StderrEvent {
    std::string line;
};

using RunEventBody =
    std::variant<StartEvent, MetricsEvent, MemoryEvent, LogEvent, ModelStatesEvent, CheckpointEvent, SampleEvent,
                 EndEvent, ErrorEvent, NodeStartedEvent, RankStartedEvent, RankExitEvent, NodeErrorEvent, StderrEvent>;

// The envelope: rank (absent: the node stamps the rank it relays for; node events: 0), host, time.
struct RunEvent {
    std::optional<int> rank;
    std::string host;
    double time = 0;
    RunEventBody body;
};

// The JSON line of an event ({"event": kind, fields..., "rank", "host", "time"}; rank and host only when set, time
// now when 0).
nlohmann::json runEventJson(const RunEvent& event);
nlohmann::json runEventJson(RunEventBody body, std::optional<int> rank = std::nullopt);

// Reads a line written by runEventJson (or an older fts): absent fields, and scalar fields of another JSON type, take
// their defaults (a malformed line between our own processes must not end a run); a list that is not one (a sample
// event's "samples") throws nlohmann::json::exception. nullopt for a kind this version does not know.
std::optional<RunEvent> readRunEvent(const nlohmann::json& line);

const char* runEventKind(const RunEventBody& body);  // "start", "metrics", ...

}  // namespace fts
