// `fts hosts check --hostfile FILE`: before training, does what the seed's hand-written test_multinode.py
// does. Probes every host (reachable, fts there, the same version, GPUs), then starts one rank per slot on
// every host (the same launch as `fts train`), runs a verified broadcast and all-reduce over Gloo (and NCCL
// where there are GPUs) and a ping-pong between every pair of hosts, and reports per host and per link
// whether it worked, how long it took and the bandwidth, with the cause when not.
#pragma once
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace fts {

struct HostsCheckOptions {
    std::filesystem::path hostfile;
    std::string include, exclude;
    int numNodes = 0, numGpus = 0;
    std::string masterAddr;
    int masterPort = 0;  // 0: a free port
    int sshPort = 0;
    std::string sshConfig;
    std::string remoteFts;
    std::filesystem::path localFts;  // this `fts`
    int timeoutMs = 30000;           // each collective, and the rendezvous
    int probeTimeoutMs = 10000;
    std::function<std::shared_ptr<void>(int listenFd, const std::string& host, int port, const std::string& token)>
        hostStore;
};

// The report: {"ok": b, "hosts": [{host, ok, error, hostname, fts, gpus, seconds}], "checks": [check events],
// "errors": ["..."]}. Never throws for a host problem (it is in the report); throws ConfigError for a bad
// hostfile or option.
nlohmann::json checkHosts(const HostsCheckOptions& options, std::ostream* progress);

// The report as text, one line per host, test and link.
std::string formatHostsReport(const nlohmann::json& report);

}  // namespace fts
