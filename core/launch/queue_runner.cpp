// The queue runner's loop: adopt or settle what a previous runner left running, then each turn settle the runs that
// ended, stop the cancelled, and start the next waiting entries whose devices are free, in queue order.
#include "core/launch/queue_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "core/launch/queue_devices.h"
#include "core/store/run_queue.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/util/process.h"

extern char** environ;

namespace fts {
namespace fs = std::filesystem;

namespace {

struct Active {
    pid_t pid = -1;
    bool ours = false;  // our child (waitpid), or adopted from a runner that went away (polled by pid)
    DeviceClaim claim;
    bool stopSent = false;
    fs::path log;
};

// The last "error: ..." line of a run's log (why `fts train` refused to start it), else its last line.
std::string lastError(const fs::path& log) {
    std::ifstream in(log);
    std::string line, last, error;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        last = line;
        if (line.rfind("error: ", 0) == 0) error = line.substr(7);
    }
    return !error.empty() ? error : last;
}

// W&B's metric.target: the sentence saying an entry's run reached its sweep's target (its best value of the sweep's
// metric at or beyond it), or nothing (no target, or a run that never recorded the metric).
std::optional<std::string> sweepTargetReached(const QueueEntry& e, const RunStore& store) {
    if (e.sweep.empty() || e.sweepValues.empty() || e.runId <= 0) return std::nullopt;
    const nlohmann::json meta = parseJsonOrDiscarded(e.sweepValues);
    if (!meta.is_object() || !meta.contains("target") || !meta["target"].is_number()) return std::nullopt;
    const std::string metric = meta.value("metric", std::string("eval_loss"));
    const bool maximize = meta.value("goal", std::string("minimize")) == "maximize";
    const double target = meta["target"].get<double>();
    std::optional<double> best;
    for (const MetricPoint& m : store.metrics(e.runId, metric))
        best = !best ? m.value : maximize ? std::max(*best, m.value) : std::min(*best, m.value);
    if (!best || (maximize ? *best < target : *best > target)) return std::nullopt;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %g reached the target %g", metric.c_str(), *best, target);
    return "the sweep's target was reached by " + e.name + " (" + buf + ")";
}

// `fts train ...` with stdout and stderr appended to `log`, stdin /dev/null, in a process group of its own (a
// terminal's Ctrl-C reaches the runner, which stops its runs itself).
pid_t spawnToLog(const std::vector<std::string>& argv, const fs::path& log, bool hideGpus) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        if (!hideGpus || std::string(*e).rfind("CUDA_VISIBLE_DEVICES=", 0) != 0) env.emplace_back(*e);
    if (hideGpus) env.emplace_back("CUDA_VISIBLE_DEVICES=");  // a CPU slot: training.device auto trains on the CPU
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) throw IoError(argv[0] + ": cannot start: " + std::string(strerror(rc)));
    return pid;
}

class Runner {
public:
    Runner(const QueueRunnerOptions& o, RunStore& store) : m_o(o), m_store(store), m_queue(store) {
        m_pool.cpuSlots = std::max(1, o.cpuSlots);
        m_pool.gpus = o.gpusGiven ? o.gpus : localGpuIds();
        m_dir = fs::absolute(m_store.path()).parent_path() / "queue";
        fs::create_directories(m_dir);
    }

