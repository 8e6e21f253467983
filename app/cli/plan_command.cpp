// `fts plan CONFIG [--nproc N | --num_gpus N | --hostfile F] [--capacity SIZE] [--max-minutes M] [--probes K]
// [--json] [--apply]`: the fastest variant of a config that fits the memory a rank has (core/launch/fit_planner.h):
// the table of estimates and probes behind the choice, the keys the choice changes, and with --apply the config
// file rewritten in those keys only (docs/plan.md).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "app/cli/commands.h"
#include "core/config/memory_estimate.h"
#include "core/launch/fit_planner.h"
#include "core/launch/hostfile.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "core/util/json_parse.h"
#include "core/util/byte_size.h"
#include "core/util/error.h"
#include "core/util/json_text_edit.h"

namespace fts::cli {

namespace {

std::string table(const PlanResult& r) {
    std::string out;
    char line[320];
    std::snprintf(line, sizeof line, "%-3s %-66s %12s %14s %10s\n", "", "variant", "estimate", "measured peak",
                  "tokens/s");
    out += line;
    for (size_t i = 0; i < r.candidates.size(); ++i) {
        const PlanCandidate& c = r.candidates[i];
        if (!c.invalid.empty()) continue;
        if (!c.fitsByEstimate && !c.probe) continue;  // listed in --json; the table keeps what could be chosen
        const char* mark = r.chosen && *r.chosen == i ? "=> " : (c.knobs == r.current ? "*  " : "   ");
        std::string measured = "-", speed = c.fitsByEstimate ? "not probed" : "over";
        if (c.probe && c.probe->failure.empty()) {
            measured = formatBytes(c.probe->peak);
            char s[32];
            std::snprintf(s, sizeof s, "%.0f", c.probe->tokensPerS);
            speed = s;
        } else if (c.probe) {
            speed = "failed";
        }
        std::snprintf(line, sizeof line, "%-3s %-66s %12s %14s %10s\n", mark, c.knobs.label().c_str(),
                      formatBytes(c.estimatePeak).c_str(), measured.c_str(), speed.c_str());
        out += line;
        if (c.probe && !c.probe->failure.empty()) out += "      failed: " + c.probe->failure + "\n";
    }
    return out;
}

}  // namespace

void addPlanCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "plan", "Find the fastest variant of a config that fits this hardware (estimate, then probe the best few)");
    struct Args {
        std::filesystem::path config, store, hostfile;
        std::string capacity;
        double margin = 0.10, maxMinutes = 10;
        int probes = 4, nproc = 0, numGpus = 0;
        std::string include;
        int64_t steps = 6;
        bool json = false, apply = false;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("config", a->config, "Training config (JSON)")->required()->check(CLI::ExistingFile);
    cmd->add_option("--nproc", a->nproc, "Ranks on this machine (default 1)");
    cmd->add_option("--num_gpus,--num-gpus", a->numGpus, "One rank per GPU on the first N visible GPUs");
    cmd->add_option("--include", a->include, "GPUs of this machine, DeepSpeed syntax: localhost:0,2");
    cmd->add_option("--hostfile", a->hostfile, "DeepSpeed hostfile: plan for its hosts' ranks (needs --capacity)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--capacity", a->capacity,
                    "Memory one rank may use, e.g. 24GiB (default: the devices' free memory, as fts train judges)");
    cmd->add_option("--margin", a->margin, "Share of the capacity the estimate must leave free (default 0.10)")
        ->check(CLI::Range(0.0, 0.9));
    cmd->add_option("--max-minutes,--max_minutes", a->maxMinutes, "Time box for the probes (default 10)")
        ->check(CLI::Range(0.0, 1440.0));
    cmd->add_option("--probes", a->probes, "Probe at most this many variants (default 4; 0: estimate only)")
        ->check(CLI::Range(0, 64));
    cmd->add_option("--steps", a->steps, "Optimizer steps per probe (default 6; the first is not timed)")
        ->check(CLI::Range(2, 1000));
    cmd->add_option("--store", a->store, "Run store file (default: $XDG_DATA_HOME/finetune-studio/runs.sqlite)");
    cmd->add_flag("--json", a->json, "Print the plan as JSON");
    cmd->add_flag("--apply", a->apply, "Rewrite the config file's planned keys (only those) to the chosen variant");
    cmd->callback([a] {
        try {
            PlanOptions o;
            o.configPath = a->config;
            o.worldSize = std::max({1, a->nproc, a->numGpus});
            if (!a->include.empty()) {
                if (a->include.rfind("localhost:", 0) != 0)
                    throw ConfigError("--include \"" + a->include +
                                      "\": expected localhost:ID,ID (this machine's GPUs)");
                o.worldSize = int(std::count(a->include.begin(), a->include.end(), ',')) + 1;
                o.probe.include = a->include;
            }
            if (!a->hostfile.empty()) {
                if (a->nproc > 0 || a->numGpus > 0)
                    throw ConfigError("--hostfile names the ranks; it does not combine with --nproc or --num_gpus");
                if (a->capacity.empty())
                    throw ConfigError("--hostfile: the remote GPUs' free memory is not known here; give --capacity");
                int slots = 0;
                for (const HostSlots& h : readHostfile(a->hostfile)) slots += h.slotCount;
                o.worldSize = std::max(1, slots);
                o.probe.hostfile = a->hostfile;
            }
            if (!a->capacity.empty()) o.capacity = parseByteSize(a->capacity, "--capacity");
            o.margin = a->margin;
            o.maxMinutes = a->maxMinutes;
            o.maxProbes = a->probes;
            o.probe.steps = a->steps;
            o.probe.nproc = a->nproc;
            o.probe.numGpus = a->numGpus;
            o.probe.storePath = a->store.empty() ? RunStore::defaultPath() : a->store;
            o.probe.workerExecutable = selfExecutable();
            o.probe.hostStore = hostRendezvousStore;
            o.progress = [](const std::string& line) { std::cerr << "plan: " << line << std::endl; };
            o.probed = [json = a->json](const PlanCandidate& c) {
                if (json)
                    std::cerr << "plan: result " << toJson(PlanResult{.candidates = {c}})["candidates"][0].dump()
                              << std::endl;
            };
            const PlanResult r = planFit(o);

            std::vector<PlanKeyChange> changes;
            if (r.chosen) {
                const nlohmann::json document = parseJson(readFile(a->config));
                applyPlanKnobs(document, r.candidates[*r.chosen].knobs, a->config.parent_path(), o.worldSize, &changes);
            }
            if (a->json) {
                nlohmann::json out = toJson(r);
                nlohmann::json diff = nlohmann::json::array();
                for (const PlanKeyChange& c : changes)
                    diff.push_back({{"key", c.key}, {"before", c.before}, {"after", c.after}});
                out["changes"] = diff;
                std::cout << out.dump(2) << "\n";
            } else {
                std::cout << "capacity: " << formatBytes(r.capacity) << " per rank (" << r.capacitySource << "), "
                          << r.worldSize << (r.worldSize == 1 ? " rank" : " ranks") << "; plan took "
                          << int(r.seconds + 0.5) << " s" << (r.timeBoxReached ? " (time box reached)" : "") << "\n";
                for (const std::string& n : r.notes) std::cout << "note: " << n << "\n";
                std::cout << table(r);
                for (const PlanAdvice& a : r.advice) std::cout << a.text << "\n";
                if (r.chosen) {
                    const PlanCandidate& c = r.candidates[*r.chosen];
                    std::cout << "\nproposal: " << c.knobs.label();
                    if (c.probe && c.probe->failure.empty())
                        std::cout << " (" << int(c.probe->tokensPerS + 0.5) << " tokens/s, peak "
                                  << formatBytes(c.probe->peak) << ")";
                    if (r.chosenByEstimateOnly) std::cout << " (by the estimate alone: nothing was probed)";
                    std::cout << "\n";
                    if (changes.empty()) std::cout << "the config already is this variant: nothing to change\n";
                    for (const PlanKeyChange& ch : changes)
                        std::cout << "  " << ch.key << ": " << ch.before << " -> " << ch.after << "\n";
                }
            }
            if (a->apply && r.chosen && !changes.empty()) {
                // the planned keys set in the file as written: each value edited in its text, every other byte kept
                const std::string text = readFile(a->config);
                const nlohmann::ordered_json before = parseOrderedJson(text);
                nlohmann::ordered_json doc = before;
                std::vector<std::string> keys;
                for (const PlanKeyChange& ch : changes) {
                    keys.push_back(ch.key);
                    nlohmann::ordered_json* at = &doc;
                    std::string rest = ch.key;
                    for (size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) {
                        nlohmann::ordered_json& next = (*at)[rest.substr(0, dot)];
                        if (!next.is_object()) next = nlohmann::ordered_json::object();
                        at = &next;
                    }
                    (*at)[rest] = nlohmann::ordered_json::parse(ch.after);
                }
                writeFileAtomic(a->config, editedJsonText(text, before, doc, keys));
                std::cerr << "plan: wrote " << changes.size() << (changes.size() == 1 ? " key" : " keys") << " into "
                          << a->config.string() << "\n";
            }
            exitCode() = r.chosen ? 0 : 1;
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            exitCode() = 2;
        }
    });
}

}  // namespace fts::cli
