// C10dCommunicator (see c10d_communicator.h) and connectRanks(): rendezvous, then the backend by kind.
#include "core/dist/c10d_communicator.h"

#include <sstream>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "core/dist/rendezvous.h"
#include "core/dist/routed_communicator.h"

namespace fts {

namespace {

std::string shapeOf(const torch::Tensor& t) {
    std::ostringstream ss;
    ss << t.sizes() << ' ' << t.dtype();
    return ss.str();
}

// worldSize 1: every collective is an identity.
class SoloCommunicator : public Communicator {
public:
    int rank() const override { return 0; }
    int worldSize() const override { return 1; }
    std::string backendName() const override { return "solo"; }
    bool takes(const torch::Tensor&) const override { return true; }  // identities: any device
    void allReduce(torch::Tensor&, ReduceKind) override {}
    void reduceScatter(torch::Tensor& output, torch::Tensor& input) override { output.copy_(input.view_as(output)); }
    void allGather(torch::Tensor& output, torch::Tensor& input) override { output.copy_(input.view_as(output)); }
    void broadcast(torch::Tensor&, int) override {}
    void reduce(torch::Tensor&, int) override {}
    void barrier() override {}
};

}  // namespace

C10dCommunicator::C10dCommunicator(c10::intrusive_ptr<c10d::Backend> backend, const DistOptions& o, std::string name,
                                   c10::DeviceType tensorDevice)
    : m_backend(std::move(backend)),
      m_rank(o.rank),
      m_worldSize(o.worldSize),
      m_timeout(o.timeout),
      m_name(std::move(name)),
      m_tensorDevice(tensorDevice) {}

void requireTakes(const Communicator& comm, const char* op, const torch::Tensor& t) {
    if (comm.takes(t)) return;
    throw DistError("rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.worldSize()) + ": " +
                    comm.backendName() + " " + op + ": a " + c10::DeviceTypeName(t.device().type(), true) +
                    " tensor, but " + comm.backendName() + " takes only " +
                    c10::DeviceTypeName(comm.tensorDevice(), true) + " tensors");
}

template <class F>
void C10dCommunicator::run(const char* op, const torch::Tensor* tensor, F&& start) {
    auto fail = [&](const std::string& cause) {
        throw DistError("rank " + std::to_string(m_rank) + " of " + std::to_string(m_worldSize) + ": " + m_name + " " +
                        op + (tensor ? " of " + shapeOf(*tensor) : std::string()) + " failed: " + cause);
    };
    if (tensor) requireTakes(*this, op, *tensor);
    try {
        c10::intrusive_ptr<c10d::Work> work = start();
        if (!work->wait(m_timeout)) fail("timed out after " + std::to_string(m_timeout.count()) + " ms");
    } catch (const DistError&) {
        throw;
    } catch (const c10::Error& e) {
        fail(e.what_without_backtrace());
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

void C10dCommunicator::allReduce(torch::Tensor& tensor, ReduceKind op) {
    run("allReduce", &tensor, [&] {
        std::vector<at::Tensor> ts{tensor};
        c10d::AllreduceOptions ao;
        ao.reduceOp = op == ReduceKind::Sum ? c10d::ReduceOp::SUM : c10d::ReduceOp::MAX;
        ao.timeout = m_timeout;
        return m_backend->allreduce(ts, ao);
    });
}

void C10dCommunicator::reduceScatter(torch::Tensor& output, torch::Tensor& input) {
    if (input.numel() != output.numel() * m_worldSize)
        throw DistError("rank " + std::to_string(m_rank) + ": reduceScatter needs an input of worldSize * " +
                        std::to_string(output.numel()) + " elements, got " + std::to_string(input.numel()));
    requireTakes(*this, "reduceScatter", output);
    run("reduceScatter", &input, [&] {
        c10d::ReduceScatterOptions ro;
        ro.timeout = m_timeout;
        return m_backend->_reduce_scatter_base(output, input, ro);
    });
}

void C10dCommunicator::allGather(torch::Tensor& output, torch::Tensor& input) {
    if (output.numel() != input.numel() * m_worldSize)
        throw DistError("rank " + std::to_string(m_rank) + ": allGather needs an output of worldSize * " +
                        std::to_string(input.numel()) + " elements, got " + std::to_string(output.numel()));
    requireTakes(*this, "allGather", output);
    run("allGather", &input, [&] {
        c10d::AllgatherOptions go;
        go.timeout = m_timeout;
        return m_backend->_allgather_base(output, input, go);
    });
}

void Communicator::send(torch::Tensor&, int) {
    throw DistError("rank " + std::to_string(rank()) + ": " + backendName() + " has no point-to-point send");
}
void Communicator::recv(torch::Tensor&, int) {
    throw DistError("rank " + std::to_string(rank()) + ": " + backendName() + " has no point-to-point recv");
}

void C10dCommunicator::send(torch::Tensor& tensor, int peer) {
    run("send", &tensor, [&] {
        std::vector<at::Tensor> ts{tensor};
        return m_backend->send(ts, peer, 0);
    });
}

void C10dCommunicator::recv(torch::Tensor& tensor, int peer) {
    run("recv", &tensor, [&] {
        std::vector<at::Tensor> ts{tensor};
        return m_backend->recv(ts, peer, 0);
    });
}

void C10dCommunicator::broadcast(torch::Tensor& tensor, int root) {
    run("broadcast", &tensor, [&] {
        std::vector<at::Tensor> ts{tensor};
        c10d::BroadcastOptions bo;
        bo.rootRank = root;
        bo.timeout = m_timeout;
        return m_backend->broadcast(ts, bo);
    });
}

void C10dCommunicator::reduce(torch::Tensor& tensor, int root) {
    run("reduce", &tensor, [&] {
        std::vector<at::Tensor> ts{tensor};
        c10d::ReduceOptions ro;
        ro.reduceOp = c10d::ReduceOp::SUM;
        ro.rootRank = root;
        ro.timeout = m_timeout;
        return m_backend->reduce(ts, ro);
    });
}

void C10dCommunicator::barrier() {
    run("barrier", nullptr, [&] {
        c10d::BarrierOptions bo;
        bo.timeout = m_timeout;
        return m_backend->barrier(bo);
    });
}

std::unique_ptr<Communicator> connectRanks(const DistOptions& o) {
    if (o.worldSize < 1 || o.rank < 0 || o.rank >= o.worldSize)
        throw DistError("rank " + std::to_string(o.rank) + " is outside world size " + std::to_string(o.worldSize));
    if (o.worldSize == 1) return std::make_unique<SoloCommunicator>();
    auto store = rendezvous(o);
    if (o.backend == DistBackend::Nccl) {
        auto ncclStore = c10::make_intrusive<c10d::PrefixStore>("nccl/", store);
        auto glooStore = c10::make_intrusive<c10d::PrefixStore>("gloo/", store);
        auto device =
            std::make_unique<C10dCommunicator>(makeNcclBackend(ncclStore, o), o, "nccl", c10::DeviceType::CUDA);
        auto host = std::make_unique<C10dCommunicator>(makeGlooBackend(glooStore, o), o, "gloo");
        return std::make_unique<RoutedCommunicator>(std::move(device), std::move(host));
    }
    return std::make_unique<C10dCommunicator>(makeGlooBackend(store, o), o, "gloo");
}

DistBackend backendForDevice(const torch::Device& device) {
    return device.is_cuda() ? DistBackend::Nccl : DistBackend::Gloo;
}

}  // namespace fts
