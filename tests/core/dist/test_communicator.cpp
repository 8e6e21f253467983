// Multi-process tests of the Gloo communicator: the test forks N ranks (2 and 4) that meet through the
// TCP store on 127.0.0.1 and check each collective against values computed from the rank formulas.
// A rank's failure is its exit code plus a message on stderr; the parent only forks and waits.
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <torch/torch.h>

#include <QtTest>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include "core/dist/communicator.h"

using namespace fts;

namespace {

int freePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

// Forks `world` ranks running body(comm); returns each rank's exit code (0 = all its checks held).
// A rank that outlives `limit` is killed (code 99).
std::vector<int> runRanks(int world, const std::function<void(Communicator&)>& body, std::vector<std::string> tokens = {},
                          std::chrono::milliseconds timeout = std::chrono::milliseconds(20000),
                          std::chrono::seconds limit = std::chrono::seconds(60)) {
    const int port = freePort();
    const std::string token = newRunToken();
    std::vector<pid_t> pids;
    for (int r = 0; r < world; ++r) {
        pid_t pid = ::fork();
        if (pid == 0) {
            int code = 0;
            try {
                torch::set_num_threads(1);
                DistOptions o;
                o.port = port;
                o.rank = r;
                o.worldSize = world;
                o.token = tokens.empty() ? token : tokens[size_t(r)];
                o.timeout = timeout;
                auto comm = connectRanks(o);
                body(*comm);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "RANKERROR %s\n", e.what());
                code = 3;
            }
            std::fflush(stderr);
            ::_exit(code);
        }
        pids.push_back(pid);
    }
    std::vector<int> codes(size_t(world), -1);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int left = world;
    while (left > 0) {
        for (int r = 0; r < world; ++r) {
            if (codes[size_t(r)] != -1) continue;
            int status = 0;
            if (::waitpid(pids[size_t(r)], &status, WNOHANG) == pids[size_t(r)]) {
                codes[size_t(r)] = WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
                --left;
            }
        }
        if (std::chrono::steady_clock::now() > deadline) {
            for (int r = 0; r < world; ++r)
                if (codes[size_t(r)] == -1) {
                    ::kill(pids[size_t(r)], SIGKILL);
                    ::waitpid(pids[size_t(r)], nullptr, 0);
                    codes[size_t(r)] = 99;
                }
            break;
        }
        QTest::qWait(10);
    }
    return codes;
}

void check(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("check failed: " + what);
}

bool same(const torch::Tensor& a, const torch::Tensor& b) { return a.sizes() == b.sizes() && torch::equal(a, b); }

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
                check(same(all.narrow(0, q * 3, 3), torch::arange(3, torch::kFloat32) + float(q * 10)), "allGather chunk");
            // broadcast from the last rank
            auto b = torch::full({4}, float(r), torch::kFloat32);
            c.broadcast(b, w - 1);
            check(same(b, torch::full({4}, float(w - 1), torch::kFloat32)), "broadcast");
            // reduce to each rank in turn: rank r contributes (r + 1) * [1..6]; the root gets the sum
            for (int root = 0; root < w; ++root) {
                auto red = torch::arange(1, 7, torch::kFloat32) * float(r + 1);
                c.reduce(red, root);
                if (r == root) check(same(red, torch::arange(1, 7, torch::kFloat32) * float(w * (w + 1) / 2)), "reduce");
            }
            c.barrier();
        });
        for (int r = 0; r < world; ++r) QCOMPARE(codes[size_t(r)], 0);
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
                    if (msg.find("rank 0 of 2") != std::string::npos && msg.find("allReduce") != std::string::npos && s < 10)
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
        auto codes = runRanks(2, [](Communicator&) {}, {good, bad}, std::chrono::milliseconds(1500));
        QCOMPARE(codes[0], 3);
        QCOMPARE(codes[1], 3);
    }
};

QTEST_APPLESS_MAIN(TestCommunicator)
#include "test_communicator.moc"
