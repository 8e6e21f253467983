// `fts train CONFIG [--store FILE] [--resume] [--name NAME] [--output_dir DIR | --new-output] [--max_steps N]
// [--seed N] [--nproc N | --num_gpus N | --include/--exclude SPEC] [--hostfile FILE --num_nodes N --master_addr A
// --master_port P --ssh_port P --ssh-config F --remote-fts PATH]`: the supervisor (see core/launch/supervisor.h).
// DeepSpeed's spellings with '_' and '-' both work.
#include <signal.h>

#include <iostream>
#include <optional>

#include "app/cli/commands.h"
#include "core/dist/store_server.h"
#include "core/launch/supervisor.h"

namespace fts::cli {
namespace fs = std::filesystem;

int& exitCode() {
    static int code = 0;
    return code;
}

std::filesystem::path selfExecutable() { return std::filesystem::read_symlink("/proc/self/exe"); }

std::shared_ptr<void> hostRendezvousStore(int listenFd, const std::string& host, int port, const std::string& token) {
    return std::make_shared<StoreServer>(listenFd, host, port, token);
}

void addTrainCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("train", "Train with a config file; records the run in the store");
    auto opts = std::make_shared<SupervisorOptions>();
    cmd->add_option("config", opts->configPath, "Training config (JSON with a deepspeed block)")->required();
    cmd->add_option("--store", opts->storePath, "Run store file (default: $XDG_DATA_HOME/finetune-studio/runs.sqlite)");
    cmd->add_flag("--resume", opts->resume, "Continue from the latest checkpoint in training.output_dir");
    cmd->add_flag("--force", opts->force,
                  "Start even when the memory estimate exceeds the device's free memory (see fts estimate)");
    cmd->add_option("--name", opts->runName, "Run name (default: training.run_name or the config file name)");
    // The keys people change between runs of one config, set over the file for this run (and recorded with it).
    auto outputDir = std::make_shared<std::filesystem::path>();
    auto maxSteps = std::make_shared<std::optional<int64_t>>();
    auto seed = std::make_shared<std::optional<int64_t>>();
    cmd->add_option("--output_dir,--output-dir", *outputDir,
                    "Output folder for this run's checkpoints and export (sets training.output_dir)");
    cmd->add_option("--max_steps,--max-steps", *maxSteps, "Optimizer steps to train (sets training.max_steps)");
    cmd->add_option("--seed", *seed, "Random seed (sets training.seed)");
    auto profile = std::make_shared<bool>(false);
    cmd->add_flag("--profile", *profile,
                  "Profile steps 6-8 kernel by kernel into <output_dir>/profile/ (sets training.profile; "
                  "docs/benchmarks.md)");
    cmd->add_flag("--new-output", opts->newOutput,
                  "Write to a fresh folder beside training.output_dir (<dir>-2, -3, ...) when it is not empty, as "
                  "the studio does for a new run");
    cmd->add_option("--nproc", opts->nproc, "Ranks to start on this machine (data parallel; default 1)");
    cmd->add_option("--num_gpus,--num-gpus", opts->numGpus,
                    "One rank per GPU on the first N visible GPUs (DeepSpeed's)");
    cmd->add_option("--include", opts->include, "Hosts and GPUs to use, DeepSpeed syntax: host1:0,2@host2");
    cmd->add_option("--exclude", opts->exclude, "Hosts and GPUs to leave out, DeepSpeed syntax: host1:1");
    cmd->add_option("-H,--hostfile", opts->hostfile,
                    "DeepSpeed hostfile: one \"HOST slots=N\" per line; ranks start over ssh")
        ->check(CLI::ExistingFile);
    cmd->add_option("--num_nodes,--num-nodes", opts->numNodes, "Use the first N hosts of the hostfile");
    cmd->add_option(
        "--master_addr,--master-addr", opts->masterAddr,
        "Address of this machine the ranks reach the rendezvous at (default: as the first remote host sees it)");
    cmd->add_option("--master_port,--master-port", opts->masterPort,
                    "Rendezvous port (default 29500 with remote hosts)");
    cmd->add_option("--ssh_port,--ssh-port", opts->sshPort, "ssh port of the remote hosts (default: ssh's own)");
    cmd->add_option("--ssh-config", opts->sshConfig, "ssh client config file (ssh -F; default: ~/.ssh/config)");
    cmd->add_option("--remote-fts", opts->remoteFts,
                    "Path of fts on the remote hosts (default: the same path as here)");
    cmd->add_option("--collective-timeout", opts->collectiveTimeoutMs,
                    "Milliseconds a rank waits in a collective or the rendezvous before failing (default 30000)");
    auto quiet = std::make_shared<bool>(false);
    cmd->add_flag("--quiet", *quiet, "No progress output");
    cmd->add_option("--queue-entry", opts->queueEntry, "(the queue runner's) the queue entry this run starts")
        ->group("");  // hidden: `fts queue run` passes it
    cmd->callback([opts, quiet, outputDir, maxSteps, seed, profile] {
        opts->progress = !*quiet;
        if (!outputDir->empty()) opts->configOverrides["training"]["output_dir"] = fs::absolute(*outputDir).string();
        if (*maxSteps) opts->configOverrides["training"]["max_steps"] = **maxSteps;
        if (*seed) opts->configOverrides["training"]["seed"] = **seed;
        if (*profile) opts->configOverrides["training"]["profile"] = true;
        opts->workerExecutable = selfExecutable();
        opts->hostStore = hostRendezvousStore;
        exitCode() = superviseTraining(*opts, std::cerr);
        // The run is recorded as it ended: a stop arriving while the process unloads has nothing left to stop, and
        // must not turn a finished run's exit status into "killed by SIGTERM".
        ::signal(SIGINT, SIG_IGN);
        ::signal(SIGTERM, SIG_IGN);
    });
}

}  // namespace fts::cli
