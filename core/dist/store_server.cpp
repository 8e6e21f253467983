// c10d TCPStore server for the launcher (see store_server.h).
#include "core/dist/store_server.h"

#include <chrono>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "core/dist/dist_error.h"

namespace fts {

struct StoreServer::Impl {
    c10::intrusive_ptr<c10d::TCPStore> store;
};

StoreServer::StoreServer(int listenFd, const std::string& host, int port, const std::string& token)
    : m(std::make_unique<Impl>()) {
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(port);
    so.isServer = true;
    so.waitWorkers = false;
    so.masterListenFd = listenFd;
    so.timeout = std::chrono::seconds(30);
    try {
        m->store = c10::make_intrusive<c10d::TCPStore>(host, so);
        c10d::PrefixStore("fts/" + token, m->store).set("open", std::vector<uint8_t>{'1'});
    } catch (const c10::Error& e) {
        throw DistError("cannot host the rendezvous store on " + host + ":" + std::to_string(port) + ": " +
                        e.what_without_backtrace());
    }
}

StoreServer::~StoreServer() = default;

}  // namespace fts
