// Multi-process tests of the Gloo communicator: the test forks N ranks (2 and 4) that meet through the
// TCP store on 127.0.0.1 and check each collective against values computed from the rank formulas.
// A rank's failure is its exit code plus a message on stderr; the parent only forks and waits.
#include "tests/core/dist/forked_ranks.h"

#include <thread>

#include "core/dist/routed_communicator.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

using fts::testing::check;
using fts::testing::runRanks;

bool same(const torch::Tensor& a, const torch::Tensor& b) { return a.sizes() == b.sizes() && torch::equal(a, b); }

// A communicator over another one (borrowed) that takes only `device` tensors and counts the collectives it ran:
// with device CUDA it stands in for NCCL, whose process group refuses CPU tensors, on a machine without a GPU.
class StandIn : public Communicator {
public:
    StandIn(Communicator& inner, c10::DeviceType device, std::string name)
        : m_inner(inner), m_device(device), m_name(std::move(name)) {}
    int rank() const override { return m_inner.rank(); }
    int worldSize() const override { return m_inner.worldSize(); }
    std::string backendName() const override { return m_name; }
    c10::DeviceType tensorDevice() const override { return m_device; }
    void allReduce(torch::Tensor& t, ReduceKind op) override {
        use("allReduce", t);
        m_inner.allReduce(t, op);
    }
    void reduceScatter(torch::Tensor& o, torch::Tensor& i) override {
        use("reduceScatter", i);
        m_inner.reduceScatter(o, i);
    }
    void allGather(torch::Tensor& o, torch::Tensor& i) override {
        use("allGather", i);
        m_inner.allGather(o, i);
    }
    void broadcast(torch::Tensor& t, int root) override {
        use("broadcast", t);
        m_inner.broadcast(t, root);
    }
    void reduce(torch::Tensor& t, int root) override {
        use("reduce", t);
        m_inner.reduce(t, root);
    }
    void barrier() override { m_inner.barrier(); }
    int* calls;  // where the count goes (the routed communicator owns this object)

private:
    void use(const char* op, const torch::Tensor& t) {
        requireTakes(*this, op, t);
        ++*calls;
    }
    Communicator& m_inner;
    c10::DeviceType m_device;
    std::string m_name;
};

// What the trainer sends each step and at checkpoints, all CPU tensors: the stop flag, the token counts, the
// logged loss, the sampler rows; checks the results.
void trainerControlTraffic(Communicator& c) {
    const int r = c.rank(), w = c.worldSize();
    auto flag = torch::full({1}, r == w - 1 ? 1.0f : 0.0f);
    c.allReduce(flag, ReduceKind::Max);
    auto counts = torch::tensor({int64_t(10 + r), int64_t(100)}, torch::kInt64);
    c.allReduce(counts);
    auto loss = torch::full({1}, 0.5 * (r + 1), torch::kFloat64);
    c.allReduce(loss);
    auto rows = torch::tensor({int64_t(r), int64_t(7)}, torch::kInt64);
    auto all = torch::empty({2 * w}, torch::kInt64);
    c.allGather(all, rows);
    c.barrier();
    check(flag.item<float>() == 1.0f, "stop flag");
    check(counts[0].item<int64_t>() == 10 * w + w * (w - 1) / 2 && counts[1].item<int64_t>() == 100 * w, "counts");
    check(loss.item<double>() == 0.25 * w * (w + 1), "loss");
    check(all[2 * (w - 1)].item<int64_t>() == w - 1, "rows");
}

}  // namespace

class TestCommunicator : public QObject {
    Q_OBJECT
private slots:
    void collectives_data() {
        QTest::addColumn<int>("world");
        QTest::newRow("2 ranks") << 2;
        QTest::newRow("4 ranks") << 4;
    }
    void collectives() {
        QFETCH(int, world);
        auto codes = runRanks(world, [](Communicator& c) {
            const int r = c.rank(), w = c.worldSize();
            check(c.backendName() == "gloo", "backend is gloo");
            // allReduce (sum): rank r contributes (r + 1) * [1, 2, ..., 7]  (7: not a multiple of anything)
            auto base = torch::arange(1, 8, torch::kFloat64);
            auto t = base * double(r + 1);
            c.allReduce(t);
            check(same(t, base * double(w * (w + 1) / 2)), "allReduce sum");
            auto m = torch::full({3}, double(r), torch::kFloat32);
            c.allReduce(m, ReduceKind::Max);
            check(same(m, torch::full({3}, double(w - 1), torch::kFloat32)), "allReduce max");
            // reduceScatter: every rank's input is arange(w*5) + r; rank r gets the sum of its chunk
            const int64_t n = 5;
            auto in = torch::arange(w * n, torch::kFloat32) + float(r);
            auto out = torch::empty({n}, torch::kFloat32);
            c.reduceScatter(out, in);
            auto expect = torch::arange(r * n, (r + 1) * n, torch::kFloat32) * float(w) + float(w * (w - 1) / 2);
            check(same(out, expect), "reduceScatter");
            // allGather: rank r contributes 3 values r*10 + {0,1,2}
            auto mine = torch::arange(3, torch::kFloat32) + float(r * 10);
            auto all = torch::empty({w * 3}, torch::kFloat32);
            c.allGather(all, mine);
            for (int q = 0; q < w; ++q)
                check(same(all.narrow(0, q * 3, 3), torch::arange(3, torch::kFloat32) + float(q * 10)),
                      "allGather chunk");
            // broadcast from the last rank
            auto b = torch::full({4}, float(r), torch::kFloat32);
            c.broadcast(b, w - 1);
            check(same(b, torch::full({4}, float(w - 1), torch::kFloat32)), "broadcast");
            // reduce to each rank in turn: rank r contributes (r + 1) * [1..6]; the root gets the sum
            for (int root = 0; root < w; ++root) {
                auto red = torch::arange(1, 7, torch::kFloat32) * float(r + 1);
                c.reduce(red, root);
                if (r == root)
                    check(same(red, torch::arange(1, 7, torch::kFloat32) * float(w * (w + 1) / 2)), "reduce");
            }
            c.barrier();
        });
        for (int r = 0; r < world; ++r) QCOMPARE(codes[size_t(r)], 0);
    }

