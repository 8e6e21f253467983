// The training engine for one rank: config -> tokenizer, data, model -> step loop with accumulation,
// clipping, schedule, bf16 autocast, periodic eval and atomic checkpoints -> HF export at the end.
// With worldSize > 1 the ranks are data parallel (ZeRO stage 0): gradients are averaged with an
// all-reduce, so N ranks compute what one rank computes on the same global batch.
// Progress leaves only as events (core/events/run_events.h). No LibTorch in this header: the CLI includes it.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/config/train_config.h"
#include "core/events/event_sink.h"
#include "core/util/checkpoint_dir.h"

namespace fts {

struct TrainOptions {
    bool resume = false;               // continue from the latest checkpoint in output_dir/checkpoints
    std::filesystem::path resumeFrom;  // a specific checkpoint folder (implies resume)
    int rank = 0;
    int worldSize = 1;
    int64_t runId = 0;  // recorded in checkpoints so a resume can continue the same run
    // Rendezvous of a multi-rank run (worldSize > 1; see core/dist/rendezvous.h): rank 0 hosts the TCP
    // store on storeFd (a listening socket it inherited) or binds masterAddr:masterPort itself, unless the
    // launcher hosts it (storeHostedByLauncher).
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;
    int storeFd = -1;
    bool storeHostedByLauncher = false;  // the supervisor hosts the store: rank 0 connects like the others
    std::string localAddr;               // this host's address toward masterAddr (Gloo binds it); empty: masterAddr
    int localRank = -1;                  // rank on this host: picks the CUDA device (-1: the global rank)
    std::string runToken;                // the per-run token (read from the worker's stdin, never argv or environment)
    int collectiveTimeoutMs = 30000;
};

enum class TrainOutcome { Completed, Stopped };

// Runs training to the end or until stopRequested becomes true (then checkpoints and returns Stopped).
// Throws fts::Error (or std::exception) on failure; the caller reports it as an error event.
TrainOutcome runTraining(const TrainConfig& config, const TrainOptions& options, EventSink& events,
                         const std::atomic<bool>& stopRequested);

}  // namespace fts
