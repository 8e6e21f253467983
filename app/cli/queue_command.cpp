// `fts queue add|list|remove|move|clear|run`: the run queue in the store (core/store/run_queue.h). `run` is the
// foreground worker that starts the waiting runs on free devices (core/launch/queue_runner.h); the studio starts
// one in the background when the queue has work and no runner holds it. docs/queue.md.
#include <csignal>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/launch/queue_add.h"
#include "core/launch/queue_runner.h"
#include "core/store/run_queue.h"
#include "core/store/run_store.h"
#include "core/util/error.h"
#include "core/util/stop_signal_watcher.h"
#include "core/util/wall_clock.h"

namespace fts::cli {

namespace {

nlohmann::json entryJson(const QueueEntry& e) {
    nlohmann::json j = {{"id", e.id},
                        {"name", e.name},
                        {"status", toString(e.status)},
                        {"devices", e.devices},
                        {"run_id", e.runId},
                        {"reason", e.reason},
                        {"sweep", e.sweep},
                        {"submission", e.submission},
                        {"position", e.position},
                        {"config_path", e.configPath},
                        {"created_at", e.createdAt},
                        {"started_at", e.startedAt},
                        {"ended_at", e.endedAt},
                        {"resume", e.resume},
                        {"cancel_requested", e.cancelRequested}};
    if (!e.sweepValues.empty()) j["sweep_values"] = nlohmann::json::parse(e.sweepValues, nullptr, false);
    return j;
}

std::filesystem::path storeOf(const std::filesystem::path& given) {
    return given.empty() ? RunStore::defaultPath() : given;
}

}  // namespace

void addQueueCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("queue", "The run queue: runs waiting for a GPU, a CPU slot or SSH hosts");
    cmd->require_subcommand(1);
    auto store = std::make_shared<std::filesystem::path>();
    cmd->add_option("--store", *store, "Run store file (default: $XDG_DATA_HOME/finetune-studio/runs.sqlite)");

    auto* add = cmd->add_subcommand("add", "Queue a config (a config with a sweep block queues each of its runs)");
    auto addOpts = std::make_shared<QueueAddOptions>();
    add->add_option("config", addOpts->configPath, "Training config (JSON)")->required()->check(CLI::ExistingFile);
    add->add_option("--devices", addOpts->devices,
                    "auto (default: one GPU, else a CPU slot), cpu, cpu:N, gpus:N, localhost:0,2 or hostfile:PATH");
    add->add_option("--name", addOpts->name, "Run name (default: training.run_name or the file name)");
    add->add_option("--store", *store, "Run store file");
    add->callback([=] {
        try {
            RunStore s(storeOf(*store));
            const QueueAddResult r = addToQueue(s, *addOpts);
            for (const std::string& n : r.notes)
                std::cerr << "note: " << addOpts->configPath.string() << ": sweep: " << n << "\n";
            for (const std::string& w : r.warnings)
                std::cerr << "warning: " << addOpts->configPath.string() << ": sweep: " << w << "\n";
            if (!r.sweep.empty()) std::cout << "sweep \"" << r.sweep << "\": " << r.ids.size() << " runs queued\n";
            for (size_t i = 0; i < r.ids.size(); ++i) std::cout << r.ids[i] << "\t" << r.names[i] << "\n";
            if (queueRunnerPid(s.path()) == 0)
                std::cerr << "no queue runner is running: start one with `fts queue run` (or open the studio)\n";
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            exitCode() = 2;
        }
    });

    auto* list = cmd->add_subcommand("list", "The queue: waiting and running first, then finished");
    auto json = std::make_shared<bool>(false);
    list->add_flag("--json", *json, "Print the entries as JSON");
    list->add_option("--store", *store, "Run store file");
    list->callback([=] {
        RunStore s(storeOf(*store), true);
        RunQueue q(s);
        const auto entries = q.list();
        const int64_t runner = queueRunnerPid(s.path());
        if (*json) {
            nlohmann::json out = nlohmann::json::array();
            for (const QueueEntry& e : entries) out.push_back(entryJson(e));
            std::cout << nlohmann::json{{"runner_pid", runner}, {"entries", out}}.dump(2) << "\n";
            return;
        }
        std::cout << (runner != 0 ? "queue runner: pid " + std::to_string(runner) : std::string("queue runner: none"))
                  << "\n";
        std::printf("%-5s %-10s %-14s %-6s %-40s %s\n", "id", "status", "devices", "run", "name", "why / result");
        for (const QueueEntry& e : entries)
            std::printf("%-5lld %-10s %-14s %-6s %-40s %s\n", static_cast<long long>(e.id), toString(e.status),
                        e.devices.c_str(), e.runId > 0 ? std::to_string(e.runId).c_str() : "-", e.name.c_str(),
                        e.reason.c_str());
    });

