// `fts train` supervisor (see supervisor.h). One poll loop owns everything: each node's stdout (events of
// its ranks), its stderr (ssh's or the node's own text), and a self-pipe fed by the signal handler, so no
// state is shared with signals. The store server lives until every node has ended.
#include "core/launch/supervisor.h"

#include "core/config/sweep.h"
#include "core/store/run_queue.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <set>
#include <sstream>

#include <algorithm>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/config/preflight.h"
#include "core/config/train_config.h"
#include "core/launch/deepspeed_env.h"
#include "core/launch/failure_policy.h"
#include "core/launch/hostfile.h"
#include "core/launch/memory_preflight.h"
#include "core/launch/net_address.h"
#include "core/launch/node_group.h"
#include "core/launch/node_transport.h"
#include "core/launch/run_recorder.h"
#include "core/util/child_process.h"
#include "core/util/wall_clock.h"
#include "core/store/metric_names.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/run_token.h"

namespace fts {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

int g_signalPipe[2] = {-1, -1};

void onSignal(int sig) {
    const unsigned char b = static_cast<unsigned char>(sig);
    [[maybe_unused]] ssize_t n = ::write(g_signalPipe[1], &b, 1);
}

// SIGINT and SIGTERM as bytes on a self-pipe, from the supervisor's first instruction to its last: a stop at any
// moment is seen (before the nodes start: the run ends stopped without starting them; after: they are asked to
// checkpoint and stop). The destructor restores the previous handlers on every return path.
class StopSignals {
public:
    StopSignals() {
        if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0) throw IoError("cannot create the signal pipe");
        struct sigaction sa {};
        sa.sa_handler = onSignal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGINT, &sa, &m_oldInt);
        ::sigaction(SIGTERM, &sa, &m_oldTerm);
        m_oldPipe = ::signal(SIGPIPE, SIG_IGN);
    }
    ~StopSignals() {
        ::sigaction(SIGINT, &m_oldInt, nullptr);
        ::sigaction(SIGTERM, &m_oldTerm, nullptr);
        ::signal(SIGPIPE, m_oldPipe);
        ::close(g_signalPipe[0]);
        ::close(g_signalPipe[1]);
        g_signalPipe[0] = g_signalPipe[1] = -1;
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;
    int fd() const { return g_signalPipe[0]; }
    // A signal is waiting in the pipe (not consumed: the poll loop still sees it).
    bool pending() const {
        pollfd p{g_signalPipe[0], POLLIN, 0};
        return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
    }

private:
    struct sigaction m_oldInt {
    }, m_oldTerm{};
    void (*m_oldPipe)(int) = SIG_DFL;
};

// A new run never shares its output folder with another run's checkpoints: its rotation and `latest` would mix
// with theirs (and an export would overwrite theirs). `--resume` continues the run that wrote them instead.
void refuseOutputDirInUse(const fs::path& outputDir, RunStore& store) {
    const std::vector<fs::path> held = listCheckpoints(outputDir);
    if (held.empty()) return;
    const int64_t owner = checkpointRunId(held.back());
    std::string whose = "another run";
    if (owner > 0) {
        whose = "run " + std::to_string(owner);
        if (const auto r = store.getRun(owner)) whose += " (\"" + r->name + "\")";
    }
    throw ConfigError(
        "training.output_dir: " + outputDir.string() + " already holds checkpoints of " + whose + " (" +
        std::to_string(held.size()) + ", newest " + held.back().filename().string() +
        "); a new run there would mix its checkpoints with them. Choose another folder (--output_dir DIR, or "
        "--new-output for a fresh one beside it), or continue that run with --resume");
}

// --new-output: the output folder itself when it is free (missing or empty), else the first free <dir>-2, <dir>-3,
// ... (the studio's rule for a new run of a config whose folder is taken).
fs::path freshOutputDir(const fs::path& dir) {
    std::error_code ec;
    auto isFree = [&](const fs::path& d) { return !fs::exists(d, ec) || fs::is_empty(d, ec); };
    if (isFree(dir)) return dir;
    const fs::path clean =
        dir.lexically_normal().string().ends_with('/') ? dir.lexically_normal().parent_path() : dir.lexically_normal();
    for (int k = 2;; ++k) {
        const fs::path candidate = clean.string() + "-" + std::to_string(k);
        if (isFree(candidate)) return candidate;
    }
}

