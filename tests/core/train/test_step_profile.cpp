// deepspeed.wall_clock_breakdown (forward / backward / step times as metrics) and training.profile (the Kineto
// profile of a window of steps, written under the output folder): both on the CPU here; the gpu-labelled device
// script runs them on CUDA (tests/gpu/run_on_device.sh).
#include "core/train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>

#include "core/util/atomic_file.h"

#include "tests/support/capturing_sink.h"
#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kQuickstart = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";

using fts::test::CapturingSink;

fts::ConfigParseResult parse(const fs::path& outDir, const json& patch) {
    json cfg = json::parse(fts::readFile(kQuickstart / "quickstart.json"));
    cfg["training"]["output_dir"] = outDir.string();
    cfg["training"]["eval_interval"] = 0;
    cfg["training"]["eval_batches"] = 1;
    cfg.merge_patch(patch);
    return fts::parseTrainConfig(cfg, kQuickstart, 1);
}

fts::TrainConfig makeConfig(const fs::path& outDir, const json& patch) {
    auto r = parse(outDir, patch);
    if (!r.ok()) throw std::runtime_error(r.errorText());
    return *r.config;
}

bool hasIssue(const fts::ConfigParseResult& r, const std::string& key, bool error) {
    for (const auto& i : r.issues)
        if (i.keyPath == key && i.isError == error) return true;
    return false;
}

}  // namespace

class TestStepProfile : public QObject {
    Q_OBJECT
private slots:
    void wallClockBreakdownPublishesSectionTimes() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const json patch = {{"training", {{"max_steps", 4}, {"log_interval", 2}}},
                            {"deepspeed",
                             {{"wall_clock_breakdown", true},
                              {"train_micro_batch_size_per_gpu", 2},
                              {"gradient_accumulation_steps", 2}}}};
        CapturingSink sink;
        std::atomic<bool> stop{false};
        QVERIFY(fts::runTraining(makeConfig(dir / "a", patch), {}, sink, stop) == fts::TrainOutcome::Completed);
        std::vector<int64_t> timedSteps;
        std::map<int64_t, double> sectionsMs, elapsedS;
        for (const auto& [step, values] : sink.metrics()) {
            if (values.contains("elapsed_s")) elapsedS[step] = values["elapsed_s"].get<double>();
            if (!values.contains("time_forward_ms")) continue;
            timedSteps.push_back(step);
            for (const char* k : {"time_forward_ms", "time_backward_ms", "time_step_ms"}) {
                QVERIFY2(values.contains(k), k);
                const double ms = values[k].get<double>();
                QVERIFY2(std::isfinite(ms) && ms > 0.0, k);
                sectionsMs[step] += ms;
            }
        }
        QCOMPARE(timedSteps, (std::vector<int64_t>{2, 4}));
        // Steps 3 and 4: the sections (ms per step, averaged over the two) are most of the wall time between the
        // logs at steps 2 and 4, and never more.
        const double wallMs = 1000.0 * (elapsedS.at(4) - elapsedS.at(2));
        QVERIFY2(2.0 * sectionsMs[4] <= wallMs && 2.0 * sectionsMs[4] >= 0.5 * wallMs,
                 qPrintable(QString("sections %1 ms/step, wall %2 ms for two steps").arg(sectionsMs[4]).arg(wallMs)));