    int run(const std::atomic<bool>& stop) {
        say("queue runner " + std::to_string(::getpid()) + ": " + std::to_string(m_pool.gpus.size()) + " GPU(s), " +
            std::to_string(m_pool.cpuSlots) + " CPU slot(s)");
        adoptOrSettleLeftovers();
        for (;;) {
            const bool stopping = stop.load();
            reapEnded(stopping);
            handleCancels();
            if (stopping) {
                for (auto& [id, a] : m_active)
                    if (a.ours && !a.stopSent) {
                        ::kill(a.pid, SIGTERM);  // the supervisor saves a checkpoint and stops its run
                        a.stopSent = true;
                    }
                bool oursLeft = false;
                for (const auto& [id, a] : m_active) oursLeft = oursLeft || a.ours;
                if (!oursLeft) return 0;
            } else {
                const bool waiting = startWaiting();
                if (m_o.untilEmpty && m_active.empty() && !waiting) {
                    say("queue is empty");
                    return 0;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(m_o.pollMs));
        }
    }

private:
    const QueueRunnerOptions& m_o;
    RunStore& m_store;
    RunQueue m_queue;
    DevicePool m_pool;
    fs::path m_dir;
    std::map<int64_t, Active> m_active;  // by queue entry id
    std::map<int64_t, int> m_vanished;   // entry id -> times its processes vanished under this runner

    void say(const std::string& line) {
        if (m_o.log) m_o.log(line);
    }

    DeviceClaim claimFor(const QueueEntry& e) {
        DeviceClaim c;
        std::string why;
        bool never = false;
        try {
            DevicePool all = m_pool;
            all.cpuUsed = 0;
            all.gpusUsed.clear();
            all.hostsUsed.clear();
            claimDevices(all, parseDeviceRequest(e.devices), c, why, never);
        } catch (const Error&) {
        }
        return c;
    }

    // A runner before this one left entries running: still alive, they are ours to watch; gone, they are settled.
    void adoptOrSettleLeftovers() {
        for (const QueueEntry& e : m_queue.list()) {
            if (e.status != QueueStatus::Running) continue;
            if (e.pid > 0 && processAlive(e.pid)) {
                Active a;
                a.pid = pid_t(e.pid);
                a.claim = claimFor(e);
                a.log = m_dir / ("entry-" + std::to_string(e.id) + ".log");
                takeDevices(m_pool, a.claim);
                m_active[e.id] = a;
                say("entry " + std::to_string(e.id) + " (" + e.name + "): still running as pid " +
                    std::to_string(e.pid) + ", watching it");
            } else {
                settle(e.id, std::nullopt, false);
            }
        }
    }

    void reapEnded(bool stopping) {
        std::vector<int64_t> ended;
        for (auto& [id, a] : m_active) {
            if (a.ours) {
                int status = 0;
                if (::waitpid(a.pid, &status, WNOHANG) == a.pid) {
                    ended.push_back(id);
                    releaseDevices(m_pool, a.claim);
                    settle(id, status, stopping && a.stopSent);
                }
            } else if (!processAlive(a.pid)) {
                ended.push_back(id);
                releaseDevices(m_pool, a.claim);
                settle(id, std::nullopt, false);
            }
        }
        for (int64_t id : ended) m_active.erase(id);
    }

    void handleCancels() {
        for (auto& [id, a] : m_active) {
            if (a.stopSent) continue;
            const auto e = m_queue.get(id);
            if (e && e->cancelRequested) {
                ::kill(a.pid, SIGTERM);
                a.stopSent = true;
                say("entry " + std::to_string(id) + " (" + e->name + "): cancelled, stopping its run");
            }
        }
    }

    // How an entry's run ended, from the store (and the exit status when it was our child).
    void settle(int64_t id, std::optional<int> exitStatus, bool stoppedByUs) {
        m_store.reapOrphans();  // a run whose supervisor vanished is marked failed with that reason
        const auto e = m_queue.get(id);
        if (!e) return;
        const std::optional<RunRecord> run = e->runId > 0 ? m_store.getRun(e->runId) : std::nullopt;
        const std::string name = "entry " + std::to_string(id) + " (" + e->name + ")";
        const bool vanished =
            run && run->status == RunStatus::Failed && run->failureReason.rfind("supervisor process", 0) == 0;
        if (e->cancelRequested) {
            m_queue.finish(id, QueueStatus::Cancelled,
                           run ? "cancelled at step " + std::to_string(run->lastStep) : "cancelled");
            say(name + ": cancelled");
        } else if (run && run->status == RunStatus::Completed) {
            m_queue.finish(id, QueueStatus::Done, "");
            say(name + ": done (run " + std::to_string(run->id) + ")");
            if (const std::optional<std::string> reached = sweepTargetReached(*e, m_store)) {
                // as W&B's sweep does: no new run of the sweep starts; the ones started (running, or waiting to
                // resume) go on to their end
                for (const QueueEntry& other : m_queue.list())
                    if (other.status == QueueStatus::Waiting && other.submission == e->submission && other.runId == 0)
                        m_queue.finish(other.id, QueueStatus::Cancelled, *reached);
                say(*reached + ": the sweep's waiting runs are cancelled");
            }
        } else if (stoppedByUs || vanished || (run && run->status == RunStatus::Running)) {
            if (vanished && ++m_vanished[id] > 1) {
                m_queue.finish(id, QueueStatus::Failed, run->failureReason + " (twice; not started again)");
                say(name + ": failed: its processes vanished twice");
                return;
            }
            m_queue.requeue(id, stoppedByUs ? "interrupted: the queue runner stopped; resumes from its checkpoint"
                                            : "interrupted: its processes went away; resumes from its checkpoint");
            say(name + ": interrupted, back in the queue to resume");
        } else if (run && run->status == RunStatus::Stopped) {
            m_queue.finish(id, QueueStatus::Cancelled,
                           "stopped at step " + std::to_string(run->lastStep) +
                               " (outside the queue; resume it from its run page)");
            say(name + ": its run was stopped");
        } else if (run) {
            m_queue.finish(id, QueueStatus::Failed, run->failureReason.empty() ? "failed" : run->failureReason);
            say(name + ": failed: " + run->failureReason);
        } else {
            std::string why = lastError(m_dir / ("entry-" + std::to_string(id) + ".log"));
            if (why.empty() && exitStatus) why = "fts train " + describeExitStatus(*exitStatus);
            if (why.empty()) why = "it ended before its run started";
            m_queue.finish(id, QueueStatus::Failed, why);
            say(name + ": failed before its run started: " + why);
        }
    }

    // Starts what can start; returns whether an entry still waits.
    bool startWaiting() {
        bool waiting = false;
        DeviceClaim reserved;  // what earlier waiting entries wait for: later ones do not take it before them
        std::string reservedBy;
        for (const QueueEntry& e : m_queue.list()) {
            if (e.status != QueueStatus::Waiting) continue;
            DeviceRequest request;
            try {
                request = parseDeviceRequest(e.devices);
            } catch (const Error& err) {
                m_queue.finish(e.id, QueueStatus::Failed, err.what());
                say("entry " + std::to_string(e.id) + " (" + e.name + "): failed: " + err.what());
                continue;
            }
            DeviceClaim claim;
            std::string why;
            bool never = false;
            const bool free = claimDevices(m_pool, request, claim, why, never);
            if (never) {
                m_queue.finish(e.id, QueueStatus::Failed, why);
                say("entry " + std::to_string(e.id) + " (" + e.name + "): failed: " + why);
                continue;
            }
            const DeviceClaim wanted = free ? claim : claimFor(e);
            if (claimsOverlap(wanted, reserved)) {
                m_queue.setReason(e.id, "waiting behind " + reservedBy + " for the same devices");
                waiting = true;
                continue;
            }
            if (!free) {
                m_queue.setReason(e.id, why);
                waiting = true;
                reserved.cpu += wanted.cpu;
                reserved.gpus.insert(reserved.gpus.end(), wanted.gpus.begin(), wanted.gpus.end());
                if (request.kind == DeviceRequest::Kind::AnyGpus ||
                    (request.kind == DeviceRequest::Kind::Auto && !m_pool.gpus.empty()))
                    reserved.gpus.insert(reserved.gpus.end(), m_pool.gpus.begin(), m_pool.gpus.end());
                reserved.hosts.insert(reserved.hosts.end(), wanted.hosts.begin(), wanted.hosts.end());
                if (reservedBy.empty()) reservedBy = "entry " + std::to_string(e.id) + " (" + e.name + ")";
                continue;
            }
            start(e, request, claim);
        }
        return waiting;
    }

    void start(const QueueEntry& e, const DeviceRequest& request, const DeviceClaim& claim) {
        const fs::path config = m_dir / ("entry-" + std::to_string(e.id) + ".json");
        const fs::path log = m_dir / ("entry-" + std::to_string(e.id) + ".log");
        try {
            writeFileAtomic(config, e.configJson);
            std::vector<std::string> argv = {m_o.ftsExecutable.string(),
                                             "train",
                                             config.string(),
                                             "--store",
                                             fs::absolute(m_store.path()).string(),
                                             "--name",
                                             e.name,
                                             "--quiet",
                                             "--queue-entry",
                                             std::to_string(e.id)};
            if (e.resume) argv.push_back("--resume");
            for (const std::string& a : launchArguments(request, claim)) argv.push_back(a);
            const pid_t pid = spawnToLog(argv, log, claim.gpus.empty() && claim.hosts.empty());
            m_queue.markRunning(e.id, pid);
            Active a;
            a.pid = pid;
            a.ours = true;
            a.claim = claim;
            a.log = log;
            takeDevices(m_pool, claim);
            m_active[e.id] = a;
            say("entry " + std::to_string(e.id) + " (" + e.name + "): started" + (e.resume ? " (resuming)" : "") +
                " as pid " + std::to_string(pid) + " on " + request.text());
        } catch (const Error& err) {
            m_queue.finish(e.id, QueueStatus::Failed, err.what());
            say("entry " + std::to_string(e.id) + " (" + e.name + "): failed to start: " + err.what());
        }
    }
};

}  // namespace