// The plan: a hostfile (DeepSpeed's launcher rules) or ranks on this machine only.
LaunchPlan planFor(const SupervisorOptions& o) {
    if (!o.hostfile.empty()) {
        if (o.nproc > 0)
            throw ConfigError("--nproc cannot be combined with --hostfile (the hostfile's slots say how many ranks)");
        return planLaunch(readHostfile(o.hostfile), o.include, o.exclude, o.numNodes, o.numGpus);
    }
    if (o.numNodes > 1)
        throw ConfigError("--num_nodes " + std::to_string(o.numNodes) + " needs a --hostfile listing the nodes");
    const LocalLaunch local =
        resolveLocalLaunch(o.nproc, o.numGpus, o.include, o.exclude, std::getenv("CUDA_VISIBLE_DEVICES"));
    NodePlan node;
    node.host = "localhost";
    node.local = true;
    node.setVisibleDevices = !local.gpus.empty();
    node.slotIds = local.gpus;
    if (node.slotIds.empty())
        for (int i = 0; i < local.worldSize; ++i) node.slotIds.push_back(i);
    LaunchPlan plan;
    plan.nodes.push_back(node);
    plan.worldSize = local.worldSize;
    return plan;
}

// What every rank opens at the same path: the config, and the model, tokenizer and data where they are files
// or folders here (a model given as a hub id resolves on each host by itself).
std::vector<std::string> pathsEveryHostNeeds(const TrainConfig& cfg, const fs::path& configPath) {
    std::vector<std::string> paths{fs::absolute(configPath).string()};
    const json model = cfg.raw.value("model", json::object());
    const std::string written = model.is_object() && model.contains("path") && model["path"].is_string()
                                    ? model["path"].get<std::string>()
                                    : std::string();
    std::error_code ec;  // a path as written that exists here (a hub id does not)
    const bool modelIsFolder =
        !written.empty() && (fs::exists(written, ec) || fs::exists(configPath.parent_path() / written, ec));
    for (const fs::path& p :
         {modelIsFolder ? cfg.model.path : fs::path(), cfg.model.tokenizer, cfg.data.train, cfg.data.eval}) {
        std::error_code ec;
        if (!p.empty() && fs::exists(p, ec)) paths.push_back(fs::absolute(p).string());
    }
    return paths;
}

json hostsJson(const LaunchPlan& plan) {
    json hosts = json::array();
    for (const NodePlan& n : plan.nodes)
        hosts.push_back({{"host", n.host}, {"first_rank", n.firstRank}, {"slots", n.slotIds}});
    return hosts;
}

// ---- superviseTraining's phases ------------------------------------------------------------------

// The config as every rank will read it (the command line's overrides over the file) and the plan of hosts and
// ranks. Throws Error; nothing is recorded yet.
struct ResolvedLaunch {
    TrainConfig cfg;
    LaunchPlan plan;
    json overrides;                    // what the command line sets over the file; every rank applies it
    std::vector<fs::path> envSources;  // DeepSpeed's .deepspeed_env files exported to every node
    EnvList exported;
};

