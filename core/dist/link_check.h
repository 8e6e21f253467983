// The hosts check behind `fts hosts check` (what DeepSpeed users do with a hand-written test_multinode.py):
// every rank meets the others, a broadcast and an all-reduce are run and verified (Gloo on CPU tensors, and
// NCCL on CUDA tensors where there is a GPU) and timed, and between the first ranks of every pair of hosts a
// ping-pong of large messages measures each link. Results leave as JSON events (one per test and link).
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/dist/dist_options.h"

namespace fts {

struct LinkCheckOptions {
    DistOptions dist;          // backend: Gloo; NCCL is tried too when CUDA is there
    std::string host;          // this rank's host, as the hostfile names it
    int localRank = 0;         // picks the CUDA device
    int64_t bytes = 32 << 20;  // message size of the timed collectives and link transfers
    int repeats = 3;
};

// Events: {"event":"check","test":"broadcast"|"all_reduce","backend":B,"ok":b,"seconds":s,"gbps":g,"message":m}
// from rank 0 (ok: every rank verified the result), and {"event":"check","test":"link","from":H1,"to":H2,
// "ok":b,"gbps":g,"message":m} from the first rank of H1. Throws DistError when the ranks cannot meet.
void runLinkCheck(const LinkCheckOptions& options, const std::function<void(const nlohmann::json&)>& emit);

}  // namespace fts