fs::path queueRunnerLockPath(const fs::path& storePath) { return fs::path(storePath.string() + ".queue-runner.lock"); }

int64_t queueRunnerPid(const fs::path& storePath) {
    const fs::path lock = queueRunnerLockPath(storePath);
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    int64_t pid = 0;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {  // held: a runner is there
        char buf[32] = {};
        const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
        pid = n > 0 ? std::atoll(buf) : -1;
        if (pid == 0) pid = -1;
    }
    ::close(fd);
    return pid;
}

// The runner holds the lock while it works. Leaving (the queue empty) it lets go of the lock, then looks once more:
// an entry added after its last look, whose adder found the lock held and so started no runner (or started one
// that found the lock held), is taken by this runner again unless another holds the lock by then.
int runQueue(const QueueRunnerOptions& options, const std::atomic<bool>& stop) {
    RunStore store(options.storePath.empty() ? RunStore::defaultPath() : options.storePath);
    const fs::path lockPath = queueRunnerLockPath(store.path());
    for (bool first = true;; first = false) {
        const int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) throw IoError(lockPath.string() + ": cannot open the queue runner's lock file");
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            char buf[32] = {};
            const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
            ::close(fd);
            if (options.log)
                options.log("another queue runner" + (n > 0 ? " (pid " + std::string(buf) + ")" : std::string()) +
                            " runs the queue of " + store.path().string());
            return first ? 1 : 0;
        }
        const std::string pid = std::to_string(::getpid());
        if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
            // the lock holds whatever its content; only `queueRunnerPid` reads the number
        }
        int rc = 0;
        {
            struct Unlock {
                int fd;
                ~Unlock() { ::close(fd); }  // closing releases the lock
            } unlock{fd};
            Runner runner(options, store);
            rc = runner.run(stop);
        }
        if (stop.load() || !options.untilEmpty) return rc;
        bool waiting = false;
        for (const QueueEntry& e : RunQueue(store).list()) waiting = waiting || e.status == QueueStatus::Waiting;
        if (!waiting) return rc;
        if (options.log) options.log("an entry came in as the runner was leaving: taking it");
    }
}

}  // namespace fts
