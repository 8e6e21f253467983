// `fts probe CONFIG [--stages 0,1,2,3] [--offload] [--steps N] [--nproc N | --num_gpus N] [--store FILE] [--json]`:
// runs a few steps of the user's own config at each ZeRO stage (and, with --offload, each offload variant) on the
// same ranks and data, each a run in the store, and prints the table a user picks a setting from: the estimated
// and the measured peak memory per rank, tokens/s and steps/s. The variants run one after the other in a scratch
// output folder that is removed afterwards; a variant that fails (out of memory, ...) is a row saying why.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/commands.h"
#include "core/config/memory_estimate.h"
#include "core/config/train_config.h"
#include "core/launch/probe_runner.h"
#include "core/store/run_store.h"
#include "core/util/error.h"

namespace fts::cli {

namespace {

struct Variant {
    int stage = 0;
    std::string offloadOptimizer = "none", offloadParam = "none";
    std::string label() const {
        std::string s = "stage " + std::to_string(stage);
        if (offloadOptimizer != "none") s += " + offload optimizer " + offloadOptimizer;
        if (offloadParam != "none") s += " + offload param " + offloadParam;
        return s;
    }
};

struct Row : ProbeMeasurement {
    Variant variant;
    int64_t estimate = 0;  // per rank, on the training device
};

// A variant's figures as `--json` lists them (and as the "probe: result" line on stderr gives each as it ends).
nlohmann::json rowJson(const Row& r) {
    nlohmann::json j = {{"variant", r.variant.label()},
                        {"stage", r.variant.stage},
                        {"offload_optimizer", r.variant.offloadOptimizer},
                        {"offload_param", r.variant.offloadParam},
                        {"run_id", r.runId},
                        {"estimate_bytes", r.estimate}};
    if (r.failure.empty()) {
        j["peak_bytes"] = r.peak;
        j["tokens_per_s"] = r.tokensPerS;
        j["steps_per_s"] = r.stepsPerS;
    } else {
        j["failure"] = r.failure;
    }
    return j;
}

std::vector<int> parseStages(const std::string& text) {
    std::vector<int> out;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');) {
        if (part.size() != 1 || part[0] < '0' || part[0] > '3')
            throw ConfigError("--stages: expected stages 0-3 separated by commas (e.g. 0,1,2,3), got \"" + text + "\"");
        const int s = part[0] - '0';
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
    if (out.empty()) throw ConfigError("--stages: no stage given");
    return out;
}

std::string table(const std::vector<Row>& rows) {
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-52s %14s %16s %12s %9s\n", "variant", "estimate/rank", "measured peak",
                  "tokens/s", "steps/s");
    out += line;
    for (const Row& r : rows) {
        if (!r.failure.empty()) {
            std::snprintf(line, sizeof line, "%-52s %14s  failed: ", r.variant.label().c_str(),
                          formatBytes(r.estimate).c_str());
            out += line + r.failure + "\n";
            continue;
        }
        std::snprintf(line, sizeof line, "%-52s %14s %16s %12.0f %9.3f\n", r.variant.label().c_str(),
                      formatBytes(r.estimate).c_str(), formatBytes(r.peak).c_str(), r.tokensPerS, r.stepsPerS);
        out += line;
    }
    return out;
}

}  // namespace

