// A watcher thread for SIGINT and SIGTERM (signalfd + eventfd, poll); see stop_signal_watcher.h.
#include "core/util/stop_signal_watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/util/error.h"

namespace fts {

struct StopSignalWatcher::Impl {
    std::function<void(int)> onSignal;
    int signalFd = -1, wakeFd = -1;
    std::thread thread;

    void run() {
        pollfd fds[2] = {{signalFd, POLLIN, 0}, {wakeFd, POLLIN, 0}};
        while (true) {
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (fds[1].revents) return;  // the owner is done
            if (fds[0].revents & POLLIN) {
                signalfd_siginfo info{};
                const ssize_t n = ::read(signalFd, &info, sizeof info);
                if (n == ssize_t(sizeof info)) onSignal(int(info.ssi_signo));
            }
        }
    }
};

StopSignalWatcher::StopSignalWatcher(std::function<void(int)> onSignal) : m_impl(std::make_unique<Impl>()) {
    m_impl->onSignal = std::move(onSignal);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    // Blocked first: the watcher thread and every thread started later inherit the mask.
    if (const int rc = ::pthread_sigmask(SIG_BLOCK, &stop, nullptr); rc != 0)
        throw IoError(std::string("cannot block SIGINT and SIGTERM: ") + std::strerror(rc));
    m_impl->signalFd = ::signalfd(-1, &stop, SFD_CLOEXEC);
    m_impl->wakeFd = ::eventfd(0, EFD_CLOEXEC);
    if (m_impl->signalFd < 0 || m_impl->wakeFd < 0) {
        const std::string why = std::strerror(errno);
        if (m_impl->signalFd >= 0) ::close(m_impl->signalFd);
        if (m_impl->wakeFd >= 0) ::close(m_impl->wakeFd);
        throw IoError("cannot watch SIGINT and SIGTERM: " + why);
    }
    m_impl->thread = std::thread([impl = m_impl.get()] { impl->run(); });
}

StopSignalWatcher::~StopSignalWatcher() {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_impl->wakeFd, &one, sizeof one);
    m_impl->thread.join();
    ::close(m_impl->signalFd);
    ::close(m_impl->wakeFd);
}

void StopSignalWatcher::terminateBy(int sig) {
    // Only the calling (watcher) thread unblocks it, so the default action is taken here, on no compute thread.
    ::signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
    ::raise(sig);
    std::_Exit(128 + sig);  // not reached: the default action of SIGINT and SIGTERM ends the process
}

}  // namespace fts