ResolvedLaunch resolveLaunch(const SupervisorOptions& o, std::ostream& out) {
    ResolvedLaunch r;
    r.overrides = o.configOverrides;
    r.plan = planFor(o);
    r.cfg = loadTrainConfig(o.configPath, r.plan.worldSize, r.overrides);
    if (hasSweep(r.cfg.raw))
        throw ConfigError(o.configPath.string() +
                          ": sweep: this config is a sweep of several runs; queue them with `fts queue add " +
                          o.configPath.string() + "` (or remove the sweep block to train it once)");
    if (o.newOutput) {
        if (o.resume) throw ConfigError("--new-output starts a new run; it cannot be combined with --resume");
        const fs::path fresh = freshOutputDir(r.cfg.training.outputDir);
        if (fresh != r.cfg.training.outputDir) {
            out << "note: training.output_dir " << r.cfg.training.outputDir.string()
                << " is not empty; this run writes to " << fresh.string() << " (--new-output)\n";
            r.overrides["training"]["output_dir"] = fresh.string();
            r.cfg = loadTrainConfig(o.configPath, r.plan.worldSize, r.overrides);
        }
    }
    if (!o.hostfile.empty()) {
        const char* home = std::getenv("HOME");
        r.exported = nodeEnvironment(home ? fs::path(home) : fs::path(), fs::current_path(), &r.envSources);
    }
    if (o.masterPort < 0 || o.masterPort > 65535)
        throw ConfigError("--master_port " + std::to_string(o.masterPort) + ": expected 1..65535");
    return r;
}

// The checks made before a run row exists, printed as errors: the paths the ranks open on this machine (remote hosts
// check theirs in the probe), the memory estimate against this machine's free device memory (refused unless
// --force), and the output folder of a new run. Returns false when the run must not start; `estimate` is set where
// it was judged (the studio shows it next to the measured peak).
bool checkBeforeTheRun(const SupervisorOptions& o, const ResolvedLaunch& launch, RunStore& store, std::ostream& out,
                       std::optional<MemoryEstimate>& estimate) {
    const TrainConfig& cfg = launch.cfg;
    if (!launch.plan.remote()) {
        const std::vector<ConfigIssue> missing = preflightPaths(cfg);
        for (const ConfigIssue& issue : missing)
            out << "error: " << o.configPath.string() << ": " << issue.keyPath << ": " << issue.message << "\n";
        if (!missing.empty()) return false;
        try {
            const NodePlan& node = launch.plan.nodes.front();
            const MemoryCheck memory =
                checkRunMemory(cfg, launch.plan.worldSize, node.setVisibleDevices ? node.slotIds : std::vector<int>{});
            estimate = memory.estimate;
            if (!memory.fits && !o.force) {
                out << describeMemoryRefusal(memory, o.configPath.string()) << "\n";
                return false;
            }
            if (!memory.fits)
                out << "warning: " << o.configPath.string() << ": the memory estimate ("
                    << formatBytes(memory.estimate.perRank.total) << " per rank) exceeds " << memory.device << "'s "
                    << formatBytes(memory.available) << " free; starting anyway (--force)\n";
        } catch (const Error& e) {
            out << "error: " << e.what() << "\n";
            return false;
        }
    }
    if (!o.resume) {
        try {
            refuseOutputDirInUse(cfg.training.outputDir, store);
        } catch (const Error& e) {
            out << "error: " << o.configPath.string() << ": " << e.what() << "\n";
            return false;
        }
    }
    return true;
}

// The run's row: a resumed run continues the row that wrote its checkpoints (when the store still has it), any
// other gets a new one, pending, holding the config as written and as resolved, with the estimate beside it.
int64_t recordTheRun(const SupervisorOptions& o, const ResolvedLaunch& launch, RunStore& store,
                     const std::optional<MemoryEstimate>& estimate, double t0) {
    const TrainConfig& cfg = launch.cfg;
    if (o.resume) {
        const fs::path latest = latestCheckpoint(cfg.training.outputDir);
        const int64_t previous = latest.empty() ? 0 : checkpointRunId(latest);
        if (previous > 0 && store.getRun(previous)) return previous;
    }
    RunRecord r;
    r.name = !o.runName.empty()              ? o.runName
             : !cfg.training.runName.empty() ? cfg.training.runName
                                             : o.configPath.stem().string();
    r.status = RunStatus::Pending;
    r.createdAt = t0;
    r.configJson = cfg.raw.dump(2);
    r.resolvedConfigJson = configToResolvedJson(cfg).dump(2);
    r.configPath = fs::absolute(o.configPath).string();
    r.model = cfg.model.path.string();
    r.dataset = cfg.data.train.string();
    r.outputDir = cfg.training.outputDir.string();
    r.host = RunStore::localHostName();
    r.versionsJson = json{{"fts", FTS_VERSION}}.dump();
    r.worldSize = launch.plan.worldSize;
    r.hostsJson = hostsJson(launch.plan).dump();
    r.pid = ::getpid();  // from the first moment a reader sees the row (the studio re-attaches by it)
    const int64_t runId = store.createRun(r);
    if (estimate)
        store.addMetrics(runId, {{0, "memory_estimate_bytes", double(estimate->perRank.total), t0},
                                 {0, "memory_estimate_allocator_bytes", double(estimate->perRank.allocatorPeak), t0}});
    return runId;
}

