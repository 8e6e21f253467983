// One communicator over two backends, picked per tensor by its device: NCCL takes only CUDA tensors, so a GPU
// run keeps a Gloo group beside it (on the same store, its own key prefix) for the CPU tensors the trainer and
// the offloaded engines exchange (the stop flag, token counts, the logged loss, checkpoint rows, host partitions'
// norms). What goes where is decided here once, not at each call site.
#pragma once
#include <memory>

#include "core/dist/communicator.h"

namespace fts {

class RoutedCommunicator : public Communicator {
public:
    // device: the communicator for tensors on its tensorDevice() (NCCL: CUDA); host: for CPU tensors (Gloo).
    RoutedCommunicator(std::unique_ptr<Communicator> device, std::unique_ptr<Communicator> host);
    int rank() const override { return m_device->rank(); }
    int worldSize() const override { return m_device->worldSize(); }
    std::string backendName() const override { return m_device->backendName() + "+" + m_host->backendName(); }
    c10::DeviceType tensorDevice() const override { return m_device->tensorDevice(); }
    bool takes(const torch::Tensor& t) const override { return m_device->takes(t) || m_host->takes(t); }
    void allReduce(torch::Tensor& tensor, ReduceKind op) override { route(tensor).allReduce(tensor, op); }
    void reduceScatter(torch::Tensor& output, torch::Tensor& input) override {
        route(input).reduceScatter(output, input);
    }
    void allGather(torch::Tensor& output, torch::Tensor& input) override { route(input).allGather(output, input); }
    void broadcast(torch::Tensor& tensor, int root) override { route(tensor).broadcast(tensor, root); }
    void send(torch::Tensor& tensor, int peer) override { route(tensor).send(tensor, peer); }
    void recv(torch::Tensor& tensor, int peer) override { route(tensor).recv(tensor, peer); }
    void reduce(torch::Tensor& tensor, int root) override { route(tensor).reduce(tensor, root); }
    // Both groups: work queued on either is behind the barrier when it returns.
    void barrier() override {
        m_device->barrier();
        m_host->barrier();
    }

private:
    Communicator& route(const torch::Tensor& t) { return m_device->takes(t) ? *m_device : *m_host; }
    std::unique_ptr<Communicator> m_device, m_host;
};

}  // namespace fts
