// `fts node` (see node_runner.h): one poll loop over the control channel and every rank's stdout/stderr.
#include "core/launch/node_runner.h"
#include "core/events/run_events.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/launch/net_address.h"
#include "core/launch/rank_threads.h"
#include "core/store/run_store.h"
#include "core/util/child_process.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/json_parse.h"
#include "core/util/wall_clock.h"

namespace fts {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Rank {
    ChildProcess proc;
    int globalRank = 0;
    bool outOpen = false, errOpen = false, exited = false;
    LineBuffer out, err;
};

// Reads one line from fd (blocking), without reading past it. False on EOF before a newline.
bool readLine(int fd, std::string& line) {
    line.clear();
    char c;
    for (;;) {
        const ssize_t n = ::read(fd, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        if (c == '\n') return true;
        line += c;
        if (line.size() > (1u << 20)) return false;
    }
}

}  // namespace

std::string probeLine(const std::vector<std::string>& requiredPaths) {
    json gpus = json::array();
    std::string smi = "not found";
    try {
        const CapturedRun r = runCaptured(
            {"nvidia-smi", "--query-gpu=index,name,memory.total,memory.used", "--format=csv,noheader,nounits"});
        smi = r.ok() ? "ok" : "failed: " + describeExitStatus(r.status);
        if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127) smi = "not found";
        std::istringstream lines(r.out);
        std::string line;
        while (std::getline(lines, line)) {
            std::vector<std::string> f;
            std::stringstream ss(line);
            std::string cell;
            while (std::getline(ss, cell, ',')) {
                while (!cell.empty() && cell.front() == ' ') cell.erase(0, 1);
                f.push_back(cell);
            }
            if (f.size() < 4) continue;
            try {
                gpus.push_back({{"index", std::stoi(f[0])},
                                {"name", f[1]},
                                {"memory_total_mib", std::stoll(f[2])},
                                {"memory_used_mib", std::stoll(f[3])}});
            } catch (const std::exception&) {
            }
        }
    } catch (const Error&) {
        smi = "not found";
    }
    json missing = json::array();
    for (const std::string& path : requiredPaths) {
        std::error_code ec;
        if (!fs::exists(path, ec)) missing.push_back(path);
    }
    const char* conn = std::getenv("SSH_CONNECTION");  // "client_ip client_port server_ip server_port"
    return json{{"event", "probe"},  {"fts", FTS_VERSION}, {"hostname", RunStore::localHostName()},
                {"gpus", gpus},      {"nvidia_smi", smi},  {"ssh_connection", conn ? conn : ""},
                {"missing", missing}}
        .dump();
}

namespace {

// One node's run: the ranks it starts, and the relay of their lines to the supervisor until the last has exited.
class NodeRun {
public:
    NodeRun(const NodeOptions& o, int controlFd, int eventFd) : m_o(o), m_controlFd(controlFd), m_eventFd(eventFd) {}

    int run() {
        std::string token;
        std::vector<std::string> exported;
        if (!readHello(token, exported)) return 1;
        std::vector<std::string> env = rankEnvironment(exported);
        const std::optional<std::string> threadsNote = shareCpusAmongRanks(env, m_o.ranks);
        emit(runEventJson(NodeStartedEvent{int64_t(::getpid()), FTS_VERSION, RunStore::localHostName()}));
        if (threadsNote) emit(runEventJson(LogEvent{"info", *threadsNote}));
        m_allOk = startRanks(env, token);
        if (!m_allOk) signalAll(SIGKILL);
        while (anyAlive()) {
            if (!relayOnce()) break;
            reapExited();
        }
        return m_allOk ? 0 : 1;
    }

private:
    // An event to the supervisor, stamped with this host and the time unless it has them.
    void emit(json ev) {
        if (!ev.contains("host")) ev["host"] = m_o.host;
        if (!ev.contains("time")) ev["time"] = unixNow();
        writeAll(m_eventFd, ev.dump() + "\n");
    }

    // The supervisor's first control line: {"token": the run's token, "env": the variables every rank exports}.
    bool readHello(std::string& token, std::vector<std::string>& exported) {
        std::string first;
        if (!readLine(m_controlFd, first)) {
            emit(runEventJson(NodeErrorEvent{"the control channel closed before the run token arrived"}));
            return false;
        }
        json hello;
        try {
            hello = parseJson(first);
        } catch (const std::exception&) {
            emit(runEventJson(NodeErrorEvent{"the first control line is not JSON"}));
            return false;
        }
        token = fieldOr(hello, "token", "");
        if (hello.contains("env") && hello["env"].is_object())
            for (const auto& [k, v] : hello["env"].items())
                if (v.is_string()) exported.push_back(k + "=" + v.get<std::string>());
        return true;
    }

