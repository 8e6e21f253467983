// How many CPU threads each rank of a host computes with (OMP_NUM_THREADS), when the user chose none: LibTorch
// gives every process all the CPUs, so several ranks on one host would each start that many OpenMP threads, which
// then spin against each other (a 2-rank CPU run took 4x the CPU time on 2 cores). Each rank gets an equal share of
// the CPUs this process may run on instead, as DeepSpeed's launcher does with --bind_cores_to_rank (torchrun gives
// each rank 1). A value the user set (in the environment or through .deepspeed_env) is kept as it is.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace fts {

// The CPUs this process may run on (its affinity mask: taskset, a Slurm or container cpuset), at least 1.
int usableCpus();

// The OMP_NUM_THREADS to give each of `ranks` ranks on a host with `cpus` CPUs, or nothing when the variable is
// already chosen (`env`: NAME=VALUE entries, as the ranks will see them) or a single rank has the host to itself.
std::optional<int> defaultThreadsPerRank(const std::vector<std::string>& env, int ranks, int cpus);

// The run log's line for that choice.
std::string threadsPerRankNote(int threads, int ranks, int cpus);

// Applies the rule to the environment of a host's `ranks` ranks: adds OMP_NUM_THREADS when it is chosen here and
// returns the run log's line for it (nothing when the user's choice or LibTorch's default stands).
std::optional<std::string> shareCpusAmongRanks(std::vector<std::string>& env, int ranks);

}  // namespace fts