    auto* remove = cmd->add_subcommand(
        "remove", "Cancel waiting entries, stop running ones (their run is saved and stopped), delete finished ones");
    auto ids = std::make_shared<std::vector<int64_t>>();
    remove->add_option("ids", *ids, "Queue entry ids")->required();
    remove->add_option("--store", *store, "Run store file");
    remove->callback([=] {
        RunStore s(storeOf(*store));
        RunQueue q(s);
        for (int64_t id : *ids) {
            const auto e = q.get(id);
            if (!e) {
                std::cerr << "error: queue entry " << id << " does not exist\n";
                exitCode() = 2;
                continue;
            }
            if (e->finished()) {
                q.remove(id);
                std::cout << id << ": removed from the list (its run stays in the store)\n";
            } else if (q.cancel(id)) {
                std::cout << id
                          << (e->status == QueueStatus::Running ? ": stopping (the queue runner stops its run)\n"
                                                                : ": cancelled\n");
            }
        }
    });

    auto* move = cmd->add_subcommand("move", "Move a waiting entry to a place among the waiting (1: next to start)");
    auto moveId = std::make_shared<int64_t>(0);
    auto place = std::make_shared<int>(1);
    move->add_option("id", *moveId, "Queue entry id")->required();
    move->add_option("position", *place, "Its place among the waiting entries, from 1")
        ->required()
        ->check(CLI::PositiveNumber);
    move->add_option("--store", *store, "Run store file");
    move->callback([=] {
        try {
            RunStore s(storeOf(*store));
            RunQueue(s).move(*moveId, *place - 1);
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            exitCode() = 2;
        }
    });

    auto* clear = cmd->add_subcommand("clear", "Delete the finished entries from the list (their runs stay)");
    clear->add_option("--store", *store, "Run store file");
    clear->callback([=] {
        RunStore s(storeOf(*store));
        std::cout << RunQueue(s).clearFinished() << " finished entries removed\n";
    });

    auto* run =
        cmd->add_subcommand("run", "Run the queue in the foreground until it is empty (Ctrl-C: stop, resumable)");
    auto runOpts = std::make_shared<QueueRunnerOptions>();
    auto gpus = std::make_shared<std::string>();
    auto wait = std::make_shared<bool>(false);
    run->add_option("--cpu-slots", runOpts->cpuSlots, "Runs on the CPU at once (default 1)")->check(CLI::Range(1, 64));
    run->add_option("--gpus", *gpus, "GPU ids to use, e.g. 0,1, or none (default: every GPU nvidia-smi lists)");
    run->add_flag("--wait", *wait, "Keep running when the queue is empty, for entries added later");
    run->add_option("--store", *store, "Run store file");
    run->callback([=] {
        try {
            QueueRunnerOptions o = *runOpts;
            o.storePath = storeOf(*store);
            o.ftsExecutable = selfExecutable();
            o.untilEmpty = !*wait;
            if (!gpus->empty()) {
                o.gpusGiven = true;
                if (*gpus != "none")
                    for (size_t start = 0; start <= gpus->size();) {
                        const size_t comma = gpus->find(',', start);
                        const std::string id = gpus->substr(start, comma - start);
                        try {
                            o.gpus.push_back(std::stoi(id));
                        } catch (const std::exception&) {
                            throw ConfigError("--gpus \"" + *gpus + "\": expected GPU ids such as 0,1, or none");
                        }
                        if (comma == std::string::npos) break;
                        start = comma + 1;
                    }
            }
            o.log = [](const std::string& line) { std::cerr << "queue: " << line << std::endl; };
            static std::atomic<bool> stop{false};
            StopSignalWatcher watcher([](int) { stop = true; });
            exitCode() = runQueue(o, stop);
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            exitCode() = 2;
        }
    });
}

}  // namespace fts::cli
