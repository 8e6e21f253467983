// The supervisor behind `fts train`: validates the config, plans the launch (launch_plan.h: a hostfile or
// local ranks), records the run in the store, probes the remote hosts, hosts the rendezvous store on
// master_addr, starts one `fts node` per host (node_transport.h: locally or over ssh), records their events
// (run_recorder.h), forwards stop requests (SIGINT/SIGTERM) to every host, applies the failure policy
// (failure_policy.h) and marks the run's final status.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/launch/launch_plan.h"
#include "core/launch/run_recorder.h"
#include "core/util/error.h"

namespace fts {

struct SupervisorOptions {
    std::filesystem::path configPath;
    std::filesystem::path storePath;         // empty: RunStore::defaultPath()
    std::filesystem::path workerExecutable;  // the `fts` binary (it runs `fts worker ...`)
    bool resume = false;
    bool force = false;   // start even when the memory estimate exceeds the devices' free memory
    std::string runName;  // overrides training.run_name
    // Keys of the config file set on the command line (fts train --output_dir, --max_steps, --seed): a JSON merge
    // patch the supervisor and every rank apply after reading the file (paths in it absolute). Recorded with the run
    // as part of its config.
    nlohmann::json configOverrides;
    bool newOutput = false;  // --new-output: a fresh output folder (<output_dir>-2, -3, ...) when it is not empty
    bool progress = true;    // progress bar / lines on the error stream
    int64_t queueEntry =
        0;  // started by the queue runner for this entry of the store's queue: its run is recorded there
    // Local multi-rank launch (see resolveLocalLaunch): 0 = not given.
    int nproc = 0;
    int numGpus = 0;
    std::string include, exclude;     // DeepSpeed's syntax, localhost only: "localhost:0,2"
    int collectiveTimeoutMs = 30000;  // each rank's collective/rendezvous timeout
    // Multi-host (DeepSpeed's launcher options): a hostfile, --num_nodes, the rendezvous address and port
    // (default: this machine's address as the first remote host sees it, port 29500), ssh's port and config
    // file, and the path of `fts` on the remote hosts (default: the same path as here).
    std::filesystem::path hostfile;
    int numNodes = 0;
    std::string masterAddr;
    int masterPort = 0;
    int sshPort = 0;
    std::string sshConfig;
    std::string remoteFts;
    int probeTimeoutMs = 10000;  // every remote host must answer the probe within this
    // Hosts the rendezvous store on an already listening socket (core/dist/store_server.h, given by the CLI so
    // this library needs no LibTorch). Returns an owner that keeps it alive for the run.
    std::function<std::shared_ptr<void>(int listenFd, const std::string& host, int port, const std::string& token)>
        hostStore;
};

// Exit codes: 0 completed or stopped cleanly, 1 the run failed (recorded in the store), 2 bad config/usage.
int superviseTraining(const SupervisorOptions& options, std::ostream& out);

}  // namespace fts
