// The transport that starts a host's `fts node`: a local child for localhost, `ssh HOST fts node ...` for
// the others (ssh_command.h quotes every argument). Also the probe run on every remote host before any
// rank starts: reachable with the user's keys in BatchMode, the remote `fts` there, the same version.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/launch/launch_plan.h"
#include "core/launch/ssh_command.h"
#include "core/util/child_process.h"

namespace fts {

struct TransportOptions {
    std::filesystem::path localFts;  // this `fts`
    std::string remoteFts;           // `fts` on the remote hosts (empty: the same path as localFts)
    SshOptions ssh;
};

struct NodeCommand {
    std::filesystem::path configPath;  // absolute; the same path must hold the config on every host
    std::string configOverrides;       // a JSON merge patch over the config (fts train --output_dir ...); may be empty
    int64_t runId = 0;
    int worldSize = 1;
    std::string masterAddr;
    int masterPort = 0;
    int collectiveTimeoutMs = 30000;
    bool resume = false;
    bool check = false;  // `fts hosts check` instead of training (configPath may be empty)
};

// The argv that starts `node` (for a remote node: the ssh client's argv).
std::vector<std::string> nodeArgv(const NodePlan& node, const NodeCommand& command, const TransportOptions& options);
ChildProcess startNode(const NodePlan& node, const NodeCommand& command, const TransportOptions& options,
                       const std::vector<std::string>& env);

struct HostProbe {
    std::string host;
    bool ok = false;
    std::string error;  // why not, naming the host (empty when ok)
    std::string ftsVersion;
    std::string hostname;    // the remote machine's own name
    std::string clientAddr;  // this machine's address as the remote host saw it (SSH_CONNECTION)
    std::string gpusJson;    // [{"index","name","memory_total_mib","memory_used_mib"}], "[]" without nvidia-smi
    double seconds = 0;
};

// The rendezvous address: `given` (--master_addr; it must be this machine's: the launcher hosts the store), else
// 127.0.0.1 for a local plan, else the address the first remote host saw this machine's ssh session come from.
// Throws ConfigError.
std::string chooseMasterAddr(const std::string& given, const LaunchPlan& plan, const std::vector<HostProbe>& probes);

// Probes every host at once (`ssh HOST fts node --probe`; localhost runs it here), each within timeoutMs
// (then killed). A version other than ours is an error, and so is a missing path of requiredPaths (the config,
// model and data every rank opens at the same path). Never throws for a bad host: see HostProbe::error.
std::vector<HostProbe> probeHosts(const std::vector<std::string>& hosts, const TransportOptions& options, int timeoutMs,
                                  const std::vector<std::string>& requiredPaths = {});

}  // namespace fts
