// The Communicator over any c10d::Backend (Gloo, NCCL): one place that waits on c10d's Work with the
// timeout and turns its failures into DistError naming rank, world size, operation and tensor shape.
#pragma once
#include <torch/csrc/distributed/c10d/Backend.hpp>

#include "core/dist/communicator.h"

namespace fts {

class C10dCommunicator : public Communicator {
public:
    // tensorDevice: the device type the backend takes (Gloo: CPU, NCCL: CUDA); others are refused before c10d.
    C10dCommunicator(c10::intrusive_ptr<c10d::Backend> backend, const DistOptions& options, std::string name,
                     c10::DeviceType tensorDevice = c10::DeviceType::CPU);
    int rank() const override { return m_rank; }
    int worldSize() const override { return m_worldSize; }
    std::string backendName() const override { return m_name; }
    c10::DeviceType tensorDevice() const override { return m_tensorDevice; }
    void allReduce(torch::Tensor& tensor, ReduceKind op) override;
    void reduceScatter(torch::Tensor& output, torch::Tensor& input) override;
    void allGather(torch::Tensor& output, torch::Tensor& input) override;
    void broadcast(torch::Tensor& tensor, int root) override;
    void send(torch::Tensor& tensor, int peer) override;
    void recv(torch::Tensor& tensor, int peer) override;
    void reduce(torch::Tensor& tensor, int root) override;
    void barrier() override;

private:
    template <class F>
    void run(const char* op, const torch::Tensor* tensor, F&& start);

    c10::intrusive_ptr<c10d::Backend> m_backend;
    int m_rank, m_worldSize;
    std::chrono::milliseconds m_timeout;
    std::string m_name;
    c10::DeviceType m_tensorDevice;
};

// Backend factories (gloo_backend.cpp, nccl_backend.cpp); the store comes from rendezvous().
c10::intrusive_ptr<c10d::Backend> makeGlooBackend(const c10::intrusive_ptr<c10d::Store>& store, const DistOptions& o);
c10::intrusive_ptr<c10d::Backend> makeNcclBackend(const c10::intrusive_ptr<c10d::Store>& store, const DistOptions& o);

}  // namespace fts
