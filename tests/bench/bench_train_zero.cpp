// Benchmark (label bench; prints figures, asserts nothing) of the ZeRO engine on CPU over Gloo, quick-start model:
// (1) tokens/s of 2 ranks at stage 2 and 3 against 1 rank at stage 0 on the same global batch (16 x 128 tokens), and
//     with optimizer offload (cpu, nvme; DeepSpeed: ZeRO-Offload with DeepSpeedCPUAdam) against the same stage without,
//     fts and DeepSpeed 0.19.8 (CPU, gloo; tests/data/zero/ds_zero_reference.py) on the same model, data and
//     `deepspeed` section, one intra-op thread per rank on both sides (the script sets OMP_NUM_THREADS=1 for
//     DeepSpeed; this benchmark sets it for fts); rounds interleaved, the load average printed with each figure;
// (2) per-rank peak memory (VmHWM) at stages 0-3 on N = 1, 2, 4 ranks next to the engine's own model-state
//     accounting, the closed-form model states and `fts estimate`, for the quick-start model and a wider GPT-2
//     whose model states dominate.
// Environment: FTS_BENCH_STEPS (default 12), FTS_BENCH_ROUNDS (default 2), FTS_BENCH_SKIP_DS=1, FTS_BENCH_SKIP_MEMORY=1,
// FTS_BENCH_SKIP_THROUGHPUT=1, FTS_BENCH_OFFLOAD_ONLY=1 (only the optimizer-offload rows and their stage-2 baseline).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "core/zero/model_state.h"
#include "tests/integration/fts_cli_support.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using fts::testing::CliResult;
using fts::testing::kQuickstart;
using fts::testing::runFts;

const QString kScript = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/zero/ds_zero_reference.py"));
constexpr int kBlocks = 16, kBlockLen = 128, kWarmupSteps = 3;

int envInt(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}
QString q(const fs::path& p) { return QString::fromStdString(p.string()); }
std::string loadAverage() {
    std::string s = fts::readFile("/proc/loadavg");
    return s.substr(0, s.find(' ', s.find(' ', s.find(' ') + 1) + 1));
}
double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// offload: "" (none), "cpu" or "nvme" (offload_optimizer.device; swap files under dir/nvme).
fs::path writeThroughputConfig(const fs::path& dir, int stage, int nproc, int steps, const std::string& offload = {}) {
    const std::string name = "tp-s" + std::to_string(stage) + "-n" + std::to_string(nproc) + offload;
    json cfg = fts::testing::quickstartConfig(dir, name);
    cfg["model"] = {{"path", (dir / "model").string()}, {"init", "pretrained"}};
    cfg["data"]["train"] = (dir / "stories.jsonl").string();
    cfg["data"]["max_length"] = kBlockLen;
    cfg["data"]["eval_fraction"] = 0.0;
    cfg["training"].merge_patch({{"max_steps", steps}, {"eval_interval", 0}, {"save_interval", 0}, {"device", "cpu"}});
    cfg["deepspeed"]["train_micro_batch_size_per_gpu"] = kBlocks / nproc;
    cfg["deepspeed"]["scheduler"]["params"]["total_num_steps"] = steps;
    cfg["deepspeed"]["scheduler"]["type"] = "WarmupDecayLR";
    cfg["deepspeed"]["zero_optimization"] = {{"stage", stage}};
    if (offload == "cpu") cfg["deepspeed"]["zero_optimization"]["offload_optimizer"] = {{"device", "cpu"}};
    if (offload == "nvme") {
        fs::create_directories(dir / "nvme");
        cfg["deepspeed"]["zero_optimization"]["offload_optimizer"] = {{"device", "nvme"},
                                                                      {"nvme_path", (dir / "nvme").string()}};
    }
    const fs::path file = dir / (name + ".json");
    std::ofstream(file) << cfg.dump(2);
    return file;
}