// Where the ranks meet: the master address and port, and the store server (world size > 1) guarded by the run's
// token. The remote hosts answer first: reachable, fts there, the same version, the run's paths present.
struct Rendezvous {
    std::string masterAddr;
    int port = 0;
    std::shared_ptr<void> storeServer;
};

Rendezvous prepareRendezvous(const SupervisorOptions& o, const ResolvedLaunch& launch,
                             const TransportOptions& transport, const std::string& token, RunRecorder& recorder,
                             std::ostream& out) {
    const LaunchPlan& plan = launch.plan;
    std::vector<HostProbe> probes;
    std::vector<std::string> remoteHosts;
    for (const NodePlan& n : plan.nodes)
        if (!n.local) remoteHosts.push_back(n.host);
    if (!remoteHosts.empty()) {
        if (o.progress) out << "checking " << remoteHosts.size() << " remote host(s) over ssh...\n";
        probes = probeHosts(remoteHosts, transport, o.probeTimeoutMs, pathsEveryHostNeeds(launch.cfg, o.configPath));
        std::string problems;
        for (const HostProbe& p : probes) {
            if (!p.ok)
                problems += (problems.empty() ? "" : "\n") + p.error;
            else
                recorder.log(-1, "info",
                             "host " + p.host + " (" + p.hostname + "): fts " + p.ftsVersion + ", GPUs " + p.gpusJson);
        }
        if (!problems.empty()) throw ConfigError(problems);
    }
    Rendezvous r;
    r.masterAddr = chooseMasterAddr(o.masterAddr, plan, probes);
    r.port = o.masterPort;
    if (r.port == 0 && plan.remote()) r.port = 29500;  // DeepSpeed's default
    if (plan.worldSize > 1) {
        if (!o.hostStore) throw ConfigError("this build cannot host a rendezvous store");
        const int fd = listenTcp(r.masterAddr, r.port);
        r.storeServer = o.hostStore(fd, r.masterAddr, r.port, token);
        recorder.log(-1, "info", "rendezvous store on " + r.masterAddr + ":" + std::to_string(r.port));
    }
    return r;
}

// One `fts node` per host; the token and the exported variables go on its stdin, never argv. A host that cannot
// start fails the launch and the started ones are killed.
void startNodes(NodeGroup& nodes, const SupervisorOptions& o, const ResolvedLaunch& launch, const Rendezvous& meet,
                int64_t runId, const TransportOptions& transport, const std::string& token, FailurePolicy& failures) {
    NodeCommand command;
    command.configPath = fs::absolute(o.configPath);
    command.configOverrides = launch.overrides.is_null() ? std::string() : launch.overrides.dump();
    command.runId = runId;
    command.worldSize = launch.plan.worldSize;
    command.masterAddr = meet.masterAddr;
    command.masterPort = meet.port;
    command.collectiveTimeoutMs = o.collectiveTimeoutMs;
    command.resume = o.resume;
    json hello{{"token", token}, {"env", json::object()}};
    for (const auto& [k, v] : launch.exported) hello["env"][k] = v;
    const std::vector<std::string> nodeEnv = environmentWith({"FTS_RUN_TOKEN"}, {});
    for (size_t i = 0; i < nodes.size() && !failures.failed(); ++i) {
        try {
            nodes.start(i, command, transport, nodeEnv, hello.dump());
        } catch (const Error& e) {
            failures.launchFailed("host " + launch.plan.nodes[i].host + ": " + e.what());
        }
    }
    if (failures.failed()) {
        nodes.sendAll("kill");
        nodes.closeControl();
    }
}

