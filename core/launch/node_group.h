// The `fts node` processes of one launch (one per host of the plan), as the supervisor and `fts hosts check`
// drive them: start them all (their first control line on stdin), poll their output, send them "stop" or
// "kill", close their control channels (each node then kills its ranks), and kill a node's process group
// outright when its ssh session does not end.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/launch/node_transport.h"
#include "core/util/child_process.h"

namespace fts {

class NodeGroup {
public:
    struct Handlers {
        std::function<void(const NodePlan&, const std::string& line)> onLine;    // a line of the node's stdout
        std::function<void(const NodePlan&, const std::string& line)> onStderr;  // a line of its stderr
        std::function<void(const NodePlan&, int waitStatus)> onExit;             // after its output is drained
    };

    explicit NodeGroup(const LaunchPlan& plan);
    ~NodeGroup();  // closes every control channel and reaps what is left (after killing it)
    NodeGroup(const NodeGroup&) = delete;
    NodeGroup& operator=(const NodeGroup&) = delete;

    // Starts node i and writes `firstLine` (the token line) to its stdin. Throws IoError.
    void start(size_t i, const NodeCommand& command, const TransportOptions& transport,
               const std::vector<std::string>& env, const std::string& firstLine);
    size_t size() const { return m_nodes.size(); }
    bool anyAlive() const;

    // Waits up to timeoutMs for output (and for extraFd, e.g. a signal pipe: true when it is readable), hands
    // the lines to the handlers and reaps nodes whose output has ended.
    bool poll(int timeoutMs, int extraFd, const Handlers& handlers);

    void sendAll(const std::string& op);  // {"op": op} to every node still listening
    void closeControl();                  // end of file on every node's stdin: each kills its ranks
    void killAll();                       // SIGKILL to every live node's process group (ssh client included)

private:
    struct Node {
        const NodePlan* plan = nullptr;
        ChildProcess proc;
        bool outOpen = false, errOpen = false, exited = false;
        LineBuffer out, err;
    };
    std::vector<Node> m_nodes;
};

}  // namespace fts
