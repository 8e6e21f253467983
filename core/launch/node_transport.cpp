// Local and ssh transports for `fts node`, and the host probe (see node_transport.h).
#include "core/launch/node_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/launch/hostfile.h"
#include "core/launch/net_address.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/json_parse.h"

namespace fts {
using nlohmann::json;

namespace {

std::string remoteFtsOf(const TransportOptions& o) { return o.remoteFts.empty() ? o.localFts.string() : o.remoteFts; }

// The fts command itself wrapped for its host: as is for localhost, in ssh for the others.
std::vector<std::string> onHost(const std::string& host, bool local, std::vector<std::string> ftsArgs,
                                const TransportOptions& o) {
    if (local) {
        ftsArgs.insert(ftsArgs.begin(), o.localFts.string());
        return ftsArgs;
    }
    ftsArgs.insert(ftsArgs.begin(), remoteFtsOf(o));
    return sshArgv(host, o.ssh, ftsArgs);
}

// The last meaningful line of ssh's or the remote shell's error output.
std::string lastLine(const std::string& text) {
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    return last;
}

std::string explainProbeFailure(const std::string& host, const std::string& fts, int status, const std::string& err) {
    const std::string said = lastLine(err);
    const std::string tail = said.empty() ? "" : " (" + said + ")";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 255) {
        if (err.find("Permission denied") != std::string::npos ||
            err.find("Host key verification failed") != std::string::npos)
            return "host " + host + ": ssh refused the login in BatchMode: set up a key for it (ssh-copy-id " + host +
                   ") and accept its host key once with a plain ssh" + tail;
        if (err.find("Could not resolve") != std::string::npos)
            return "host " + host + ": the name does not resolve (nor is it a Host in the ssh config)" + tail;
        return "host " + host + ": unreachable over ssh" + tail;
    }
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 126))
        return "host " + host + ": the remote fts \"" + fts + "\" " +
               (WEXITSTATUS(status) == 127 ? "was not found" : "cannot be run") +
               " there (install the same version at that path, or give its path with --remote-fts)" + tail;
    return "host " + host + ": the probe " + describeExitStatus(status) + tail;
}

}  // namespace

std::vector<std::string> nodeArgv(const NodePlan& node, const NodeCommand& c, const TransportOptions& o) {
    std::vector<std::string> args{"node",
                                  "--host",
                                  node.host,
                                  "--run-id",
                                  std::to_string(c.runId),
                                  "--world-size",
                                  std::to_string(c.worldSize),
                                  "--first-rank",
                                  std::to_string(node.firstRank),
                                  "--ranks",
                                  std::to_string(node.slotIds.size()),
                                  "--master-addr",
                                  c.masterAddr,
                                  "--master-port",
                                  std::to_string(c.masterPort),
                                  "--collective-timeout",
                                  std::to_string(c.collectiveTimeoutMs)};
    if (node.setVisibleDevices) {
        std::string ids;
        for (int s : node.slotIds) ids += (ids.empty() ? "" : ",") + std::to_string(s);
        args.insert(args.end(), {"--gpus", ids});
    }
    if (!c.configPath.empty()) args.insert(args.end(), {"--config", c.configPath.string()});
    if (!c.configOverrides.empty()) args.insert(args.end(), {"--config-overrides", c.configOverrides});
    if (c.resume) args.push_back("--resume");
    if (c.check) args.push_back("--check");
    return onHost(node.host, node.local, args, o);
}

ChildProcess startNode(const NodePlan& node, const NodeCommand& c, const TransportOptions& o,
                       const std::vector<std::string>& env) {
    return spawnChild(nodeArgv(node, c, o), SpawnOptions{env, true, true, -1});
}

std::string chooseMasterAddr(const std::string& given, const LaunchPlan& plan, const std::vector<HostProbe>& probes) {
    if (!given.empty()) {
        const std::string ip = resolveIPv4(given, "--master_addr");
        if (!isLocalAddress(ip))
            throw ConfigError(
                "--master_addr " + given + " (" + ip +
                ") is not an address of this machine: the launcher hosts the rendezvous where it runs; run it "
                "on that host or leave --master_addr out");
        return ip;
    }
    if (!plan.remote()) return "127.0.0.1";
    for (const HostProbe& p : probes)
        if (p.ok && !p.clientAddr.empty() && isLocalAddress(p.clientAddr)) return p.clientAddr;
    throw ConfigError("--master_addr: cannot tell which address of this machine the remote hosts reach; give it");
}