// Median tokens/s of the steps after the warm-up; 0 with the error printed when the run fails.
double ftsTokensPerSecond(const fs::path& cfg, const fs::path& store, int nproc) {
    fs::remove(store);
    CliResult r = runFts({"train", q(cfg), "--store", q(store), "--quiet", "--nproc", QString::number(nproc)});
    if (r.exitCode != 0) {
        std::printf("    fts failed: %s\n", qPrintable(r.err.right(300).trimmed()));
        return 0.0;
    }
    fts::RunStore s(store, true);
    std::vector<double> v = fts::testing::series(s, s.listRuns().at(0).id, "tokens_per_s");
    if (int(v.size()) > kWarmupSteps) v.erase(v.begin(), v.begin() + kWarmupSteps);
    return median(v);
}

// DeepSpeed's median tokens/s per stage (the same steps after the warm-up), or the error it gave.
std::map<int, std::string> dsTokensPerSecond(const fs::path& cfg, const fs::path& dir, int nproc, int steps,
                                             const std::vector<int>& stages) {
    QStringList args{kScript,
                     "run",
                     q(cfg),
                     q(dir / "blocks.json"),
                     q(dir / "ds.json"),
                     QString::number(nproc),
                     QString::number(steps)};
    for (int s : stages) args << QString::number(s);
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QString::fromUtf8(FTS_TEST_PYTHON), args);
    std::map<int, std::string> out;
    if (!p.waitForFinished(1800000) || p.exitCode() != 0) {
        for (int s : stages) out[s] = "failed: " + p.readAll().right(300).toStdString();
        return out;
    }
    const json j = json::parse(fts::readFile(dir / "ds.json"));
    for (int s : stages) {
        const json& r = j.at(std::to_string(s));
        if (!r.contains("step_seconds")) {
            out[s] = r.dump().substr(0, 300);
            continue;
        }
        std::vector<double> tps;
        const auto secs = r.at("step_seconds").get<std::vector<double>>();
        for (size_t i = kWarmupSteps; i < secs.size(); ++i) tps.push_back(double(kBlocks * kBlockLen) / secs[i]);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0f", median(tps));
        out[s] = buf;
    }
    return out;
}

// The fp32 closed form of one rank's model states (docs/estimate.md): parameters 4Ψ (/N at stage 3), gradients 4Ψ
// (/N from stage 2), optimizer 8Ψ at stage 0 (the parameters are the master) else 12Ψ/N, master gradients 4Ψ/N
// from stage 1.
// A size of the model-states table (modelStateTable, core/zero/model_state.h): the last column of row `row`, as
// "12.0 MiB" / "1.25 GiB" / "4.0 KiB" / "12 B"; -1 when the row is missing.
double tableBytes(const std::string& table, const std::string& row) {
    const auto at = table.find("\n  " + row + " ");
    if (at == std::string::npos) return -1;
    const std::string line = table.substr(at + 1, table.find('\n', at + 1) - at - 1);
    const auto unitAt = line.rfind(' ');
    const auto numberAt = line.rfind(' ', unitAt - 1);
    const double v = std::stod(line.substr(numberAt + 1, unitAt - numberAt - 1));
    const std::string unit = line.substr(unitAt + 1);
    return v * (unit == "GiB" ? 1073741824.0 : unit == "MiB" ? 1048576.0 : unit == "KiB" ? 1024.0 : 1.0);
}

double fp32FormulaBytes(int stage, double psi, int n) {
    const double params = stage == 3 ? 4 * psi / n : 4 * psi;
    const double grads = stage >= 2 ? 4 * psi / n : 4 * psi;
    const double optim = stage == 0 ? 8 * psi : 12 * psi / n;
    const double masterGrads = stage == 0 ? 0.0 : 4 * psi / n;
    return params + grads + optim + masterGrads;
}

}  // namespace

class BenchTrainZero : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_dir;

