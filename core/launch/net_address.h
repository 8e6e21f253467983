// IPv4 addresses for the rendezvous: names resolved once, the local address a peer is reached from, and
// whether an address belongs to this machine (the supervisor hosts the store, so master_addr must).
#pragma once
#include <string>

namespace fts {

// getaddrinfo (IPv4). Throws ConfigError naming `what` (e.g. "--master_addr") when it does not resolve.
std::string resolveIPv4(const std::string& name, const std::string& what);
// This machine's source address for packets to `ipv4` (a UDP socket connected there; nothing is sent).
// Empty when there is no route.
std::string sourceAddressToward(const std::string& ipv4);
// True when a socket can bind `ipv4` here (an address of one of this machine's interfaces).
bool isLocalAddress(const std::string& ipv4);
// A listening TCP socket bound to ipv4:port only (port 0: a free one, written back). Throws IoError.
int listenTcp(const std::string& ipv4, int& port);

}  // namespace fts
