// The rendezvous store of a multi-rank run, hosted by the launcher (the supervisor behind `fts train`) on
// master_addr:master_port: c10d's TCPStore server on a socket bound to that address only. Every rank
// connects as a client and finds the run's keys only under its token's prefix (see rendezvous.h), so a
// connection without the token joins nothing. No LibTorch in this header: the launcher includes it.
#pragma once
#include <memory>
#include <string>

namespace fts {

class StoreServer {
public:
    // listenFd: bound to host:port and listening (the launcher binds it narrowly); the server owns it from
    // here (c10d's server also connects a client of its own to host:port). Throws DistError when c10d cannot
    // serve on it.
    StoreServer(int listenFd, const std::string& host, int port, const std::string& token);
    ~StoreServer();
    StoreServer(const StoreServer&) = delete;
    StoreServer& operator=(const StoreServer&) = delete;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

}  // namespace fts