std::vector<HostProbe> probeHosts(const std::vector<std::string>& hosts, const TransportOptions& o, int timeoutMs,
                                  const std::vector<std::string>& requiredPaths) {
    std::vector<std::string> probeArgs{"node", "--probe"};
    for (const std::string& p : requiredPaths) probeArgs.insert(probeArgs.end(), {"--require", p});
    struct Pending {
        ChildProcess proc;
        std::string out, err;
        bool done = false;
        int status = 0;
    };
    const auto t0 = std::chrono::steady_clock::now();
    const auto deadline = t0 + std::chrono::milliseconds(timeoutMs);
    std::vector<HostProbe> probes(hosts.size());
    std::vector<Pending> pending(hosts.size());
    for (size_t i = 0; i < hosts.size(); ++i) {
        probes[i].host = hosts[i];
        try {
            pending[i].proc = spawnChild(onHost(hosts[i], isLocalHostName(hosts[i]), probeArgs, o),
                                         SpawnOptions{environmentWith({}, {}), false, true, -1});
        } catch (const Error& e) {
            probes[i].error = "host " + hosts[i] + ": " + e.what();
            pending[i].done = true;
        }
    }
    char buf[8192];
    for (;;) {
        std::vector<pollfd> fds;
        std::vector<std::pair<size_t, int>> who;
        for (size_t i = 0; i < pending.size(); ++i) {
            if (pending[i].done) continue;
            if (pending[i].proc.outFd >= 0) fds.push_back({pending[i].proc.outFd, POLLIN, 0}), who.push_back({i, 0});
            if (pending[i].proc.errFd >= 0) fds.push_back({pending[i].proc.errFd, POLLIN, 0}), who.push_back({i, 1});
        }
        bool anyRunning = false;
        for (const auto& p : pending) anyRunning = anyRunning || !p.done;
        if (!anyRunning) break;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) break;
        const int wait = int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
        ::poll(fds.data(), nfds_t(fds.size()), std::min(wait, 100));
        for (size_t k = 0; k < fds.size(); ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Pending& p = pending[who[k].first];
            const ssize_t got = ::read(fds[k].fd, buf, sizeof buf);
            if (got > 0) {
                (who[k].second == 0 ? p.out : p.err).append(buf, size_t(got));
            } else {
                ::close(fds[k].fd);
                (who[k].second == 0 ? p.proc.outFd : p.proc.errFd) = -1;
            }
        }
        for (size_t i = 0; i < pending.size(); ++i) {
            Pending& p = pending[i];
            if (p.done || p.proc.outFd >= 0 || p.proc.errFd >= 0) continue;
            ::waitpid(p.proc.pid, &p.status, 0);
            p.done = true;
            probes[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const std::string fts = isLocalHostName(hosts[i]) ? o.localFts.string() : remoteFtsOf(o);
            json line;
            try {
                line = parseJson(lastLine(p.out));
            } catch (const std::exception&) {
            }
            if (WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 && line.is_object() &&
                fieldOr(line, "event", "") == "probe") {
                probes[i].ftsVersion = fieldOr(line, "fts", "");
                probes[i].hostname = fieldOr(line, "hostname", "");
                const json gpus = fieldOr(line, "gpus", json::array());
                probes[i].gpusJson = (gpus.is_array() ? gpus : json::array()).dump();
                std::istringstream conn(fieldOr(line, "ssh_connection", ""));
                conn >> probes[i].clientAddr;
                std::string missing;
                for (const auto& m : fieldOr(line, "missing", json::array()))
                    missing += (missing.empty() ? "" : ", ") + (m.is_string() ? m.get<std::string>() : m.dump());
                if (probes[i].ftsVersion != FTS_VERSION)
                    probes[i].error = "host " + hosts[i] + ": fts there is version " +
                                      (probes[i].ftsVersion.empty() ? "(not given)" : probes[i].ftsVersion) +
                                      ", this one is " + FTS_VERSION + " (every host must run the same version)";
                else if (!missing.empty())
                    probes[i].error = "host " + hosts[i] + ": missing " + missing +
                                      " (every host opens the config, the model and the data at the same paths)";
                else
                    probes[i].ok = true;
            } else if (WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0) {
                probes[i].error = "host " + hosts[i] + ": \"" + fts +
                                  " node --probe\" did not answer as fts does (is \"" + fts +
                                  "\" Finetune Studio's fts?)";
            } else {
                probes[i].error = explainProbeFailure(hosts[i], fts, p.status, p.err);
            }
        }
    }
    for (size_t i = 0; i < pending.size(); ++i) {
        Pending& p = pending[i];
        if (p.done) continue;
        ::kill(-p.proc.pid, SIGKILL);
        ::kill(p.proc.pid, SIGKILL);
        ::waitpid(p.proc.pid, nullptr, 0);
        if (p.proc.outFd >= 0) ::close(p.proc.outFd);
        if (p.proc.errFd >= 0) ::close(p.proc.errFd);
        probes[i].seconds = double(timeoutMs) / 1000.0;
        probes[i].error = "host " + hosts[i] + ": no answer within " + std::to_string(timeoutMs / 1000) +
                          " s (unreachable, or ssh is waiting on something BatchMode cannot answer)";
    }
    return probes;
}

}  // namespace fts