    // The ranks' environment: this one with the exported variables, where the rendezvous is (and the interface the
    // store is reached by), the collective timeout and the node's GPUs; the token is not in it (stdin carries it).
    std::vector<std::string> rankEnvironment(std::vector<std::string> add) const {
        add.push_back("FTS_MASTER_ADDR=" + m_o.masterAddr);
        add.push_back("FTS_MASTER_PORT=" + std::to_string(m_o.masterPort));
        const std::string localAddr = sourceAddressToward(m_o.masterAddr);
        if (!localAddr.empty()) add.push_back("FTS_LOCAL_ADDR=" + localAddr);
        add.push_back("FTS_COLLECTIVE_TIMEOUT_MS=" + std::to_string(m_o.collectiveTimeoutMs));
        if (!m_o.gpus.empty()) {
            std::string ids;
            for (int g : m_o.gpus) ids += (ids.empty() ? "" : ",") + std::to_string(g);
            add.push_back("CUDA_VISIBLE_DEVICES=" + ids);
        }
        return environmentWith({"FTS_RUN_TOKEN", "FTS_STORE_FD", "FTS_MASTER_ADDR", "FTS_MASTER_PORT"}, add);
    }

    // One `fts worker` per rank of this node, the token on its stdin. False when one could not start.
    bool startRanks(const std::vector<std::string>& env, const std::string& token) {
        m_ranks.resize(size_t(m_o.ranks));
        for (int i = 0; i < m_o.ranks; ++i) {
            Rank& r = m_ranks[size_t(i)];
            r.globalRank = m_o.firstRank + i;
            std::vector<std::string> argv{m_o.workerExecutable.string(),
                                          "worker",
                                          "--run-id",
                                          std::to_string(m_o.runId),
                                          "--rank",
                                          std::to_string(r.globalRank),
                                          "--local-rank",
                                          std::to_string(i),
                                          "--world-size",
                                          std::to_string(m_o.worldSize),
                                          "--host",
                                          m_o.host};
            if (!m_o.configPath.empty()) argv.insert(argv.end(), {"--config", m_o.configPath.string()});
            if (!m_o.configOverrides.empty()) argv.insert(argv.end(), {"--config-overrides", m_o.configOverrides});
            if (m_o.resume) argv.push_back("--resume");
            if (m_o.check) argv.push_back("--check");
            try {
                // SIGTERM blocked until the worker's handler is in place: a stop during its start-up is not a crash.
                r.proc = spawnChild(argv, SpawnOptions{env, true, false, -1, /*blockStopSignals=*/true});
            } catch (const Error& e) {
                emit(runEventJson(RankExitEvent{false, 0, e.what()}, r.globalRank));
                r.exited = true;
                return false;
            }
            r.outOpen = r.errOpen = true;
            writeAll(r.proc.inFd, json{{"token", token}}.dump() + "\n");  // the rank keeps its stdin open
            emit(runEventJson(RankStartedEvent{i, int64_t(r.proc.pid)}, r.globalRank));
        }
        return true;
    }

    void signalAll(int sig) {
        for (Rank& r : m_ranks)
            if (r.proc.pid > 0 && !r.exited) ::kill(r.proc.pid, sig);
    }

    bool anyAlive() const {
        for (const Rank& r : m_ranks)
            if (r.proc.pid > 0 && !r.exited) return true;
        return false;
    }

    // A rank's line: its events pass on (memory, metrics and start marked with its global rank), other stdout text
    // as an info log, stderr as a stderr event.
    void onRankLine(Rank& r, const std::string& line, bool isErr) {
        if (isErr) {
            emit(runEventJson(StderrEvent{line}, r.globalRank));
            return;
        }
        json ev;
        try {
            ev = parseJson(line);
        } catch (const std::exception&) {
            emit(runEventJson(LogEvent{"info", line}, r.globalRank));
            return;
        }
        if (!ev.is_object()) return;
        const std::string kind = fieldOr(ev, "event", "");
        ev["rank"] =
            kind == "memory" || kind == "metrics" || kind == "start" ? r.globalRank : fieldOr(ev, "rank", r.globalRank);
        emit(ev);
    }

