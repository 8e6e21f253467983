// The dense products (oneDNN's JIT GEMM on AVX-512 CPUs) under a storm of stop signals, as a training rank or
// `fts chat` receives them: a child process runs forward and backward products while this process sends it
// SIGTERM and SIGINT without pause; with StopSignalWatcher the child sees the signals on its watcher thread and
// every product stays equal to the one computed before the storm. Regression for the heap corruption a stop caused
// when a plain handler ran on a thread inside oneDNN's kernel (oneDNN issue #4845; stop_signal_watcher.h).
// The same child with `handler` in place of `watcher` installs a plain sigaction handler instead: on an AVX-512
// CPU it dies of the corruption (run it by hand: model_tests model_test_dense_under_signals --child storm handler 2000).
// Also: StopSignalWatcher::terminateBy ends the process as killed by that signal.
#include <QtTest>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/model/dense.h"
#include "core/util/child_process.h"
#include "core/util/stop_signal_watcher.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace {

std::atomic<long> g_signals{0};
void countSignal(int) { g_signals.fetch_add(1); }

// The child's storm role: products until it has seen `wanted` signals and run 200 products after "ready".
int stormChild(const std::string& receiver, long wanted) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    std::unique_ptr<fts::StopSignalWatcher> watcher;
    if (receiver == "watcher") {
        watcher = std::make_unique<fts::StopSignalWatcher>([](int) { g_signals.fetch_add(1); });
    } else {  // the control: a handler on whichever thread the kernel picks
        struct sigaction sa {};
        sa.sa_handler = countSignal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGTERM, &sa, nullptr);
        ::sigaction(SIGINT, &sa, nullptr);
    }
    torch::manual_seed(7);
    // GPT-2-sized products of a small model: (tokens, in) x (in, out), forward and backward.
    const torch::Tensor x = torch::randn({512, 64}), w1 = torch::randn({64, 256}) * 0.1,
                        w2 = torch::randn({64, 256}) * 0.1, b = torch::zeros({256});
    auto run = [&] {
        torch::Tensor xi = x.clone().requires_grad_(true), wi = w2.clone().requires_grad_(true);
        torch::Tensor h = fts::denseConv1d(xi, w1, b);
        torch::Tensor y = fts::denseLinear(h, wi);  // weight (out 64, in 256) as nn.Linear
        y.sum().backward();
        return std::array<torch::Tensor, 4>{h.detach(), y.detach(), xi.grad(), wi.grad()};
    };
    const auto reference = run();
    std::printf("ready onednn=%d\n", int(fts::oneDnnGemmEnabled()));
    std::fflush(stdout);
    long products = 0;
    while (g_signals.load() < wanted || products < 200) {
        const auto got = run();
        for (size_t i = 0; i < got.size(); ++i)
            if (!torch::allclose(got[i], reference[i])) {
                std::printf("product %ld differs from the reference\n", products);
                return 3;
            }
        ++products;
    }
    std::printf("products %ld signals %ld\n", products, g_signals.load());
    return 0;
}

// The child's terminate role: SIGTERM's watcher calls terminateBy.
int terminateChild() {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const fts::StopSignalWatcher watcher([](int sig) { fts::StopSignalWatcher::terminateBy(sig); });
    std::printf("ready\n");
    std::fflush(stdout);
    char c;
    while (::read(0, &c, 1) > 0) {
    }
    return 0;  // stdin closed without a signal
}

std::string readLine(int fd) {
    std::string line;
    char c;
    while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
    return line;
}

std::string readAll(int fd) {
    std::string all;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) all.append(buf, size_t(n));
    return all;
}

fts::ChildProcess spawnSelf(const std::vector<std::string>& args) {
    std::vector<std::string> argv = fts::testing::selfCommand();  // this program and this suite
    argv.push_back("--child");
    argv.insert(argv.end(), args.begin(), args.end());
    fts::SpawnOptions o;
    o.env = fts::environmentWith({}, {"OMP_NUM_THREADS=2"});
    return fts::spawnChild(argv, o);
}

}  // namespace

class TestDenseUnderSignals : public QObject {
    Q_OBJECT
private slots:
    void productsStayExactUnderStopSignals() {
        const fts::ChildProcess child = spawnSelf({"storm", "watcher", "2000"});
        const std::string ready = readLine(child.outFd);
        QVERIFY2(ready.rfind("ready", 0) == 0, ready.c_str());
        qInfo("child: %s", ready.c_str());
        long sent = 0;
        int status = 0;
        pid_t done = 0;
        while ((done = ::waitpid(child.pid, &status, WNOHANG)) == 0) {
            ::kill(child.pid, sent % 2 == 0 ? SIGTERM : SIGINT);
            ++sent;
        }
        QCOMPARE(done, child.pid);
        const std::string out = readAll(child.outFd), err = readAll(child.errFd);
        qInfo("sent %ld signals; child: %s", sent, out.c_str());
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                 qPrintable(QString::fromStdString(fts::describeExitStatus(status) + "\n" + out + err)));
        QVERIFY2(out.find("products ") != std::string::npos, out.c_str());
        ::close(child.inFd);
        ::close(child.outFd);
        ::close(child.errFd);
    }

    void terminateByEndsAsKilledBySignal() {
        const fts::ChildProcess child = spawnSelf({"terminate"});
        QCOMPARE(readLine(child.outFd), std::string("ready"));
        QCOMPARE(::kill(child.pid, SIGTERM), 0);
        int status = 0;
        QCOMPARE(::waitpid(child.pid, &status, 0), child.pid);
        QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, fts::describeExitStatus(status).c_str());
        ::close(child.inFd);
        ::close(child.outFd);
        ::close(child.errFd);
    }
};

FTS_SUITE_MAIN(argc, argv) {
    if (argc >= 4 && std::strcmp(argv[1], "--child") == 0 && std::strcmp(argv[2], "storm") == 0)
        return stormChild(argv[3], argc >= 5 ? std::atol(argv[4]) : 2000);
    if (argc >= 3 && std::strcmp(argv[1], "--child") == 0 && std::strcmp(argv[2], "terminate") == 0)
        return terminateChild();
    QCoreApplication app(argc, argv);
    TestDenseUnderSignals test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_dense_under_signals.moc"
