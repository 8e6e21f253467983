// Rendezvous through c10d's TCPStore with a per-run token prefix (see rendezvous.h).
#include "core/dist/rendezvous.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace fts {

namespace {

// A listening IPv4 socket bound to host:port only (c10d's own server would bind every interface).
int listenOn(const std::string& host, int port, const std::string& who) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
        throw DistError(who + ": the rendezvous host \"" + host + "\" is not an IPv4 address");
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0) {
        const std::string cause = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        throw DistError(who + ": cannot listen on " + host + ":" + std::to_string(port) +
                        " for the rendezvous: " + cause);
    }
    return fd;
}

}  // namespace

c10::intrusive_ptr<c10d::Store> rendezvous(const DistOptions& o) {
    const std::string who = "rank " + std::to_string(o.rank) + " of " + std::to_string(o.worldSize);
    if (o.token.size() < 16)
        throw DistError(who + ": rendezvous needs the run's token (from the launcher, at least 16 characters)");
    if (o.port <= 0 || o.port > 65535)
        throw DistError(who + ": rendezvous port " + std::to_string(o.port) + " is invalid");
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(o.port);
    const bool hosting = o.rank == 0 && !o.storeHostedElsewhere;
    so.isServer = hosting;
    so.numWorkers = o.worldSize;
    so.waitWorkers = false;  // our own handshake below waits, with the token
    so.timeout = o.timeout;
    if (hosting) so.masterListenFd = o.listenFd >= 0 ? o.listenFd : listenOn(o.host, o.port, who);
    c10::intrusive_ptr<c10d::Store> tcp;
    try {
        tcp = c10::make_intrusive<c10d::TCPStore>(o.host, so);
    } catch (const std::exception& e) {
        const std::string cause =
            dynamic_cast<const c10::Error*>(&e) ? static_cast<const c10::Error&>(e).what_without_backtrace() : e.what();
        throw DistError(who + ": cannot " + (hosting ? "host" : "reach") + " the rendezvous store at " + o.host + ":" +
                        std::to_string(o.port) + ": " + cause);
    }
    auto store = c10::make_intrusive<c10d::PrefixStore>("fts/" + o.token, tcp);
    try {
        if (o.rank == 0) store->set("open", std::vector<uint8_t>{'1'});
        store->wait({"open"}, o.timeout);
        const int64_t joined = store->add("joined", 1);
        (void)joined;
        if (o.rank == 0) {
            const auto deadline = std::chrono::steady_clock::now() + o.timeout;
            while (store->add("joined", 0) < o.worldSize) {
                if (std::chrono::steady_clock::now() > deadline)
                    throw DistError(who + ": rendezvous timed out after " + std::to_string(o.timeout.count()) +
                                    " ms: only " + std::to_string(store->add("joined", 0)) + " of " +
                                    std::to_string(o.worldSize) + " ranks joined with this run's token");
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            store->set("ready", std::vector<uint8_t>{'1'});
        }
        store->wait({"ready"}, o.timeout);
    } catch (const DistError&) {
        throw;
    } catch (const c10::Error& e) {
        throw DistError(who + ": rendezvous at " + o.host + ":" + std::to_string(o.port) +
                        " failed (a wrong run token, or a rank that never started): " + e.what_without_backtrace());
    }
    return store;
}

}  // namespace fts
