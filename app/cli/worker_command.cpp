// `fts worker --config FILE --run-id N --rank R --local-rank L --world-size W [--resume]`: one training rank,
// started by its host's `fts node`. stdout carries only JSON-lines events; SIGTERM (or SIGINT) asks for a
// checkpoint and a clean stop, received by a watcher thread (stop_signal_watcher.h: never by a thread in a GEMM).
// With W > 1 the run token is the first line on stdin ({"token": ...}: never argv or the environment); the
// rendezvous address comes from the environment the node sets (FTS_MASTER_ADDR, FTS_MASTER_PORT: the store the
// supervisor hosts, FTS_LOCAL_ADDR, FTS_COLLECTIVE_TIMEOUT_MS).
#include <sys/prctl.h>

#include <cstdlib>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/cli/commands.h"
#include "core/dist/dist_error.h"
#include "core/dist/link_check.h"
#include "core/train/trainer.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/util/stop_signal_watcher.h"

#include <nlohmann/json.hpp>

namespace fts::cli {

void addWorkerCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("worker", "One training rank (started by `fts train`; speaks JSON lines on stdout)");
    auto configPath = std::make_shared<std::filesystem::path>();
    auto opts = std::make_shared<TrainOptions>();
    cmd->add_option("--config", *configPath, "Training config (not with --check)");
    auto overrides = std::make_shared<std::string>();
    cmd->add_option("--config-overrides", *overrides,
                    "JSON merge patch over the config (fts train's --output_dir, --max_steps, --seed)");
    auto check = std::make_shared<bool>(false);
    auto host = std::make_shared<std::string>();
    cmd->add_flag("--check", *check, "Run the hosts check (collectives and links) instead of training");
    cmd->add_option("--host", *host, "This rank's host as the hostfile names it");
    cmd->add_option("--run-id", opts->runId, "Run id in the store");
    cmd->add_option("--rank", opts->rank, "This rank");
    cmd->add_option("--local-rank", opts->localRank, "Rank on this host (picks the CUDA device)");
    cmd->add_option("--world-size", opts->worldSize, "Number of ranks");
    cmd->add_flag("--resume", opts->resume, "Continue from the latest checkpoint");
    cmd->add_option("--resume-from", opts->resumeFrom, "Continue from this checkpoint folder");
    cmd->callback([configPath, overrides, opts, check, host] {
        // Its node starts it with SIGTERM and SIGINT blocked; they stay blocked in this thread and in every thread
        // LibTorch starts, and a stop sent while it loaded arrives at the watcher now.
        std::atomic<bool> stop{false};
        const StopSignalWatcher stopSignals([&stop](int) { stop.store(true); });
        if (!opts->resumeFrom.empty()) opts->resume = true;
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a rank never outlives its supervisor
        auto env = [](const char* name) -> std::string {
            const char* v = std::getenv(name);
            return v ? v : "";
        };
        if (!env("FTS_MASTER_ADDR").empty()) opts->masterAddr = env("FTS_MASTER_ADDR");
        if (!env("FTS_MASTER_PORT").empty()) opts->masterPort = std::atoi(env("FTS_MASTER_PORT").c_str());
        if (!env("FTS_LOCAL_ADDR").empty()) opts->localAddr = env("FTS_LOCAL_ADDR");
        if (!env("FTS_COLLECTIVE_TIMEOUT_MS").empty())
            opts->collectiveTimeoutMs = std::atoi(env("FTS_COLLECTIVE_TIMEOUT_MS").c_str());
        JsonLinesSink events(stdout);
        if (opts->worldSize > 1) {
            opts->storeHostedByLauncher = true;
            std::string line;
            if (std::getline(std::cin, line)) {
                try {
                    opts->runToken = parseJson(line).value("token", "");
                } catch (const std::exception&) {
                }
            }
        }
        try {
            if (*check) {
                LinkCheckOptions lc;
                lc.dist.host = opts->masterAddr;
                lc.dist.port = opts->masterPort;
                lc.dist.storeHostedElsewhere = true;
                lc.dist.localAddr = opts->localAddr;
                lc.dist.rank = opts->rank;
                lc.dist.worldSize = opts->worldSize;
                lc.dist.token = opts->runToken;
                lc.dist.timeout = std::chrono::milliseconds(opts->collectiveTimeoutMs);
                lc.host = *host;
                lc.localRank = std::max(0, opts->localRank);
                runLinkCheck(lc, [&](const nlohmann::json& ev) {
                    nlohmann::json e = ev;
                    e["rank"] = opts->rank;
                    e["time"] = unixNow();
                    events.publish(e);
                });
                exitCode() = 0;
                return;
            }
            if (configPath->empty()) throw ConfigError("fts worker: --config is required");
            const nlohmann::json patch = overrides->empty() ? nlohmann::json(nullptr) : parseJson(*overrides);
            TrainConfig cfg = loadTrainConfig(*configPath, opts->worldSize, patch);
            runTraining(cfg, *opts, events, stop);
            exitCode() = 0;
        } catch (const DistError& e) {  // a collective failed: often because a peer died (the supervisor decides)
            events.publishEvent(ErrorEvent{e.what(), true}, opts->rank);
            exitCode() = 1;
        } catch (const std::exception& e) {
            events.publishEvent(ErrorEvent{e.what(), false}, opts->rank);
            exitCode() = 1;
        }
    });
}

}  // namespace fts::cli
