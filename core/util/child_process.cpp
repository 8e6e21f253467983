// posix_spawn with pipes (see child_process.h).
#include "core/util/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/util/error.h"

extern char** environ;

namespace fts {

ChildProcess spawnChild(const std::vector<std::string>& argv, const SpawnOptions& o) {
    if (argv.empty()) throw IoError("cannot start a process: empty command");
    int inPipe[2] = {-1, -1}, outPipe[2], errPipe[2];
    if ((o.pipeStdin && ::pipe2(inPipe, O_CLOEXEC) != 0) || ::pipe2(outPipe, O_CLOEXEC) != 0 ||
        ::pipe2(errPipe, O_CLOEXEC) != 0)
        throw IoError("cannot create pipes for " + argv[0] + ": " + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (o.pipeStdin)
        posix_spawn_file_actions_adddup2(&fa, inPipe[0], 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errPipe[1], 2);
    if (o.passFd >= 0) posix_spawn_file_actions_adddup2(&fa, o.passFd, 3);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    if (o.ownProcessGroup) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&attr, 0);
    }
    sigset_t all, mask;
    sigfillset(&all);
    sigemptyset(&mask);
    if (o.blockStopSignals) {
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
    }
    posix_spawnattr_setsigdefault(&attr, &all);  // handlers and SIG_IGN (e.g. SIGPIPE) back to default
    posix_spawnattr_setsigmask(&attr, &mask);
    posix_spawnattr_setflags(&attr, flags);
    std::vector<char*> envp;
    for (const auto& e : o.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ChildProcess c;
    const int rc = ::posix_spawnp(&c.pid, args[0], &fa, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (o.pipeStdin) ::close(inPipe[0]);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (rc != 0) {
        if (o.pipeStdin) ::close(inPipe[1]);
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        throw IoError("cannot start " + argv[0] + ": " + std::strerror(rc));
    }
    c.inFd = o.pipeStdin ? inPipe[1] : -1;
    c.outFd = outPipe[0];
    c.errFd = errPipe[0];
    return c;
}

std::vector<std::string> environmentWith(const std::vector<std::string>& drop, const std::vector<std::string>& add) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string kv = *e;
        const std::string name = kv.substr(0, kv.find('='));
        bool skip = false;
        for (const auto& d : drop) skip = skip || d == name;
        for (const auto& a : add) skip = skip || a.substr(0, a.find('=')) == name;
        if (!skip) env.push_back(kv);
    }
    env.insert(env.end(), add.begin(), add.end());
    return env;
}

std::string describeExitStatus(int status) {
    if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    }
    return "ended with status " + std::to_string(status);
}

bool writeAll(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

bool CapturedRun::ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

CapturedRun runCaptured(const std::vector<std::string>& argv) {
    ChildProcess p = spawnChild(argv, SpawnOptions{environmentWith({}, {}), false, false, -1});
    CapturedRun r;
    char buf[4096];
    int fds[2] = {p.outFd, p.errFd};  // both drained together: a full stderr pipe must not stall the child
    while (fds[0] >= 0 || fds[1] >= 0) {
        pollfd pf[2];
        nfds_t n = 0;
        for (int fd : fds)
            if (fd >= 0) pf[n++] = {fd, POLLIN, 0};
        if (::poll(pf, n, -1) < 0 && errno != EINTR) break;
        for (nfds_t k = 0; k < n; ++k) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t got = ::read(pf[k].fd, buf, sizeof buf);
            if (got > 0) {
                if (pf[k].fd == p.outFd) r.out.append(buf, size_t(got));
                continue;
            }
            ::close(pf[k].fd);
            for (int& fd : fds)
                if (fd == pf[k].fd) fd = -1;
        }
    }
    while (::waitpid(p.pid, &r.status, 0) < 0 && errno == EINTR) {
    }
    return r;
}

}  // namespace fts