private slots:
    void initTestCase() {
        m_dir = m_tmp.path().toStdString();
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                {kScript, "prepare", q(m_dir), q(kQuickstart / "model"), q(kQuickstart / "sample_stories.jsonl"),
                 QString::number(kBlocks), QString::number(kBlockLen), "quickstart"});
        QVERIFY2(p.waitForFinished(600000) && p.exitCode() == 0, p.readAll().constData());
    }

    void tokensPerSecond() {
        if (envInt("FTS_BENCH_SKIP_THROUGHPUT", 0)) QSKIP("FTS_BENCH_SKIP_THROUGHPUT");
        const int steps = envInt("FTS_BENCH_STEPS", 12), rounds = envInt("FTS_BENCH_ROUNDS", 2);
        qputenv("OMP_NUM_THREADS", "1");  // what the DeepSpeed side runs with: one core per rank on both sides
        struct Row {
            int stage, nproc;
            std::string
                offload;  // offload_optimizer.device ("" = none); DeepSpeed runs ZeRO-Offload with DeepSpeedCPUAdam
        };
        std::vector<Row> rows{{0, 1, ""},    {2, 2, ""},     {3, 2, ""},    {2, 1, ""},
                              {2, 1, "cpu"}, {2, 1, "nvme"}, {2, 2, "cpu"}, {3, 2, "cpu"}};
        if (envInt("FTS_BENCH_OFFLOAD_ONLY", 0))
            rows = {{2, 1, ""}, {2, 1, "cpu"}, {2, 1, "nvme"}, {2, 2, "cpu"}, {3, 2, "cpu"}};
        std::printf(
            "\ntokens/s, quick-start GPT-2 (0.9 M params), fp32, global batch %d x %d tokens, median of steps %d-%d, "
            "OMP_NUM_THREADS=1 per rank on both sides\n",
            kBlocks, kBlockLen, kWarmupSteps + 1, steps);
        for (int round = 1; round <= rounds; ++round) {
            for (const Row& r : rows) {
                const fs::path cfg = writeThroughputConfig(m_dir, r.stage, r.nproc, steps, r.offload);
                const double ours = ftsTokensPerSecond(cfg, m_dir / "tp.sqlite", r.nproc);
                const std::string off = r.offload.empty() ? "" : ", offload " + r.offload;
                std::printf("  round %d  fts        stage %d, %d rank(s)%s: %8.0f tokens/s   (load %s)\n", round,
                            r.stage, r.nproc, off.c_str(), ours, loadAverage().c_str());
                std::fflush(stdout);
                if (envInt("FTS_BENCH_SKIP_DS", 0)) continue;
                const auto ds = dsTokensPerSecond(cfg, m_dir, r.nproc, steps, {r.stage});
                std::printf("  round %d  DeepSpeed  stage %d, %d rank(s)%s: %8s tokens/s   (load %s)\n", round, r.stage,
                            r.nproc, off.c_str(), ds.at(r.stage).c_str(), loadAverage().c_str());
                std::fflush(stdout);
            }
        }
    }

    // Two models: the quick-start recipe as integration_test_estimate_cli runs it (LibTorch's runtime and the
    // activations dominate; every tensor is below the stage-3 persistence threshold), and a wider GPT-2 (25.7 M
    // parameters, micro-batch 2 x 64, random init) whose model states dominate, so that the stages differ.
    // One row per model and stage.
    void peakMemoryPerRank_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("stage");
        for (const char* m : {"quickstart", "wide"})
            for (int stage : {0, 1, 2, 3}) QTest::addRow("%s-stage%d", m, stage) << QString(m) << stage;
    }
    void peakMemoryPerRank() {
        if (envInt("FTS_BENCH_SKIP_MEMORY", 0)) QSKIP("FTS_BENCH_SKIP_MEMORY");
        QFETCH(QString, model);
        QFETCH(int, stage);
        qunsetenv("OMP_NUM_THREADS");  // LibTorch's default threads, as integration_test_estimate_cli runs
        json base = {{"training", {{"max_steps", 3}, {"eval_interval", 0}, {"save_interval", 0}, {"log_interval", 1}}}};
        if (model == "wide") {
            const fs::path dir = m_dir / "wide-model";
            fs::create_directories(dir);
            json c = json::parse(fts::readFile(kQuickstart / "model" / "config.json"));
            c.merge_patch({{"n_embd", 512}, {"n_layer", 8}, {"n_head", 8}});
            std::ofstream(dir / "config.json") << c.dump(2);
            for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
                fs::copy_file(kQuickstart / "model" / f, dir / f, fs::copy_options::overwrite_existing);
            base["model"] = {{"path", dir.string()}, {"init", "random"}};
            base["data"] = {{"max_length", 64}, {"eval_fraction", 0.0}};
            base["deepspeed"] = {{"train_micro_batch_size_per_gpu", 2},
                                 {"scheduler", {{"params", {{"warmup_num_steps", 1}, {"total_num_steps", 3}}}}}};
            if (stage == 0)
                std::printf(
                    "\nper-rank memory, wide GPT-2 (512 x 8 layers, 25.7 M params; fp32, micro-batch 2 x 64, 3 steps); MiB\n");
        } else if (stage == 0) {
            std::printf("\nper-rank memory, quick-start recipe (fp32, micro-batch 16 x 128, 3 steps); MiB\n");
        }
        if (stage == 0)
            std::printf(
                "  stage  N | engine model states  fp32 formula  paper (mixed) | estimate: states  total | measured peak "
                "(min-max over ranks) | estimate / peak\n");
        for (int n : {1, 2, 4}) {
            json patch = base;
            patch["deepspeed"]["zero_optimization"] = {{"stage", stage}};
            const fs::path cfg = fts::testing::writeConfig(m_dir, "mem", patch);
            const fs::path store = m_dir / "mem.sqlite";
            fs::remove(store);
            CliResult train = runFts({"train", q(cfg), "--store", q(store), "--quiet", "--nproc", QString::number(n)});
            if (train.exitCode != 0) {
                std::printf("  %5d %2d | not run: %s\n", stage, n, qPrintable(train.err.right(160).trimmed()));
                continue;
            }
            CliResult est = runFts({"estimate", q(cfg), "--json", "--nproc", QString::number(n)});
            const json e = json::parse(est.out.toStdString());
            const json& b = e.at("per_rank");
            const double psi = e.at("model").at("trainable_parameters").get<double>();
            const double estStates = b.at("parameters").get<double>() + b.at("gradients").get<double>() +
                                     b.at("optimizer_states").get<double>() + b.at("master_gradients").get<double>();
            fts::RunStore s(store, true);
            const int64_t run = s.listRuns().at(0).id;
            std::vector<int64_t> peak(size_t(n), 0);
            for (const auto& d : s.deviceSamples(run))
                if (d.rank >= 0 && d.rank < n) peak[size_t(d.rank)] = std::max(peak[size_t(d.rank)], d.peak);
            double engine = -1;  // rank 0's own accounting, from its start log line
            for (const auto& l : s.logsAfterId(run, 0)) {
                if (l.rank == 0 && l.message.find("model states") != std::string::npos)
                    engine = tableBytes(l.message, "on device") - std::max(0.0, tableBytes(l.message, "buckets"));
            }
            const double mib = 1048576.0, total = b.at("total").get<double>();
            const double lo = double(*std::min_element(peak.begin(), peak.end()));
            const double hi = double(*std::max_element(peak.begin(), peak.end()));
            std::printf("  %5d %2d | %19.2f  %12.2f  %13.2f | %16.2f  %6.1f | %.1f-%.1f | %.3f-%.3f\n", stage, n,
                        engine / mib, fp32FormulaBytes(stage, psi, n) / mib, fts::zeroPaperBytes(stage, psi, n) / mib,
                        estStates / mib, total / mib, lo / mib, hi / mib, total / hi, total / lo);
            std::fflush(stdout);
        }
        std::printf("  (load %s)\n", loadAverage().c_str());
    }
};

// Qt Test's 5-minute limit per function is too short for the 4-rank runs on a loaded 2-core machine.
int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QTEST_FUNCTION_TIMEOUT")) qputenv("QTEST_FUNCTION_TIMEOUT", "3600000");
    BenchTrainZero bench;
    return QTest::qExec(&bench, argc, argv);
}
#include "bench_train_zero.moc"
