// Collectives between the ranks of one run: a narrow interface over LibTorch's c10d backends (Gloo for
// CPU tensors, NCCL for CUDA tensors). Every failure, timeout included, throws DistError naming the rank,
// the world size and the operation. No collective algorithm is implemented here: c10d does the work.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <torch/torch.h>

#include "core/dist/dist_error.h"
#include "core/dist/dist_options.h"
#include "core/util/run_token.h"  // newRunToken()

namespace fts {

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int worldSize() const = 0;
    virtual std::string backendName() const = 0;
    // The device type whose tensors the collectives take (Gloo: CPU, NCCL: CUDA). A tensor of another device
    // is refused with a DistError naming the backend and the operation (requireTakes), never handed to c10d.
    virtual c10::DeviceType tensorDevice() const { return c10::DeviceType::CPU; }
    virtual bool takes(const torch::Tensor& t) const { return t.device().type() == tensorDevice(); }

    // In place on every rank.
    virtual void allReduce(torch::Tensor& tensor, ReduceKind op = ReduceKind::Sum) = 0;
    // input: worldSize * output.numel() elements, contiguous; output gets the sum of this rank's chunk.
    virtual void reduceScatter(torch::Tensor& output, torch::Tensor& input) = 0;
    // output: worldSize * input.numel() elements, rank r's input at [r * n, (r + 1) * n).
    virtual void allGather(torch::Tensor& output, torch::Tensor& input) = 0;
    virtual void broadcast(torch::Tensor& tensor, int root) = 0;
    // Sum into `tensor` on rank `root` (contiguous); other ranks' tensors are left unspecified (scratch).
    virtual void reduce(torch::Tensor& tensor, int root) = 0;
    virtual void barrier() = 0;
    // Point to point (the link check): send blocks until the peer took the tensor; recv until it arrived.
    // Backends without it throw DistError.
    virtual void send(torch::Tensor& tensor, int peer);
    virtual void recv(torch::Tensor& tensor, int peer);
};

// Throws DistError "rank R of W: <backend> <op>: a <device> tensor, but <backend> takes only <type> tensors".
void requireTakes(const Communicator& comm, const char* op, const torch::Tensor& t);

// Meets the other ranks (rendezvous through the TCP store, token check) and builds the backend.
// worldSize 1 gives a communicator whose collectives are identities (no store, no sockets). NCCL comes with a
// Gloo group beside it on the same store (RoutedCommunicator): CPU tensors go through Gloo, CUDA ones NCCL.
std::unique_ptr<Communicator> connectRanks(const DistOptions& options);

// Picks the backend for a device: NCCL for CUDA, Gloo otherwise.
DistBackend backendForDevice(const torch::Device& device);

}  // namespace fts