        CapturingSink plain;  // off by default: no section metrics
        QVERIFY(fts::runTraining(makeConfig(dir / "b", {{"training", {{"max_steps", 2}}}}), {}, plain, stop) ==
                fts::TrainOutcome::Completed);
        for (const auto& [step, values] : plain.metrics()) QVERIFY(!values.contains("time_forward_ms"));
    }

    void profileWritesTheWindowsFigures() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const json patch = {{"training", {{"max_steps", 5}, {"profile", {{"wait", 1}, {"active", 2}}}}},
                            {"deepspeed", {{"gradient_accumulation_steps", 2}}}};
        CapturingSink sink;
        std::atomic<bool> stop{false};
        QVERIFY(fts::runTraining(makeConfig(dir / "p", patch), {}, sink, stop) == fts::TrainOutcome::Completed);
        const fs::path folder = dir / "p" / "profile";
        const json summary = json::parse(fts::readFile(folder / "summary.json"));
        QCOMPARE(summary.at("steps").get<int64_t>(), int64_t(2));
        QCOMPARE(summary.at("first_step").get<int64_t>(), int64_t(2));
        QVERIFY(summary.at("wall_ms_per_step").get<double>() > 0.0);
        // two micro-batches a step, each loss read on the host once (the logged loss), plus the step's own reads
        QVERIFY(summary.at("host_reads_per_step").get<double>() >= 2.0);
        // the quick-start model (GPT-2): per micro-batch two layer norms a layer and the final one, forward and
        // backward, counted per step
        const int64_t layers = json::parse(fts::readFile(kQuickstart / "model" / "config.json")).at("n_layer");
        double norms = 0.0, normBackwards = 0.0;
        for (const auto& op : summary.at("operators")) {
            if (op.at("name") == "aten::native_layer_norm") norms = op.at("calls_per_step").get<double>();
            if (op.at("name") == "aten::native_layer_norm_backward")
                normBackwards = op.at("calls_per_step").get<double>();
        }
        QCOMPARE(norms, double(2 * (2 * layers + 1)));
        QCOMPARE(normBackwards, double(2 * (2 * layers + 1)));
        QVERIFY(summary.at("operators_per_step").get<double>() > norms);
        QCOMPARE(summary.at("kernels").size(), size_t(0));  // no GPU here
        // the trace holds the sections the loop names
        const std::string trace = fts::readFile(folder / "trace.json");
        QVERIFY(json::accept(trace));
        QVERIFY(trace.find("fts::forward") != std::string::npos);
        QVERIFY(trace.find("fts::backward") != std::string::npos);
        QVERIFY(trace.find("fts::optimizer_step") != std::string::npos);
        QVERIFY(fs::exists(folder / "summary.txt"));
        bool logged = false;
        for (const auto& line : sink.logs()) logged = logged || line.find("profile of steps 2..3 written") == 0;
        QVERIFY(logged);
    }

    void profileBeyondTheRunIsReported() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        CapturingSink sink;
        std::atomic<bool> stop{false};
        const json patch = {{"training", {{"max_steps", 2}, {"profile", true}}}};
        QVERIFY(fts::runTraining(makeConfig(dir / "q", patch), {}, sink, stop) == fts::TrainOutcome::Completed);
        QVERIFY(!fs::exists(dir / "q" / "profile"));
        bool logged = false;
        for (const auto& line : sink.logs())
            logged = logged || line.find("no profile was written") != std::string::npos;
        QVERIFY(logged);
    }

    void profileSettingsAreChecked() {
        const fs::path out = "/nonexistent-out";
        QVERIFY(hasIssue(parse(out, {{"training", {{"profile", "yes"}}}}), "training.profile", true));
        QVERIFY(hasIssue(parse(out, {{"training", {{"profile", {{"active", 0}}}}}}), "training.profile.active", true));
        QVERIFY(hasIssue(parse(out, {{"training", {{"profile", {{"wait", -1}}}}}}), "training.profile.wait", true));
        QVERIFY(hasIssue(parse(out, {{"training", {{"profile", {{"warmup", 1}}}}}}), "training.profile.warmup", false));
        QVERIFY(hasIssue(parse(out, {{"deepspeed", {{"wall_clock_breakdown", "on"}}}}),
                         "deepspeed.wall_clock_breakdown", true));
        auto ok =
            parse(out, {{"training", {{"profile", {{"wait", 3}}}}}, {"deepspeed", {{"wall_clock_breakdown", true}}}});
        QVERIFY2(ok.ok(), ok.errorText().c_str());
        QVERIFY(ok.config->training.profile.enabled);
        QCOMPARE(ok.config->training.profile.wait, int64_t(3));
        QCOMPARE(ok.config->training.profile.active, int64_t(3));
        QVERIFY(ok.config->deepspeed.wallClockBreakdown);
        QVERIFY(!hasIssue(ok, "deepspeed.wall_clock_breakdown", false));  // used now, not "not used yet"
    }
};

QTEST_APPLESS_MAIN(TestStepProfile)
#include "test_step_profile.moc"