    // A tensor of another device never reaches c10d: the error names the backend, the operation and both devices.
    void foreignDeviceTensorIsRefused() {
        auto codes = runRanks(2, [](Communicator& c) {
            auto meta = torch::empty({4}, torch::TensorOptions().device(torch::kMeta));
            try {
                c.allReduce(meta);
            } catch (const DistError& e) {
                const std::string msg = e.what();
                if (msg.find("gloo allReduce") != std::string::npos && msg.find("a meta tensor") != std::string::npos &&
                    msg.find("takes only cpu tensors") != std::string::npos) {
                    c.barrier();  // the peer may still be connecting its Gloo pairs: leave together, not under it
                    ::_exit(42);
                }
                std::fprintf(stderr, "unexpected message: %s\n", msg.c_str());
                ::_exit(5);
            }
            ::_exit(6);
        });
        QCOMPARE(codes[0], 42);
        QCOMPARE(codes[1], 42);
    }

    // NCCL takes only CUDA tensors and the trainer's control traffic is CPU tensors. Sent straight to an NCCL-like
    // communicator (a stand-in that refuses CPU tensors as ProcessGroupNCCL does) the first collective fails; through
    // the routed communicator that connectRanks builds for NCCL every CPU tensor goes to the Gloo group beside it.
    void cpuTensorsAvoidTheNcclPath() {
        auto codes = runRanks(2, [](Communicator& c) {
            int deviceCalls = 0, hostCalls = 0;
            StandIn nccl(c, c10::DeviceType::CUDA, "nccl");
            nccl.calls = &deviceCalls;
            bool refused = false;
            try {
                trainerControlTraffic(nccl);
            } catch (const DistError& e) {
                refused = std::string(e.what()).find(
                              "nccl allReduce: a cpu tensor, but nccl takes only cuda tensors") != std::string::npos;
                if (!refused) std::fprintf(stderr, "unexpected message: %s\n", e.what());
            }
            check(refused && deviceCalls == 0, "a CPU tensor reached the NCCL stand-in");

            auto device = std::make_unique<StandIn>(c, c10::DeviceType::CUDA, "nccl");
            auto host = std::make_unique<StandIn>(c, c10::DeviceType::CPU, "gloo");
            device->calls = &deviceCalls;
            host->calls = &hostCalls;
            RoutedCommunicator routed(std::move(device), std::move(host));
            check(routed.backendName() == "nccl+gloo" && routed.tensorDevice() == c10::DeviceType::CUDA, "names");
            trainerControlTraffic(routed);
            check(deviceCalls == 0 && hostCalls == 4, "CPU tensors went to the host group");
        });
        QCOMPARE(codes[0], 0);
        QCOMPARE(codes[1], 0);
    }

    // A rank that stops taking part: the others' next collective fails within the timeout, naming rank and op.
    void timeoutNamesRankAndOp() {
        const int world = 2;
        auto codes = runRanks(
            world,
            [](Communicator& c) {
                if (c.rank() == 1) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(3000));  // the absent peer
                    ::_exit(0);
                }
                auto t = torch::ones({4});
                const auto t0 = std::chrono::steady_clock::now();
                try {
                    c.allReduce(t);
                } catch (const DistError& e) {
                    const std::string msg = e.what();
                    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    if (msg.find("rank 0 of 2") != std::string::npos && msg.find("allReduce") != std::string::npos &&
                        s < 10)
                        ::_exit(42);
                    std::fprintf(stderr, "unexpected message after %.1f s: %s\n", s, msg.c_str());
                    ::_exit(5);
                }
                ::_exit(6);
            },
            {}, std::chrono::milliseconds(1500));
        QCOMPARE(codes[0], 42);
    }

    // A rank with another run's token never joins: both sides fail the rendezvous instead of mixing runs.
    void wrongTokenIsRefused() {
        const std::string good = newRunToken(), bad = newRunToken();
        QVERIFY(good != bad);
        QCOMPARE(int(good.size()), 32);
        auto codes = runRanks(
            2, [](Communicator&) {}, {good, bad}, std::chrono::milliseconds(1500));
        QCOMPARE(codes[0], 3);
        QCOMPARE(codes[1], 3);
    }
};

QTEST_APPLESS_MAIN(TestCommunicator)
#include "test_communicator.moc"
