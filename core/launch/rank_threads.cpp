// CPU threads per rank when several ranks share a host (rank_threads.h).
#include "core/launch/rank_threads.h"

#include <sched.h>

#include <algorithm>

namespace fts {

int usableCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return std::max(1, CPU_COUNT(&set));
}

std::optional<int> defaultThreadsPerRank(const std::vector<std::string>& env, int ranks, int cpus) {
    if (ranks <= 1) return std::nullopt;
    for (const std::string& kv : env)
        if (kv.starts_with("OMP_NUM_THREADS=")) return std::nullopt;
    return std::max(1, cpus / ranks);
}

std::string threadsPerRankNote(int threads, int ranks, int cpus) {
    return "OMP_NUM_THREADS is not set: each of the " + std::to_string(ranks) + " ranks on this host computes with " +
           std::to_string(threads) + (threads == 1 ? " CPU thread (" : " CPU threads (") + std::to_string(cpus) +
           " CPUs shared by " + std::to_string(ranks) +
           " ranks); set OMP_NUM_THREADS (or put it in .deepspeed_env) to choose another number";
}

std::optional<std::string> shareCpusAmongRanks(std::vector<std::string>& env, int ranks) {
    const int cpus = usableCpus();
    const std::optional<int> threads = defaultThreadsPerRank(env, ranks, cpus);
    if (!threads) return std::nullopt;
    env.push_back("OMP_NUM_THREADS=" + std::to_string(*threads));
    return threadsPerRankNote(*threads, ranks, cpus);
}

}  // namespace fts
