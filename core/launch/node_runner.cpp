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

int runNode(const NodeOptions& o, int controlFd, int eventFd) {
    ::signal(SIGPIPE, SIG_IGN);
    // Terminal signals are the supervisor's business (it sends "stop"); a node never dies of them alone.
    ::signal(SIGINT, SIG_IGN);
    auto emit = [&](json ev) {
        if (!ev.contains("host")) ev["host"] = o.host;
        if (!ev.contains("time")) ev["time"] = unixNow();
        writeAll(eventFd, ev.dump() + "\n");
    };
    std::string first;
    if (!readLine(controlFd, first)) {
        emit(runEventJson(NodeErrorEvent{"the control channel closed before the run token arrived"}));
        return 1;
    }
    json hello;
    try {
        hello = parseJson(first);
    } catch (const std::exception&) {
        emit(runEventJson(NodeErrorEvent{"the first control line is not JSON"}));
        return 1;
    }
    const std::string token = fieldOr(hello, "token", "");
    std::vector<std::string> add;
    if (hello.contains("env") && hello["env"].is_object())
        for (const auto& [k, v] : hello["env"].items())
            if (v.is_string()) add.push_back(k + "=" + v.get<std::string>());
    add.push_back("FTS_MASTER_ADDR=" + o.masterAddr);
    add.push_back("FTS_MASTER_PORT=" + std::to_string(o.masterPort));
    const std::string localAddr = sourceAddressToward(o.masterAddr);  // the interface the store is reached by
    if (!localAddr.empty()) add.push_back("FTS_LOCAL_ADDR=" + localAddr);
    add.push_back("FTS_COLLECTIVE_TIMEOUT_MS=" + std::to_string(o.collectiveTimeoutMs));
    if (!o.gpus.empty()) {
        std::string ids;
        for (int g : o.gpus) ids += (ids.empty() ? "" : ",") + std::to_string(g);
        add.push_back("CUDA_VISIBLE_DEVICES=" + ids);
    }
    const std::vector<std::string> env =
        environmentWith({"FTS_RUN_TOKEN", "FTS_STORE_FD", "FTS_MASTER_ADDR", "FTS_MASTER_PORT"}, add);

    emit(runEventJson(NodeStartedEvent{int64_t(::getpid()), FTS_VERSION, RunStore::localHostName()}));
    std::vector<Rank> ranks(size_t(o.ranks));
    bool startFailed = false;
    for (int i = 0; i < o.ranks; ++i) {
        Rank& r = ranks[size_t(i)];
        r.globalRank = o.firstRank + i;
        std::vector<std::string> argv{o.workerExecutable.string(),
                                      "worker",
                                      "--run-id",
                                      std::to_string(o.runId),
                                      "--rank",
                                      std::to_string(r.globalRank),
                                      "--local-rank",
                                      std::to_string(i),
                                      "--world-size",
                                      std::to_string(o.worldSize),
                                      "--host",
                                      o.host};
        if (!o.configPath.empty()) argv.insert(argv.end(), {"--config", o.configPath.string()});
        if (!o.configOverrides.empty()) argv.insert(argv.end(), {"--config-overrides", o.configOverrides});
        if (o.resume) argv.push_back("--resume");
        if (o.check) argv.push_back("--check");
        try {
            // SIGTERM blocked until the worker's handler is in place: a stop during its start-up is not a crash.
            r.proc = spawnChild(argv, SpawnOptions{env, true, false, -1, /*blockStopSignals=*/true});
        } catch (const Error& e) {
            emit(runEventJson(RankExitEvent{false, 0, e.what()}, r.globalRank));
            r.exited = true;
            startFailed = true;
            break;
        }
        r.outOpen = r.errOpen = true;
        writeAll(r.proc.inFd, json{{"token", token}}.dump() + "\n");  // the rank keeps its stdin open
        emit(runEventJson(RankStartedEvent{i, int64_t(r.proc.pid)}, r.globalRank));
    }
    auto signalAll = [&](int sig) {
        for (Rank& r : ranks)
            if (r.proc.pid > 0 && !r.exited) ::kill(r.proc.pid, sig);
    };
    if (startFailed) signalAll(SIGKILL);

    bool controlOpen = true;
    LineBuffer control;
    bool allOk = !startFailed;
    char buf[65536];
    auto onRankLine = [&](Rank& r, const std::string& line, bool isErr) {
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
    };
    auto drain = [&](Rank& r) {
        for (int stream = 0; stream < 2; ++stream) {
            const int fd = stream == 0 ? r.proc.outFd : r.proc.errFd;
            ::fcntl(fd, F_SETFL, O_NONBLOCK);
            ssize_t got;
            while ((got = ::read(fd, buf, sizeof buf)) > 0)
                (stream == 0 ? r.out : r.err).feed(buf, size_t(got), [&](const std::string& l) {
                    onRankLine(r, l, stream == 1);
                });
        }
        if (!r.out.pending.empty()) onRankLine(r, r.out.pending, false);
        if (!r.err.pending.empty()) onRankLine(r, r.err.pending, true);
        r.out.pending.clear();
        r.err.pending.clear();
    };
    auto anyAlive = [&] {
        for (const Rank& r : ranks)
            if (r.proc.pid > 0 && !r.exited) return true;
        return false;
    };
    while (anyAlive()) {
        std::vector<pollfd> fds;
        std::vector<std::pair<size_t, int>> who;  // (rank index, 0 out / 1 err / 2 control)
        for (size_t i = 0; i < ranks.size(); ++i) {
            if (ranks[i].outOpen) fds.push_back({ranks[i].proc.outFd, POLLIN, 0}), who.push_back({i, 0});
            if (ranks[i].errOpen) fds.push_back({ranks[i].proc.errFd, POLLIN, 0}), who.push_back({i, 1});
        }
        if (controlOpen) fds.push_back({controlFd, POLLIN, 0}), who.push_back({0, 2});
        const int n = ::poll(fds.data(), nfds_t(fds.size()), 100);
        if (n < 0 && errno != EINTR) break;
        for (size_t k = 0; k < fds.size(); ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const auto [i, stream] = who[k];
            const ssize_t got = ::read(fds[k].fd, buf, sizeof buf);
            if (stream == 2) {
                if (got <= 0) {  // the supervisor (or its ssh session) is gone: nothing of the run may outlive it
                    controlOpen = false;
                    signalAll(SIGKILL);
                    continue;
                }
                control.feed(buf, size_t(got), [&](const std::string& line) {
                    std::string op;
                    try {
                        op = fieldOr(parseJson(line), "op", "");
                    } catch (const std::exception&) {
                    }
                    if (op == "stop")
                        signalAll(SIGTERM);
                    else if (op == "kill")
                        signalAll(SIGKILL);
                });
                continue;
            }
            Rank& r = ranks[i];
            if (got <= 0) {
                (stream == 0 ? r.outOpen : r.errOpen) = false;
                continue;
            }
            const bool isStderr = stream == 1;  // not the binding itself: clang 14 cannot capture structured bindings
            (stream == 0 ? r.out : r.err).feed(buf, size_t(got), [&](const std::string& l) {
                onRankLine(r, l, isStderr);
            });
        }
        for (Rank& r : ranks) {
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
            allOk = allOk && ok;
            emit(runEventJson(RankExitEvent{ok, WIFSIGNALED(status) ? WTERMSIG(status) : 0, describeExitStatus(status)},
                              r.globalRank));
        }
    }
    return allOk ? 0 : 1;
}

}  // namespace fts
