// A config (or each run of its sweep) validated, given its own output folder and queued.
#include "core/launch/queue_add.h"

#include <algorithm>
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
    RunQueue queue(store);
    for (const QueueEntry& e : queue.list())
        if (!e.finished()) try {
                const nlohmann::json c = parseJson(e.configJson);
                taken.insert(
                    fs::path(c.at("training").at("output_dir").get<std::string>()).lexically_normal().string());
            } catch (const std::exception&) {
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
        cfg.training.runName = e.name;
        e.configJson = configToResolvedJson(cfg).dump(2);
        e.configPath = fs::absolute(o.configPath).string();
        e.devices = devices;
        e.sweep = result.sweep;
        e.sweepValues = p.values;
        entries.push_back(std::move(e));
    }
    for (QueueEntry& e : entries) {  // every entry checked before any is queued
        result.ids.push_back(queue.add(e));
        result.names.push_back(e.name);
    }
    return result;
}

}  // namespace fts