void addProbeCommand(CLI::App& app) {
    auto* cmd =
        app.add_subcommand("probe", "Run a few steps of a config at each ZeRO stage and compare peak memory and speed");
    struct Args {
        std::filesystem::path config, store;
        std::string stages = "0,1,2,3";
        bool offload = false, json = false;
        int64_t steps = 4;
        int nproc = 0, numGpus = 0;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("config", a->config, "Training config (JSON with a deepspeed block)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--stages", a->stages, "ZeRO stages to try, e.g. 0,1,2,3 (default)");
    cmd->add_flag("--offload", a->offload,
                  "Also try offload_optimizer cpu at stages 1-3 and offload_param cpu at stage 3");
    cmd->add_option("--steps", a->steps, "Optimizer steps per variant (default 4; the first is not timed)")
        ->check(CLI::Range(2, 1000));
    cmd->add_option("--nproc", a->nproc, "Ranks to start on this machine (default 1)");
    cmd->add_option("--num_gpus,--num-gpus", a->numGpus, "One rank per GPU on the first N visible GPUs");
    cmd->add_option("--store", a->store, "Run store file (default: $XDG_DATA_HOME/finetune-studio/runs.sqlite)");
    cmd->add_flag("--json", a->json, "Print the table as JSON");
    cmd->callback([a] {
        const int world = std::max({1, a->nproc, a->numGpus});
        const TrainConfig given = loadTrainConfig(a->config, world);
        std::vector<Variant> variants;
        for (int s : parseStages(a->stages)) {
            variants.push_back({s, "none", "none"});
            if (a->offload && s > 0) variants.push_back({s, "cpu", "none"});
            if (a->offload && s == 3) variants.push_back({s, "cpu", "cpu"});
        }
        // The resolved config (absolute paths, "auto" filled) is the base of every variant.
        const nlohmann::json resolved = configToResolvedJson(given);
        const std::filesystem::path scratch =
            std::filesystem::temp_directory_path() / ("fts-probe-" + std::to_string(::getpid()));
        std::filesystem::create_directories(scratch);
        const std::filesystem::path storePath = a->store.empty() ? RunStore::defaultPath() : a->store;
        ProbeOptions po;
        po.scratch = scratch;
        po.storePath = storePath;
        po.workerExecutable = selfExecutable();
        po.steps = a->steps;
        po.nproc = a->nproc;
        po.numGpus = a->numGpus;
        po.hostStore = hostRendezvousStore;
        std::vector<Row> rows;
        for (const Variant& v : variants) {
            Row row;
            row.variant = v;
            nlohmann::json cfg = resolved;
            nlohmann::json& zero = cfg["deepspeed"]["zero_optimization"];
            zero["stage"] = v.stage;
            zero.erase("offload_optimizer");
            zero.erase("offload_param");
            if (v.offloadOptimizer != "none") zero["offload_optimizer"] = {{"device", v.offloadOptimizer}};
            if (v.offloadParam != "none") zero["offload_param"] = {{"device", v.offloadParam}};
            const std::string tag = "stage" + std::to_string(v.stage) + (v.offloadOptimizer != "none" ? "-oo" : "") +
                                    (v.offloadParam != "none" ? "-op" : "");
            try {
                EstimateOptions eo;
                eo.worldSize = world;
                if (a->numGpus > 0) eo.device = EstimateDevice::Cuda;
                const ConfigParseResult parsed = parseTrainConfig(cfg, scratch, world);
                if (!parsed.ok()) throw ConfigError(parsed.errorText());
                const MemoryEstimate e = estimateMemory(*parsed.config, eo);
                // On a CPU device the offloaded states share the memory the peak is measured in.
                // Against what the store measures: CUDA the allocator peak, CPU the resident set (the total).
                row.estimate = e.device == EstimateDevice::Cuda ? e.perRank.allocatorPeak : e.perRank.total;
            } catch (const std::exception& e) {
                row.failure = e.what();
                rows.push_back(row);
                if (a->json) std::cerr << "probe: result " << rowJson(row).dump() << std::endl;
                continue;
            }
            std::cerr << "probe: " << v.label() << " (" << a->steps << " steps on " << world
                      << (world == 1 ? " rank" : " ranks") << ")\n";
            static_cast<ProbeMeasurement&>(row) =
                runProbe(cfg, tag, given.training.runName + " (probe " + v.label() + ")", po);
            rows.push_back(row);
            // each variant's row as it ends (one line of JSON), so a front end fills its table as the probe goes
            if (a->json) std::cerr << "probe: result " << rowJson(row).dump() << std::endl;
        }
        std::error_code ec;
        std::filesystem::remove_all(scratch, ec);
        if (a->json) {
            nlohmann::json out = nlohmann::json::array();
            for (const Row& r : rows) out.push_back(rowJson(r));
            std::cout << nlohmann::json{{"world_size", world}, {"steps", a->steps}, {"variants", out}}.dump(2) << "\n";
        } else {
            std::cout << table(rows);
        }
        exitCode() = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return !r.failure.empty(); }) ? 1 : 0;
    });
}

}  // namespace fts::cli
