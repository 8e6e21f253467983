// Collective and per-link checks (see link_check.h).
#include "core/dist/link_check.h"

#include <chrono>

#include "core/dist/communicator.h"
#include <cstring>
#include <map>
#include <vector>

namespace fts {
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Every rank's host name (64 bytes each through an all-gather).
std::vector<std::string> hostsOfRanks(Communicator& comm, const std::string& host) {
    constexpr int64_t kLen = 64;
    auto mine = torch::zeros({kLen}, torch::kUInt8);
    std::memcpy(mine.data_ptr(), host.data(), std::min<size_t>(host.size(), kLen - 1));
    auto all = torch::zeros({kLen * comm.worldSize()}, torch::kUInt8);
    comm.allGather(all, mine);
    std::vector<std::string> out;
    for (int r = 0; r < comm.worldSize(); ++r)
        out.emplace_back(reinterpret_cast<const char*>(all.data_ptr<uint8_t>() + r * kLen));
    return out;
}

// Runs `body` (returns true when this rank's result is right); rank 0 reports whether every rank's was.
void collectiveTest(Communicator& comm, const char* test, const char* backend, int64_t bytes, int repeats,
                    const std::function<bool()>& body, const std::function<void(const json&)>& emit, double busFactor) {
    bool ok = false;
    std::string message;
    const auto t0 = Clock::now();
    try {
        ok = true;
        for (int i = 0; i < repeats; ++i) ok = body() && ok;
    } catch (const std::exception& e) {
        ok = false;
        message = e.what();
    }
    const double seconds = secondsSince(t0) / repeats;
    auto bad = torch::full({1}, ok ? 0.0f : 1.0f);
    try {
        comm.allReduce(bad, ReduceKind::Max);
    } catch (const std::exception&) {
    }
    const bool all = bad.item<float>() == 0.0f && ok;
    if (comm.rank() == 0 || !message.empty())
        emit({{"event", "check"},
              {"test", test},
              {"backend", backend},
              {"ok", all},
              {"seconds", seconds},
              {"bytes", bytes},
              {"gbps", all ? busFactor * double(bytes) * 8 / seconds / 1e9 : 0.0},
              {"message", message.empty() && !all ? "a rank got a wrong result" : message}});
}

void checkBackend(Communicator& comm, const LinkCheckOptions& o, torch::Device device, const char* backend,
                  const std::function<void(const json&)>& emit) {
    const int world = comm.worldSize(), rank = comm.rank();
    const int64_t n = o.bytes / 4;
    auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    auto pattern = torch::arange(n, opts).remainder(251.0);
    collectiveTest(
        comm, "broadcast", backend, o.bytes, o.repeats,
        [&] {
            auto t = rank == 0 ? pattern.clone() : torch::zeros({n}, opts);
            comm.broadcast(t, 0);
            return torch::equal(t, pattern);
        },
        emit, 1.0);
    collectiveTest(
        comm, "all_reduce", backend, o.bytes, o.repeats,
        [&] {
            auto t = torch::full({n}, float(rank + 1), opts);
            comm.allReduce(t);
            return torch::equal(t, torch::full({n}, float(world * (world + 1) / 2), opts));
        },
        emit, 2.0 * (world - 1) / std::max(1, world));  // bus bandwidth, as nccl-tests reports it
}

// Ping-pong between the first ranks of every pair of hosts, pairs in one global order (no deadlock).
void checkLinks(Communicator& comm, const LinkCheckOptions& o, const std::vector<std::string>& hosts,
                const std::function<void(const json&)>& emit) {
    std::vector<std::pair<std::string, int>> leaders;  // host, its first rank
    for (int r = 0; r < int(hosts.size()); ++r) {
        bool seen = false;
        for (const auto& [h, first] : leaders) seen = seen || h == hosts[size_t(r)];
        if (!seen) leaders.emplace_back(hosts[size_t(r)], r);
    }
    const int64_t n = o.bytes / 4;
    for (size_t i = 0; i < leaders.size(); ++i)
        for (size_t j = i + 1; j < leaders.size(); ++j) {
            const int a = leaders[i].second, b = leaders[j].second;
            if (comm.rank() != a && comm.rank() != b) continue;
            const int peer = comm.rank() == a ? b : a;
            auto big = torch::full({n}, float(a + 1));
            auto ack = torch::zeros({1});
            bool ok = true;
            std::string message;
            const auto t0 = Clock::now();
            try {
                for (int k = 0; k < o.repeats; ++k) {
                    if (comm.rank() == a) {
                        comm.send(big, peer);
                        comm.recv(ack, peer);
                        ok = ok && ack.item<float>() == float(b + 1);
                    } else {
                        auto in = torch::zeros({n});
                        comm.recv(in, peer);
                        ok = ok && torch::equal(in, big);
                        ack.fill_(float(b + 1));
                        comm.send(ack, peer);
                    }
                }
            } catch (const std::exception& e) {
                ok = false;
                message = e.what();
            }
            const double seconds = secondsSince(t0) / o.repeats;
            if (comm.rank() == a)
                emit({{"event", "check"},
                      {"test", "link"},
                      {"backend", "gloo"},
                      {"from", leaders[i].first},
                      {"to", leaders[j].first},
                      {"ok", ok},
                      {"seconds", seconds},
                      {"bytes", o.bytes},
                      {"gbps", ok ? double(o.bytes) * 8 / seconds / 1e9 : 0.0},
                      {"message", message.empty() && !ok ? "wrong data arrived" : message}});
        }
}

}  // namespace

void runLinkCheck(const LinkCheckOptions& o, const std::function<void(const json&)>& emit) {
    DistOptions d = o.dist;
    const bool cuda = torch::cuda::is_available();
    d.backend = cuda ? DistBackend::Nccl : DistBackend::Gloo;
    std::unique_ptr<Communicator> comm = connectRanks(d);
    const auto hosts = hostsOfRanks(*comm, o.host);
    checkBackend(*comm, o, torch::kCPU, "gloo", emit);
    if (cuda)
        checkBackend(*comm, o, torch::Device(torch::kCUDA, o.localRank % int(torch::cuda::device_count())), "nccl",
                     emit);
    checkLinks(*comm, o, hosts, emit);
    comm->barrier();
}

}  // namespace fts