// The poll loop, until every node has ended: their lines go to the recorder; a first stop signal asks every host's
// ranks to checkpoint and stop together, a second kills them; a failed rank stops the ranks on every host (and kills
// what still runs five seconds later).
void superviseNodes(NodeGroup& nodes, const SupervisorOptions& o, const StopSignals& stopSignals, RunRecorder& recorder,
                    FailurePolicy& failures, std::ostream& out) {
    NodeGroup::Handlers handlers;
    handlers.onLine = [&](const NodePlan& n, const std::string& line) { recorder.onNodeLine(n.host, line); };
    handlers.onStderr = [&](const NodePlan& n, const std::string& line) { recorder.onNodeStderr(n.host, line); };
    handlers.onExit = [&](const NodePlan& n, int status) {
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (ok) return;
        const std::string said = recorder.lastStderr(n.host);
        if (!recorder.nodeStarted(n.host))
            failures.launchFailed("host " + n.host + ": the node " + describeExitStatus(status) +
                                  " before starting its ranks" + (said.empty() ? "" : " (" + said + ")"));
        else if (!failures.failed())
            failures.launchFailed("host " + n.host + ": the node " + describeExitStatus(status) +
                                  (n.local ? "" : " (the ssh session ended)") + (said.empty() ? "" : ": " + said));
    };
    int signalsSeen = 0;
    std::optional<std::chrono::steady_clock::time_point> hardKillAt;  // ssh clients that outlive the kill
    char buf[256];
    while (nodes.anyAlive()) {
        if (nodes.poll(100, stopSignals.fd(), handlers)) {
            int got = 0;
            while (::read(stopSignals.fd(), buf, sizeof buf) > 0) ++got;
            if (got > 0) {
                const bool first = signalsSeen++ == 0;
                nodes.sendAll(first ? "stop" : "kill");
                recorder.log(-1, "info",
                             first ? "stop requested: the workers checkpoint and stop"
                                   : "second stop request: killing the workers");
                if (o.progress)
                    out << "\n"
                        << (first ? "stopping after the current step (checkpointing)...\n" : "killing the workers\n");
                if (!first) {
                    recorder.setKilledByUs();
                    nodes.closeControl();
                }
            }
        }
        if (failures.killDue(std::chrono::steady_clock::now()) && nodes.anyAlive()) {
            recorder.setKilledByUs();
            nodes.sendAll("kill");
            nodes.closeControl();  // a node whose control closes kills its ranks too, whatever else happened
            recorder.log(-1, "error", "a rank failed: stopping the ranks on every host");
            hardKillAt = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        }
        if (hardKillAt && std::chrono::steady_clock::now() >= *hardKillAt) {
            nodes.killAll();
            hardKillAt.reset();
        }
        recorder.flushIfDue();
    }
    nodes.closeControl();
    recorder.endProgressLine();
}

