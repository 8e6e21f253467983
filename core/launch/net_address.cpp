// Address helpers of the launcher (see net_address.h).
#include "core/launch/net_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/util/error.h"

namespace fts {

std::string resolveIPv4(const std::string& name, const std::string& what) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &res);
    if (rc != 0 || !res)
        throw ConfigError(what + " \"" + name + "\": does not resolve to an IPv4 address (" + gai_strerror(rc) + ")");
    char buf[INET_ADDRSTRLEN] = {0};
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, buf, sizeof buf);
    ::freeaddrinfo(res);
    return buf;
}

std::string sourceAddressToward(const std::string& ipv4) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(9);
    if (::inet_pton(AF_INET, ipv4.c_str(), &a.sin_addr) != 1) return {};
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return {};
    std::string out;
    socklen_t len = sizeof a;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
        char buf[INET_ADDRSTRLEN] = {0};
        ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
        out = buf;
    }
    ::close(fd);
    return out;
}

bool isLocalAddress(const std::string& ipv4) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    if (::inet_pton(AF_INET, ipv4.c_str(), &a.sin_addr) != 1) return false;
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

int listenTcp(const std::string& ipv4, int& port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, ipv4.c_str(), &a.sin_addr) != 1)
        throw IoError("cannot listen on \"" + ipv4 + "\": not an IPv4 address");
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 512) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        const std::string cause = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        throw IoError("cannot listen on " + ipv4 + ":" + std::to_string(port) + " for the rendezvous: " + cause);
    }
    port = ntohs(a.sin_port);
    return fd;
}

}  // namespace fts
