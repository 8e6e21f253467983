// `fts node ...`: one host's share of a run, started by `fts train` (locally or over ssh; see
// core/launch/node_runner.h). `fts node --probe` answers the launcher's pre-flight check with one JSON line.
#include <unistd.h>

#include <iostream>

#include "app/cli/commands.h"
#include "core/launch/node_runner.h"

namespace fts::cli {

void addNodeCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "node", "One host's ranks of a run (started by `fts train`; control on stdin, events on stdout)");
    auto o = std::make_shared<NodeOptions>();
    auto probe = std::make_shared<bool>(false);
    auto gpus = std::make_shared<std::string>();
    auto required = std::make_shared<std::vector<std::string>>();
    cmd->add_flag("--probe", *probe, "Print this host's fts version and GPUs as one JSON line, and exit");
    cmd->add_option("--require", *required, "With --probe: paths this host must have (listed as missing otherwise)");
    cmd->add_option("--config", o->configPath, "Training config (the same path on every host)");
    cmd->add_option("--config-overrides", o->configOverrides,
                    "JSON merge patch over the config (fts train's --output_dir, --max_steps, --seed)");
    cmd->add_option("--host", o->host, "This host's name in the hostfile (tags the events)");
    cmd->add_option("--run-id", o->runId, "Run id in the store");
    cmd->add_option("--world-size", o->worldSize, "Ranks of the run");
    cmd->add_option("--first-rank", o->firstRank, "Global rank of this host's local rank 0");
    cmd->add_option("--ranks", o->ranks, "Ranks on this host");
    cmd->add_option("--gpus", *gpus, "CUDA_VISIBLE_DEVICES for the ranks (comma-separated ids)");
    cmd->add_option("--master-addr", o->masterAddr, "Rendezvous store address");
    cmd->add_option("--master-port", o->masterPort, "Rendezvous store port");
    cmd->add_option("--collective-timeout", o->collectiveTimeoutMs, "Collective timeout in milliseconds");
    cmd->add_flag("--resume", o->resume, "Continue from the latest checkpoint");
    cmd->add_flag("--check", o->check, "Run the hosts check (fts hosts check) instead of training");
    cmd->callback([o, probe, gpus, required] {
        if (*probe) {
            std::cout << probeLine(*required) << std::endl;
            exitCode() = 0;
            return;
        }
        if ((o->configPath.empty() && !o->check) || o->ranks < 1 || o->worldSize < o->firstRank + o->ranks)
            throw CLI::ValidationError(
                "fts node", "needs --config (or --check), --ranks >= 1 and --world-size >= --first-rank + --ranks");
        std::string id;
        for (char c : *gpus + ",") {
            if (c != ',') {
                id += c;
                continue;
            }
            if (!id.empty()) o->gpus.push_back(std::stoi(id));
            id.clear();
        }
        o->workerExecutable = selfExecutable();
        exitCode() = runNode(*o, 0, 1);
    });
}

}  // namespace fts::cli
