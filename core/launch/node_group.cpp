// A launch's node processes (see node_group.h).
#include "core/launch/node_group.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include <nlohmann/json.hpp>

namespace fts {

NodeGroup::NodeGroup(const LaunchPlan& plan) : m_nodes(plan.nodes.size()) {
    for (size_t i = 0; i < m_nodes.size(); ++i) m_nodes[i].plan = &plan.nodes[i];
}

NodeGroup::~NodeGroup() {
    closeControl();
    killAll();
    for (Node& n : m_nodes) {
        if (n.proc.pid <= 0 || n.exited) continue;
        ::waitpid(n.proc.pid, nullptr, 0);
        if (n.outOpen) ::close(n.proc.outFd);
        if (n.errOpen) ::close(n.proc.errFd);
    }
}

void NodeGroup::start(size_t i, const NodeCommand& command, const TransportOptions& transport,
                      const std::vector<std::string>& env, const std::string& firstLine) {
    Node& n = m_nodes.at(i);
    n.proc = startNode(*n.plan, command, transport, env);
    n.outOpen = n.errOpen = true;
    ::fcntl(n.proc.inFd, F_SETFL, O_NONBLOCK);
    writeAll(n.proc.inFd, firstLine + "\n");
}

bool NodeGroup::anyAlive() const {
    for (const Node& n : m_nodes)
        if (n.proc.pid > 0 && !n.exited) return true;
    return false;
}

bool NodeGroup::poll(int timeoutMs, int extraFd, const Handlers& h) {
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, int>> who;  // (node, 0 stdout / 1 stderr)
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        if (m_nodes[i].outOpen) fds.push_back({m_nodes[i].proc.outFd, POLLIN, 0}), who.push_back({i, 0});
        if (m_nodes[i].errOpen) fds.push_back({m_nodes[i].proc.errFd, POLLIN, 0}), who.push_back({i, 1});
    }
    if (extraFd >= 0) fds.push_back({extraFd, POLLIN, 0});
    const int ready = ::poll(fds.data(), nfds_t(fds.size()), timeoutMs);
    if (ready < 0 && errno != EINTR) return false;
    char buf[65536];
    for (size_t k = 0; k < who.size(); ++k) {
        if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Node& node = m_nodes[who[k].first];
        const ssize_t got = ::read(fds[k].fd, buf, sizeof buf);
        if (got <= 0) {
            (who[k].second == 0 ? node.outOpen : node.errOpen) = false;
            ::close(fds[k].fd);
            continue;
        }
        if (who[k].second == 0)
            node.out.feed(buf, size_t(got), [&](const std::string& l) { h.onLine(*node.plan, l); });
        else
            node.err.feed(buf, size_t(got), [&](const std::string& l) { h.onStderr(*node.plan, l); });
    }
    for (Node& node : m_nodes) {
        if (node.proc.pid <= 0 || node.exited || node.outOpen || node.errOpen) continue;
        int status = 0;
        if (::waitpid(node.proc.pid, &status, WNOHANG) != node.proc.pid) continue;
        node.exited = true;
        if (!node.out.pending.empty()) h.onLine(*node.plan, std::exchange(node.out.pending, {}));
        if (!node.err.pending.empty()) h.onStderr(*node.plan, std::exchange(node.err.pending, {}));
        if (node.proc.inFd >= 0) ::close(std::exchange(node.proc.inFd, -1));
        h.onExit(*node.plan, status);
    }
    return extraFd >= 0 && (fds.back().revents & POLLIN);
}

void NodeGroup::sendAll(const std::string& op) {
    const std::string line = nlohmann::json{{"op", op}}.dump() + "\n";
    for (Node& n : m_nodes)
        if (n.proc.inFd >= 0) writeAll(n.proc.inFd, line);
}

void NodeGroup::closeControl() {
    for (Node& n : m_nodes)
        if (n.proc.inFd >= 0) ::close(std::exchange(n.proc.inFd, -1));
}

void NodeGroup::killAll() {
    for (Node& n : m_nodes)
        if (n.proc.pid > 0 && !n.exited) ::kill(-n.proc.pid, SIGKILL);
}

}  // namespace fts