    // The control channel's ops: "stop" (SIGTERM: the ranks checkpoint and stop) and "kill".
    void onControlLine(const std::string& line) {
        std::string op;
        try {
            op = fieldOr(parseJson(line), "op", "");
        } catch (const std::exception&) {
        }
        if (op == "stop")
            signalAll(SIGTERM);
        else if (op == "kill")
            signalAll(SIGKILL);
    }

    // One poll over the ranks' streams and the control channel (100 ms at most). False when polling failed.
    bool relayOnce() {
        std::vector<pollfd> fds;
        std::vector<std::pair<size_t, int>> who;  // (rank index, 0 out / 1 err / 2 control)
        for (size_t i = 0; i < m_ranks.size(); ++i) {
            if (m_ranks[i].outOpen) fds.push_back({m_ranks[i].proc.outFd, POLLIN, 0}), who.push_back({i, 0});
            if (m_ranks[i].errOpen) fds.push_back({m_ranks[i].proc.errFd, POLLIN, 0}), who.push_back({i, 1});
        }
        if (m_controlOpen) fds.push_back({m_controlFd, POLLIN, 0}), who.push_back({0, 2});
        const int n = ::poll(fds.data(), nfds_t(fds.size()), 100);
        if (n < 0 && errno != EINTR) return false;
        for (size_t k = 0; k < fds.size(); ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const auto [i, stream] = who[k];
            const ssize_t got = ::read(fds[k].fd, m_buf, sizeof m_buf);
            if (stream == 2) {
                if (got <= 0) {  // the supervisor (or its ssh session) is gone: nothing of the run may outlive it
                    m_controlOpen = false;
                    signalAll(SIGKILL);
                    continue;
                }
                m_control.feed(m_buf, size_t(got), [&](const std::string& line) { onControlLine(line); });
                continue;
            }
            Rank& r = m_ranks[i];
            if (got <= 0) {
                (stream == 0 ? r.outOpen : r.errOpen) = false;
                continue;
            }
            const bool isStderr = stream == 1;  // not the binding itself: clang 14 cannot capture structured bindings
            (stream == 0 ? r.out : r.err).feed(m_buf, size_t(got), [&](const std::string& l) {
                onRankLine(r, l, isStderr);
            });
        }
        return true;
    }

    // What an exited rank still had in its pipes, then its exit as an event.
    void reapExited() {
        for (Rank& r : m_ranks) {
            if (r.proc.pid <= 0 || r.exited) continue;
            int status = 0;
            if (::waitpid(r.proc.pid, &status, WNOHANG) != r.proc.pid) continue;
            drain(r);
            ::close(r.proc.outFd);
            ::close(r.proc.errFd);
            ::close(r.proc.inFd);
            r.outOpen = r.errOpen = false;
            r.exited = true;
            const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            m_allOk = m_allOk && ok;
            emit(runEventJson(RankExitEvent{ok, WIFSIGNALED(status) ? WTERMSIG(status) : 0, describeExitStatus(status)},
                              r.globalRank));
        }
    }

    void drain(Rank& r) {
        for (int stream = 0; stream < 2; ++stream) {
            const int fd = stream == 0 ? r.proc.outFd : r.proc.errFd;
            ::fcntl(fd, F_SETFL, O_NONBLOCK);
            ssize_t got;
            while ((got = ::read(fd, m_buf, sizeof m_buf)) > 0)
                (stream == 0 ? r.out : r.err).feed(m_buf, size_t(got), [&](const std::string& l) {
                    onRankLine(r, l, stream == 1);
                });
        }
        if (!r.out.pending.empty()) onRankLine(r, r.out.pending, false);
        if (!r.err.pending.empty()) onRankLine(r, r.err.pending, true);
        r.out.pending.clear();
        r.err.pending.clear();
    }

    const NodeOptions& m_o;
    const int m_controlFd, m_eventFd;
    std::vector<Rank> m_ranks;
    bool m_controlOpen = true;
    bool m_allOk = true;
    LineBuffer m_control;
    char m_buf[65536];
};

}  // namespace

int runNode(const NodeOptions& o, int controlFd, int eventFd) {
    ::signal(SIGPIPE, SIG_IGN);
    // Terminal signals are the supervisor's business (it sends "stop"); a node never dies of them alone.
    ::signal(SIGINT, SIG_IGN);
    return NodeRun(o, controlFd, eventFd).run();
}

}  // namespace fts
