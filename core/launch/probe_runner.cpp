// A probe run: a variant's config written in a scratch folder, a few steps through the supervisor, its figures
// read back from the store.
#include "core/launch/probe_runner.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/launch/supervisor.h"
#include "core/store/run_store.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

double medianOf(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The last non-empty line the supervisor wrote (its error, when it refused to start).
std::string lastNonEmptyLine(const std::string& text) {
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

}  // namespace

void measureProbeRun(const RunStore& store, ProbeMeasurement& m) {
    const auto tps = store.metrics(m.runId, "tokens_per_s"), seen = store.metrics(m.runId, "tokens_seen");
    std::vector<double> rates, stepRates;
    for (size_t i = 1; i < tps.size(); ++i) {
        rates.push_back(tps[i].value);
        if (i < seen.size() && seen[i].step == tps[i].step && seen[i - 1].step == tps[i].step - 1) {
            const double tokens = seen[i].value - seen[i - 1].value;
            if (tokens > 0) stepRates.push_back(tps[i].value / tokens);
        }
    }
    m.tokensPerS = medianOf(rates);
    m.stepsPerS = medianOf(stepRates);
    for (const DeviceSample& s : store.deviceSamples(m.runId)) m.peak = std::max(m.peak, s.peak);
}

ProbeMeasurement runProbe(nlohmann::json config, const std::string& tag, const std::string& runName,
                          const ProbeOptions& o) {
    const auto t0 = std::chrono::steady_clock::now();
    ProbeMeasurement m;
    const fs::path output = o.scratch / tag, file = o.scratch / (tag + ".json");
    nlohmann::json& training = config["training"];
    training["max_steps"] = o.steps;
    training["eval_interval"] = 0;
    training["eval_batches"] = 1;
    training["save_interval"] = 0;
    training["log_interval"] = 1;
    training["keep_checkpoints"] = 1;
    training["output_dir"] = output.string();
    training["run_name"] = runName;
    training.erase("sample_prompts");  // a probe measures training, not generation
    std::ofstream(file) << config.dump(2);

    SupervisorOptions so;
    so.configPath = file;
    so.storePath = o.storePath;
    so.nproc = o.nproc;
    so.numGpus = o.numGpus;
    so.include = o.include;
    so.hostfile = o.hostfile;
    so.progress = false;
    so.workerExecutable = o.workerExecutable;
    so.hostStore = o.hostStore;
    std::ostringstream log;
    const int rc = superviseTraining(so, log);
    RunStore store(o.storePath.empty() ? RunStore::defaultPath() : o.storePath, true);
    for (const RunRecord& r : store.listRuns(50))
        if (r.configPath == file.string() || fs::path(r.configPath) == file) {
            m.runId = r.id;
            if (r.status != RunStatus::Completed)
                m.failure = r.failureReason.empty() ? toString(r.status) : r.failureReason;
            break;
        }
    if (m.runId == 0) {
        std::string why = lastNonEmptyLine(log.str());
        if (why.rfind("error: ", 0) == 0) why = why.substr(7);
        m.failure = rc == 0 ? "no run recorded" : why;
    }
    if (m.failure.empty()) measureProbeRun(store, m);
    std::error_code ec;
    fs::remove_all(output, ec);  // checkpoints and export of a probe are not kept
    fs::remove(file, ec);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return m;
}

}  // namespace fts
