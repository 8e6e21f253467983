// `fts node`: one per host of a run. Starts that host's ranks (`fts worker`) and multiplexes their events
// onto its stdout, each tagged with the host and the rank; its stdin is the control channel from the
// supervisor (locally a pipe, remotely the ssh session's standard input):
//   first line  {"token": "...", "env": {"NAME": "VALUE", ...}}   the run token and the exported variables
//   later lines {"op": "stop"} (SIGTERM: the ranks checkpoint and stop) or {"op": "kill"} (SIGKILL)
//   end of file the supervisor or its ssh session is gone: every rank is killed at once.
// Each rank gets the token on its own stdin (never in argv or the environment). The node's events:
//   {"event":"node_started","host":H,"pid":P,"fts":V}, every rank event with "host" added,
//   {"event":"stderr","host":H,"rank":R,"line":...}, {"event":"rank_exit","host":H,"rank":R,"ok":B,"signal":S,
//   "description":"..."}; the node exits (0 when every rank exited 0) once all its ranks have ended.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fts {

struct NodeOptions {
    std::filesystem::path workerExecutable;  // this `fts`
    std::filesystem::path configPath;
    std::string configOverrides;  // a JSON merge patch over the config, handed to the workers as it came
    std::string host;             // the name the hostfile gives this host (tags the events)
    int64_t runId = 0;
    int worldSize = 1;
    int firstRank = 0;
    int ranks = 1;           // ranks on this host (local ranks 0..ranks-1)
    std::vector<int> gpus;   // CUDA_VISIBLE_DEVICES for the ranks (empty: left as it is)
    std::string masterAddr;  // the supervisor's rendezvous store
    int masterPort = 0;
    int collectiveTimeoutMs = 30000;
    bool resume = false;
    bool check = false;  // `fts hosts check`: the ranks run the link check instead of training
};

// Runs the node until its ranks end; reads control from controlFd, writes events to eventFd.
// Returns the exit code (0: every rank exited 0).
int runNode(const NodeOptions& options, int controlFd, int eventFd);

// `fts node --probe [--require PATH]...`: one JSON line {"event":"probe","fts":V,"hostname":H,"gpus":[...],
// "missing":[paths]} (GPUs from nvidia-smi when it is there: index, name, memory_total_mib, memory_used_mib;
// missing: the required paths this host does not have).
std::string probeLine(const std::vector<std::string>& requiredPaths = {});

}  // namespace fts
