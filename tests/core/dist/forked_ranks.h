// Test helper shared by the dist and zero tests: forks N ranks that meet over Gloo on 127.0.0.1 and run a body; a
// rank's failure is its exit code plus a message on stderr (RANKERROR ...). The parent only forks and waits (a rank
// past `limit` is killed).
#pragma once
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <unistd.h>

#include <torch/torch.h>

#include <QtTest>
#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dist/communicator.h"

namespace fts::testing {

inline int freeLoopbackPort() {
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

// Returns each rank's exit code: 0 = its body returned, 3 = it threw, 99 = killed after `limit`. tokens: one run
// token per rank (empty: one fresh token for all); timeout: the collectives' and the rendezvous' timeout.
inline std::vector<int> runRanks(int world, const std::function<void(Communicator&)>& body,
                                 const std::vector<std::string>& tokens = {},
                                 std::chrono::milliseconds timeout = std::chrono::milliseconds(30000),
                                 std::chrono::seconds limit = std::chrono::seconds(120)) {
    const int port = freeLoopbackPort();
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
                // No rank leaves before every rank is done: a rank that exits while a peer is still setting up
                // its Gloo connections makes that peer fail with "connection closed by peer".
                comm->barrier();
            } catch (const std::exception& e) {
                std::fprintf(stderr, "RANKERROR rank %d: %s\n", r, e.what());
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
        QTest::qWait(5);
    }
    return codes;
}

inline void check(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("check failed: " + what);
}

}  // namespace fts::testing
