// Where and how the ranks of a run meet: the options of connectRanks (communicator.h), without LibTorch so
// the CLI and the launcher can fill them in.
#pragma once
#include <chrono>
#include <string>

namespace fts {

enum class DistBackend { Gloo, Nccl };
enum class ReduceKind { Sum, Max };

// Where and how the ranks of a run meet (see rendezvous.h for the token scheme).
struct DistOptions {
    std::string host = "127.0.0.1";     // the TCP store's address (rank 0 or the launcher hosts it)
    int port = 0;                       // the TCP store's port (must be known to every rank)
    int listenFd = -1;                  // rank 0 only: an already bound+listening socket to host the store on
    bool storeHostedElsewhere = false;  // the launcher hosts the store (StoreServer): rank 0 connects as a client
    std::string localAddr;              // this rank's address for Gloo's sockets (empty: the store's host)
    int rank = 0;
    int worldSize = 1;
    std::string token;                         // per-run random token; every rank must present the same one
    std::chrono::milliseconds timeout{30000};  // per collective and for the rendezvous
    DistBackend backend = DistBackend::Gloo;
};

}  // namespace fts