// The run's end in the store (completed, stopped, or failed with its reason) and in one line of output.
int finishTheRun(RunStore& store, int64_t runId, RunRecorder& recorder, const FailurePolicy& failures, double t0,
                 std::ostream& out) {
    RunStatus final = RunStatus::Failed;
    std::string failure = failures.failure();
    if (failure.empty()) {
        if (recorder.endStatus().empty())
            failure = "worker rank 0 ended without reporting the end of training";
        else
            final = recorder.endStatus() == "stopped" ? RunStatus::Stopped : RunStatus::Completed;
    }
    if (recorder.firstStepTime() > 0)
        recorder.log(-1, "info", "first step " + std::to_string(recorder.firstStepTime() - t0) + " s after the start");
    recorder.flush();
    const json finalMetrics = recorder.finalMetrics();
    store.finishRun(runId, final, unixNow(), finalMetrics.dump(), failure);

    if (final == RunStatus::Failed) {
        out << "error: run " << runId << " failed: " << failure << "\n";
        return 1;
    }
    out << "run " << runId << " " << toString(final) << " after " << fieldOr(finalMetrics, "steps", int64_t(0))
        << " steps";
    if (const double eval = fieldOr(finalMetrics, "eval_loss", double(NAN)); !std::isnan(eval))
        out << ", eval loss " << eval;
    for (const char* key : kClassificationEvalMetrics)  // classification
        if (finalMetrics.contains(key) && finalMetrics[key].is_number())
            out << ", " << (key + 5) << " " << finalMetrics[key].get<double>();
    if (const std::string exported = fieldOr(finalMetrics, "export_dir", ""); !exported.empty())
        out << "; model exported to " << exported;
    out << "\n";
    return 0;
}

}  // namespace

int superviseTraining(const SupervisorOptions& o, std::ostream& out) {
    const StopSignals stopSignals;
    // ---- config and plan: errors here never create a run row -------------------------------------
    ResolvedLaunch launch;
    try {
        launch = resolveLaunch(o, out);
    } catch (const Error& e) {
        out << "error: " << e.what() << "\n";
        return 2;
    }
    const int world = launch.plan.worldSize;
    const ConfigParseResult again = parseTrainConfig(launch.cfg.raw, o.configPath.parent_path(), world);
    for (const auto& issue : again.issues)
        if (!issue.isError)
            out << "warning: " << o.configPath.string() << ": " << issue.keyPath << ": " << issue.message << "\n";
    RunStore store(o.storePath.empty() ? RunStore::defaultPath() : o.storePath);
    store.reapOrphans();
    std::optional<MemoryEstimate> estimate;
    if (!checkBeforeTheRun(o, launch, store, out, estimate)) return 2;

    // ---- the run row ----------------------------------------------------------------------------
    const double t0 = unixNow();
    const int64_t runId = recordTheRun(o, launch, store, estimate, t0);
    store.markStarted(runId, ::getpid(), t0);
    if (o.queueEntry > 0) RunQueue(store).setRun(o.queueEntry, runId);  // the queue runner learns its run
    FailurePolicy failures(world);
    RunRecorder recorder(store, runId, world, o.progress, out, failures);
    recorder.setPrintInterval(launch.cfg.deepspeed.steps_per_print);
    if (launch.plan.nodes.size() > 1 || launch.plan.remote())
        recorder.log(-1, "info", "launch plan: " + describePlan(launch.plan));
    for (const auto& f : launch.envSources)
        recorder.log(-1, "info", "exporting the variables of " + f.string() + " on every node");

    // ---- the hosts answer and the rendezvous opens -----------------------------------------------
    const TransportOptions transport{o.workerExecutable, o.remoteFts, SshOptions{o.sshPort, o.sshConfig, 5}};
    const std::string token = newRunToken();
    Rendezvous meet;
    try {
        meet = prepareRendezvous(o, launch, transport, token, recorder, out);
    } catch (const Error& e) {
        failures.launchFailed(e.what());
    }
    // a stop that came during set-up: nothing started, nothing to save
    if (!failures.failed() && stopSignals.pending()) {
        recorder.log(-1, "info", "stop requested before the ranks started: nothing to checkpoint");
        recorder.flush();
        store.finishRun(runId, RunStatus::Stopped, unixNow(), recorder.finalMetrics().dump(), "");
        out << "run " << runId << " stopped before its ranks started\n";
        return 0;
    }

    // ---- the nodes run, watched until every one has ended ----------------------------------------
    NodeGroup nodes(launch.plan);
    startNodes(nodes, o, launch, meet, runId, transport, token, failures);
    superviseNodes(nodes, o, stopSignals, recorder, failures, out);
    return finishTheRun(store, runId, recorder, failures, t0, out);
}

}  // namespace fts
