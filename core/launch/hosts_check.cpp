// `fts hosts check` (see hosts_check.h): probe, then the same node launch as training in check mode.
#include "core/launch/hosts_check.h"

#include <sys/wait.h>

#include <map>
#include <sstream>
#include <iomanip>
#include <ostream>

#include "core/launch/hostfile.h"
#include "core/launch/net_address.h"
#include "core/launch/node_group.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/run_token.h"
#include "core/util/json_parse.h"

namespace fts {
using nlohmann::json;

json checkHosts(const HostsCheckOptions& o, std::ostream* progress) {
    const LaunchPlan plan = planLaunch(readHostfile(o.hostfile), o.include, o.exclude, o.numNodes, o.numGpus);
    json report{{"ok", false},
                {"hosts", json::array()},
                {"checks", json::array()},
                {"errors", json::array()},
                {"world_size", plan.worldSize},
                {"plan", describePlan(plan)}};
    TransportOptions transport{o.localFts, o.remoteFts, SshOptions{o.sshPort, o.sshConfig, 5}};
    std::vector<std::string> names;
    for (const NodePlan& n : plan.nodes) names.push_back(n.host);
    if (progress) *progress << "probing " << names.size() << " host(s)...\n" << std::flush;
    const std::vector<HostProbe> probes = probeHosts(names, transport, o.probeTimeoutMs);
    bool allReachable = true;
    for (const HostProbe& p : probes) {
        report["hosts"].push_back({{"host", p.host},
                                   {"ok", p.ok},
                                   {"error", p.error},
                                   {"hostname", p.hostname},
                                   {"fts", p.ftsVersion},
                                   {"gpus", parseJson(p.gpusJson.empty() ? "[]" : p.gpusJson)},
                                   {"seconds", p.seconds}});
        allReachable = allReachable && p.ok;
        if (!p.ok) report["errors"].push_back(p.error);
    }
    if (!allReachable) return report;

    std::shared_ptr<void> server;
    std::string addr;
    int port = o.masterPort;
    const std::string token = newRunToken();
    try {
        addr = chooseMasterAddr(o.masterAddr, plan, probes);
        const int fd = listenTcp(addr, port);
        server = o.hostStore(fd, addr, port, token);
    } catch (const Error& e) {
        report["errors"].push_back(e.what());
        return report;
    }
    if (progress)
        *progress << "starting " << plan.worldSize << " rank(s): " << describePlan(plan) << "\n" << std::flush;
    NodeCommand command;
    command.worldSize = plan.worldSize;
    command.masterAddr = addr;
    command.masterPort = port;
    command.collectiveTimeoutMs = o.timeoutMs;
    command.check = true;
    NodeGroup nodes(plan);
    const std::string hello = json{{"token", token}, {"env", json::object()}}.dump();
    const std::vector<std::string> env = environmentWith({"FTS_RUN_TOKEN"}, {});
    for (size_t i = 0; i < nodes.size(); ++i) {
        try {
            nodes.start(i, command, transport, env, hello);
        } catch (const Error& e) {
            report["errors"].push_back("host " + plan.nodes[i].host + ": " + e.what());
            return report;
        }
    }
    std::map<std::string, std::string> lastStderr;
    NodeGroup::Handlers h;
    h.onLine = [&](const NodePlan& n, const std::string& line) {
        json ev;
        try {
            ev = parseJson(line);
        } catch (const std::exception&) {
            return;
        }
        const std::string kind = fieldOr(ev, "event", "");
        if (kind == "check") {  // kept whole for `--json`; read through fieldOr, which takes any kind
            report["checks"].push_back(ev);
        } else if (kind == "error") {
            report["errors"].push_back("host " + n.host + ", rank " + std::to_string(fieldOr(ev, "rank", -1)) + ": " +
                                       fieldOr(ev, "message", ""));
        } else if (kind == "rank_exit" && !fieldOr(ev, "ok", false) && fieldOr(ev, "signal", 0) != 0) {
            report["errors"].push_back("host " + n.host + ": rank " + std::to_string(fieldOr(ev, "rank", -1)) + " " +
                                       fieldOr(ev, "description", ""));
        }
    };
    h.onStderr = [&](const NodePlan& n, const std::string& line) { lastStderr[n.host] = line; };
    h.onExit = [&](const NodePlan& n, int status) {
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && report["errors"].empty())
            report["errors"].push_back("host " + n.host + ": the node " + describeExitStatus(status) +
                                       (lastStderr[n.host].empty() ? "" : " (" + lastStderr[n.host] + ")"));
    };
    // Every rank ends on its own (a check that fails ends with an error event); a hard deadline guards the rest.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(3 * o.timeoutMs + 10000);
    while (nodes.anyAlive()) {
        nodes.poll(100, -1, h);
        if (std::chrono::steady_clock::now() > deadline) {
            report["errors"].push_back("the check did not end within " +
                                       std::to_string((3 * o.timeoutMs + 10000) / 1000) + " s");
            nodes.closeControl();
            nodes.killAll();
            break;
        }
    }
    bool ok = report["errors"].empty() && !report["checks"].empty();
    for (const auto& c : report["checks"]) ok = ok && fieldOr(c, "ok", false);
    report["ok"] = ok;
    return report;
}

std::string formatHostsReport(const json& r) {
    std::ostringstream ss;
    ss << std::fixed;
    for (const auto& h : r["hosts"]) {
        ss << "host " << fieldOr(h, "host", "") << ": ";
        if (fieldOr(h, "ok", false)) {
            ss << "reachable (" << fieldOr(h, "hostname", "") << "), fts " << fieldOr(h, "fts", "") << ", "
               << h["gpus"].size() << " GPU" << (h["gpus"].size() == 1 ? "" : "s");
            for (const auto& g : h["gpus"])
                ss << "; " << fieldOr(g, "index", 0) << ": " << fieldOr(g, "name", "") << " "
                   << fieldOr(g, "memory_total_mib", 0) << " MiB";
            ss << std::setprecision(2) << "  [" << fieldOr(h, "seconds", 0.0) << " s]\n";
        } else {
            ss << "FAILED: " << fieldOr(h, "error", "") << "\n";
        }
    }
    for (const auto& c : r["checks"]) {
        const std::string test = fieldOr(c, "test", "");
        if (test == "link")
            ss << "link " << fieldOr(c, "from", "") << " <-> " << fieldOr(c, "to", "") << " ("
               << fieldOr(c, "backend", "") << ")";
        else
            ss << fieldOr(c, "backend", "") << " " << test << " over " << fieldOr(r, "world_size", 0) << " ranks";
        if (fieldOr(c, "ok", false))
            ss << ": ok, " << std::setprecision(4) << fieldOr(c, "seconds", 0.0) << " s per "
               << (fieldOr(c, "bytes", int64_t(0)) >> 20) << " MiB, " << std::setprecision(2) << fieldOr(c, "gbps", 0.0)
               << " Gbit/s\n";
        else
            ss << ": FAILED: " << fieldOr(c, "message", "") << "\n";
    }
    for (const auto& e : r["errors"]) ss << "error: " << e.get<std::string>() << "\n";
    ss << (fieldOr(r, "ok", false) ? "all checks passed\n" : "the hosts are not ready for training\n");
    return ss.str();
}

}  // namespace fts
