// The launch plan: which ranks run on which host, with DeepSpeed's launcher semantics. From a hostfile
// (hostfile.h), --include/--exclude ("host:slot,slot@host"), --num_nodes and --num_gpus to nodes in hostfile
// order, each with its slots (the GPU ids CUDA_VISIBLE_DEVICES lists there) and its first global rank.
// Ranks are numbered as DeepSpeed numbers them: host by host in hostfile order, slots in ascending order.
#pragma once
#include <string>
#include <vector>

#include "core/launch/hostfile.h"

namespace fts {

struct NodePlan {
    std::string host;               // as written in the hostfile (an ssh destination)
    std::vector<int> slotIds;       // ascending; local rank i uses slotIds[i] (GPU ids where there are GPUs)
    int firstRank = 0;              // global rank of local rank 0
    bool local = false;             // localhost / 127.0.0.1: started without ssh
    bool setVisibleDevices = true;  // CUDA_VISIBLE_DEVICES=slotIds there (DeepSpeed does; not for plain --nproc)
};

struct LaunchPlan {
    std::vector<NodePlan> nodes;
    int worldSize = 0;
    bool remote() const;  // any node reached over ssh
};

// DeepSpeed's rules: include and exclude are exclusive; neither combines with num_nodes/num_gpus; a host or
// slot the hostfile lacks is an error; num_nodes keeps the first N hosts; num_gpus uses slots 0..N-1 on each.
// Unlike DeepSpeed, asking for more nodes or GPUs than the hostfile lists is an error, not silently fewer.
// numNodes/numGpus <= 0: not given. Throws ConfigError naming the option.
LaunchPlan planLaunch(const std::vector<HostSlots>& hosts, const std::string& include, const std::string& exclude,
                      int numNodes, int numGpus);

// The ranks to start on this machine: world size, and the GPU ids they see (CUDA_VISIBLE_DEVICES) if any.
struct LocalLaunch {
    int worldSize = 1;
    std::vector<int> gpus;  // empty: leave CUDA_VISIBLE_DEVICES as it is
};
// Rules (as DeepSpeed's launcher on one host): --include picks the listed GPU ids, --exclude removes ids
// from the visible ones (CUDA_VISIBLE_DEVICES, else 0..num_gpus-1), --num_gpus takes the first N visible;
// --nproc alone starts N ranks (CPU, or as many GPUs). cudaVisible: the CUDA_VISIBLE_DEVICES value or
// nullptr. Throws ConfigError naming the option for contradictions and hosts other than localhost.
LocalLaunch resolveLocalLaunch(int nproc, int numGpus, const std::string& include, const std::string& exclude,
                               const char* cudaVisible);

// Which rank runs where, for logs and the store: "h1: ranks 0-1 (slots 0,1); h2: ranks 2-3 (slots 0,1)".
std::string describePlan(const LaunchPlan& plan);

}  // namespace fts
