// A config (or each run of its sweep) validated, given its own output folder and queued.
#include "core/launch/queue_add.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/config/sweep.h"
#include "core/config/train_config.h"
#include "core/launch/hostfile.h"
#include "core/launch/queue_devices.h"
#include "core/store/run_queue.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fs = std::filesystem;

namespace fts {

namespace {

// The folder itself when neither a waiting/running entry nor files hold it, else <dir>-2, -3, ...
fs::path freeFolder(const fs::path& dir, std::set<std::string>& taken) {
    std::error_code ec;
    auto isFree = [&](const fs::path& d) {
        return !taken.count(d.lexically_normal().string()) && (!fs::exists(d, ec) || fs::is_empty(d, ec));
    };
    fs::path chosen = dir;
    for (int k = 2; !isFree(chosen); ++k) chosen = dir.string() + "-" + std::to_string(k);
    taken.insert(chosen.lexically_normal().string());
    return chosen;
}

// The leaves of a resolved config by path ("deepspeed.optimizer.params.lr"), lists as leaves.
void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, nlohmann::json>& out) {
    if (!j.is_object()) {
        out[prefix] = j;
        return;
    }
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
}

std::string shownValue(const nlohmann::json& v) {
    if (v.is_null()) return "none";
    return v.is_string() ? v.get<std::string>() : v.dump();
}

// "lr=0.001 stage=2": the keys (by their last part) whose values differ between two resolved configs, at most three;
// the run's name, folder and data paths are not what a person compares.
std::string differences(const nlohmann::json& mine, const nlohmann::json& theirs) {
    std::map<std::string, nlohmann::json> a, b;
    flatten(mine, "", a);
    flatten(theirs, "", b);
    std::string label;
    int shown = 0;
    for (const auto& [key, value] : a) {
        if (key == "training.run_name" || key == "training.output_dir") continue;
        const auto other = b.find(key);
        if (other != b.end() && other->second == value) continue;
        if (++shown > 3) break;
        label += " " + key.substr(key.rfind('.') + 1) + "=" + shownValue(value);
    }
    return label;
}

// A queued run's name when another run or entry has it already: the name and what differs from the newest one of
// that name ("quickstart lr=0.001"), and " #2", " #3", ... while that is taken too (the same config queued again).
// `taken` holds each name's config as stored (JSON text): only the one a name collides with is read.
std::string distinctName(const std::string& name, const nlohmann::json& resolved,
                         const std::map<std::string, std::string>& taken) {
    const auto same = taken.find(name);
    if (same == taken.end()) return name;
    const nlohmann::json theirs = parseJsonOrDiscarded(same->second);
    std::string base = name + (theirs.is_object() ? differences(resolved, theirs) : std::string());
    if (!taken.count(base)) return base;
    for (int k = 2;; ++k)
        if (const std::string numbered = base + " #" + std::to_string(k); !taken.count(numbered)) return numbered;
}

}  // namespace

int ranksOf(const std::string& devices) { return parseDeviceRequest(devices).ranks; }

QueueAddResult addToQueue(RunStore& store, const QueueAddOptions& o) {
    const DeviceRequest request = parseDeviceRequest(o.devices);
    const int world = request.ranks;
    const std::string devices = request.text();
    const nlohmann::json document = parseJson(readFile(o.configPath));
    const fs::path baseDir = o.configPath.parent_path();
    struct Pending {
        nlohmann::json config;
        std::string name, values;
    };
    std::vector<Pending> pending;
    QueueAddResult result;
    if (hasSweep(document)) {
        const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(readFile(o.configPath));
        const SweepPlan plan = expandSweep(document, baseDir, world, &ordered);
        result.sweep = plan.name;
        result.warnings = plan.warnings;
        result.notes = plan.notes;
        for (const SweepRun& run : plan.runs) {
            nlohmann::ordered_json meta = {{"keys", plan.keys},
                                           {"values", run.values},
                                           {"metric", plan.metric},
                                           {"goal", plan.goal},
                                           {"method", plan.method}};
            if (!plan.description.empty()) meta["description"] = plan.description;
            if (plan.target) meta["target"] = *plan.target;
            pending.push_back(
                {run.config, o.name.empty() ? run.name : o.name + run.name.substr(run.name.find(' ')), meta.dump()});
        }
    } else {
        pending.push_back({document, "", ""});
    }
    std::set<std::string> taken;
    // the names in use, each with the resolved config of its newest run or entry (as stored; read on a collision)
    std::map<std::string, std::string> names;
    for (const RunRecord& r : store.listRuns(0))  // newest first: the first of a name is kept
        names.emplace(r.name, r.resolvedConfigJson);
    RunQueue queue(store);
    for (const QueueEntry& e : queue.list()) {
        names.emplace(e.name, e.configJson);
        if (!e.finished()) try {
                const nlohmann::json c = parseJson(e.configJson);
                taken.insert(
                    fs::path(c.at("training").at("output_dir").get<std::string>()).lexically_normal().string());
            } catch (const std::exception&) {
            }
    }
    std::vector<QueueEntry> entries;
    for (Pending& p : pending) {
        ConfigParseResult parsed = parseTrainConfig(p.config, baseDir, world);
        if (!parsed.ok()) throw ConfigError(o.configPath.string() + ": " + parsed.errorText());
        TrainConfig cfg = *parsed.config;
        cfg.training.outputDir = freeFolder(cfg.training.outputDir, taken);
        QueueEntry e;
        e.name = !p.name.empty()                 ? p.name
                 : !o.name.empty()               ? o.name
                 : !cfg.training.runName.empty() ? cfg.training.runName
                                                 : o.configPath.stem().string();
        nlohmann::json resolved = configToResolvedJson(cfg);
        e.name = distinctName(e.name, resolved, names);
        resolved["training"]["run_name"] = e.name;
        e.configJson = resolved.dump(2);
        names.emplace(e.name, e.configJson);  // the next run of this add differs from this one too
        e.configPath = fs::absolute(o.configPath).string();
        e.devices = devices;
        e.sweep = result.sweep;
        e.sweepValues = p.values;
        entries.push_back(std::move(e));
    }
    for (QueueEntry& e : entries) {  // every entry checked before any is queued; one submission
        e.submission = result.ids.empty() ? 0 : result.ids.front();
        result.ids.push_back(queue.add(e));
        result.names.push_back(e.name);
    }
    return result;
}

}  // namespace fts
