// `fts plan` on the quick-start config on the CPU, with the memory a rank may use set for the test (--capacity):
// the chosen variant fits (by the estimate with its margin, and by its measured peak) and is the fastest of those
// probed; every probe is a completed run in the store; variants over the capacity are never probed; --apply
// rewrites only the keys the plan lists and keeps train_batch_size; a capacity nothing fits says so with the
// smallest estimate; the time box stops the probes.
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include <nlohmann/json.hpp>

#include "core/config/train_config.h"
#include "core/store/run_store.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;
using fts::testing::CliResult;
using fts::testing::runFts;
using fts::testing::writeConfig;

namespace {

// "a.b.c" -> value of every leaf of a document (objects descended, arrays and scalars as leaves).
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
    if (j.is_object() && !j.empty()) {
        for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
        return;
    }
    out[prefix] = j;
}

std::set<std::string> changedLeaves(const json& a, const json& b) {
    std::map<std::string, json> fa, fb;
    flatten(a, "", fa);
    flatten(b, "", fb);
    std::set<std::string> keys;
    for (const auto& [k, v] : fa)
        if (!fb.count(k) || fb[k] != v) keys.insert(k);
    for (const auto& [k, v] : fb)
        if (!fa.count(k)) keys.insert(k);
    return keys;
}

// The quick-start at 64 tokens, micro-batch 8 x 1 (train_batch_size 8): variants from 8 x 1 to 1 x 8.
fs::path planConfig(const fs::path& dir, const std::string& name) {
    return writeConfig(dir, name,
                       {{"data", {{"max_length", 64}}},
                        {"deepspeed", {{"train_micro_batch_size_per_gpu", 8}, {"gradient_accumulation_steps", 1}}}});
}

json planJson(const QStringList& args, int expectedExit = 0) {
    CliResult r = runFts(QStringList{"plan"} + args + QStringList{"--json"});
    if (r.exitCode != expectedExit) qWarning("%s", qPrintable(r.err + r.out));
    if (r.exitCode != expectedExit) return json();
    return json::parse(r.out.toStdString());
}

}  // namespace

class TestPlanCli : public QObject {
    Q_OBJECT
private slots:
    void choiceFitsAndIsTheFastestProbed() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString config = QString::fromStdString(planConfig(dir, "plan").string());
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        // the estimates alone (nothing probed), to set a capacity between the smallest and the largest variant
        const json all = planJson({config, "--capacity", "64GiB", "--probes", "0", "--store", store});
        QVERIFY(!all.is_null());
        std::vector<int64_t> estimates;
        for (const json& c : all.at("candidates"))
            if (!c.contains("invalid")) estimates.push_back(c.at("estimate_bytes").get<int64_t>());
        QVERIFY(estimates.size() >= 8);  // 4 micro-batches x checkpointing x chunked loss
        std::sort(estimates.begin(), estimates.end());
        QVERIFY(estimates.front() < estimates.back());
        const int64_t usable = (estimates.front() + estimates.back()) / 2;  // some fit, some do not
        const int64_t capacity = int64_t(double(usable) / 0.9) + 1;
        const json plan = planJson(
            {config, "--capacity", QString::number(capacity), "--probes", "3", "--steps", "4", "--store", store});
        QVERIFY(!plan.is_null());
        QCOMPARE(plan.at("capacity_bytes").get<int64_t>(), capacity);
        QVERIFY(plan.at("chosen").is_number());
        const json& chosen = plan.at("candidates").at(plan.at("chosen").get<size_t>());
        QVERIFY(chosen.at("fits_by_estimate").get<bool>());
        QVERIFY(chosen.at("estimate_bytes").get<int64_t>() <= usable + 1);
        QVERIFY(chosen.at("probe").at("peak_bytes").get<int64_t>() <= capacity);
        fts::RunStore s(fs::path(store.toStdString()), true);
        int probes = 0, over = 0;
        for (const json& c : plan.at("candidates")) {
            if (c.contains("invalid")) continue;
            if (!c.at("fits_by_estimate").get<bool>()) {
                ++over;
                QVERIFY2(!c.contains("probe"), c.dump().c_str());  // over the capacity: never run
                continue;
            }
            if (!c.contains("probe")) continue;
            ++probes;
            const json& p = c.at("probe");
            QVERIFY2(!p.contains("failure"), p.dump().c_str());
            QVERIFY(p.at("tokens_per_s").get<double>() <= chosen.at("probe").at("tokens_per_s").get<double>());
            const auto run = s.getRun(p.at("run_id").get<int64_t>());
            QVERIFY(run.has_value());
            QCOMPARE(run->status, fts::RunStatus::Completed);
            QCOMPARE(run->lastStep, int64_t(4));
            QVERIFY2(!fs::exists(run->outputDir), run->outputDir.c_str());  // a probe keeps no checkpoint
        }
        QCOMPARE(probes, 3);
        QVERIFY(over > 0);
    }

    void applyRewritesOnlyThePlannedKeys() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const fs::path file = planConfig(dir, "apply");
        const QString config = QString::fromStdString(file.string());
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        // the quick-start's file as its author laid it out (one-line objects, 1e-8), with planConfig's values:
        // --apply keeps that layout
        {
            std::string text = fts::readFile(fts::testing::kQuickstart / "quickstart.json");
            const json want = json::parse(fts::readFile(file));
            const auto swap = [&text](const std::string& from, const std::string& to) {
                const size_t at = text.find(from);
                QVERIFY2(at != std::string::npos, from.c_str());
                text.replace(at, from.size(), to);
            };
            swap("\"path\": \"model\"", "\"path\": " + want["model"]["path"].dump());
            swap("\"sample_stories.jsonl\"", want["data"]["train"].dump());
            swap("\"max_length\": 128", "\"max_length\": 64");
            swap("\"~/.local/share/finetune-studio/outputs/quickstart\"", want["training"]["output_dir"].dump());
            swap("\"train_micro_batch_size_per_gpu\": 16", "\"train_micro_batch_size_per_gpu\": 8");
            fts::writeFileAtomic(file, text);
            QCOMPARE(json::parse(fts::readFile(file)), want);
        }
        const std::string textBefore = fts::readFile(file);
        const json before = json::parse(textBefore);
        const fts::TrainConfig given = fts::loadTrainConfig(file);
        // a capacity micro-batch 8 does not fit: the plan must change the config
        const json all = planJson({config, "--capacity", "64GiB", "--probes", "0", "--store", store});
        int64_t current = 0, smallest = INT64_MAX;
        for (const json& c : all.at("candidates")) {
            if (c.contains("invalid")) continue;
            smallest = std::min(smallest, c.at("estimate_bytes").get<int64_t>());
            if (c.at("train_micro_batch_size_per_gpu") == 8 && !c.at("activation_checkpointing").get<bool>() &&
                c.at("chunked_loss").get<bool>())
                current = c.at("estimate_bytes").get<int64_t>();
        }
        QVERIFY(current > smallest);
        const int64_t capacity = int64_t(double(current - 1) / 0.9);
        CliResult r = runFts({"plan", config, "--capacity", QString::number(capacity), "--probes", "2", "--steps", "3",
                              "--store", store, "--apply", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const json plan = json::parse(r.out.toStdString());
        const json after = json::parse(fts::readFile(file));
        std::set<std::string> planned;
        for (const json& c : plan.at("changes")) planned.insert(c.at("key").get<std::string>());
        QVERIFY(!planned.empty());
        QCOMPARE(changedLeaves(before, after), planned);
        // every line of the file that holds none of the changed keys is still there, in order
        const std::string textAfter = fts::readFile(file);
        size_t at = 0, kept = 0;
        for (const QString& line : QString::fromStdString(textBefore).split('\n')) {
            bool holdsChange = false;
            for (const std::string& key : planned) {
                const std::string leaf = key.substr(key.rfind('.') + 1);
                holdsChange = holdsChange || line.contains(QString::fromStdString("\"" + leaf + "\""));
            }
            if (holdsChange) continue;
            const size_t found = textAfter.find(line.toStdString(), at);
            QVERIFY2(found != std::string::npos, qPrintable("lost or moved: " + line + "\n" + textAfter.c_str()));
            at = found + size_t(line.size());
            ++kept;
        }
        QVERIFY(kept > 5);
        QVERIFY2(textAfter.find("\"bf16\": { \"enabled\": false }") != std::string::npos, textAfter.c_str());
        const fts::TrainConfig applied = fts::loadTrainConfig(file);
        QCOMPARE(applied.deepspeed.trainBatchSize, given.deepspeed.trainBatchSize);
        const json& chosen = plan.at("candidates").at(plan.at("chosen").get<size_t>());
        QCOMPARE(applied.deepspeed.microBatchPerGpu, chosen.at("train_micro_batch_size_per_gpu").get<int64_t>());
        QCOMPARE(applied.deepspeed.gradientAccumulationSteps, chosen.at("gradient_accumulation_steps").get<int64_t>());
        QCOMPARE(applied.model.activationCheckpointing, chosen.at("activation_checkpointing").get<bool>());
        QCOMPARE(applied.model.chunkedLoss, chosen.at("chunked_loss").get<bool>());
        QVERIFY(r.err.contains("wrote"));
    }

    void nothingFitsSaysWhatWould() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString config = QString::fromStdString(planConfig(dir, "small").string());
        CliResult r = runFts(
            {"plan", config, "--capacity", "64MiB", "--store", QString::fromStdString((dir / "runs.sqlite").string())});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("nothing fits: the smallest estimate is"), qPrintable(r.out));
        QVERIFY(!r.out.contains("proposal:"));
        // --json gives the same advice in parts: the first names the smallest variant and what a rank may use
        const json plan = planJson(
            {config, "--capacity", "64MiB", "--store", QString::fromStdString((dir / "runs.sqlite").string())}, 1);
        QVERIFY(!plan.is_null());
        const json& first = plan.at("advice").at(0);
        QCOMPARE(first.at("kind").get<std::string>(), std::string("nothing_fits"));
        int64_t smallest = INT64_MAX;
        for (const json& c : plan.at("candidates"))
            if (!c.contains("invalid")) smallest = std::min(smallest, c.at("estimate_bytes").get<int64_t>());
        QCOMPARE(first.at("bytes").get<int64_t>(), smallest);
        QCOMPARE(plan.at("candidates").at(first.at("candidate").get<size_t>()).at("estimate_bytes").get<int64_t>(),
                 smallest);
        QCOMPARE(first.at("usable_bytes").get<int64_t>(), int64_t(64 * 1024 * 1024 * 0.9));
        for (const json& a : plan.at("advice"))
            QVERIFY(r.out.contains(QString::fromStdString(a.at("text").get<std::string>())));
        QVERIFY(!fs::exists(dir / "runs.sqlite") || fts::RunStore(dir / "runs.sqlite", true).listRuns().empty());
    }

    void timeBoxStopsTheProbes() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString config = QString::fromStdString(planConfig(dir, "box").string());
        const json plan = planJson({config, "--capacity", "64GiB", "--probes", "5", "--max-minutes", "0", "--store",
                                    QString::fromStdString((dir / "runs.sqlite").string())});
        QVERIFY(!plan.is_null());
        int probes = 0;
        for (const json& c : plan.at("candidates")) probes += c.contains("probe") ? 1 : 0;
        QCOMPARE(probes, 1);  // the first always runs; the box stops the next
        QVERIFY(plan.at("time_box_reached").get<bool>());
        QCOMPARE(plan.at("chosen").get<size_t>(), size_t(0));
    }

    void badOptionsAreRefused() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString config = QString::fromStdString(planConfig(dir, "bad").string());
        std::ofstream(dir / "hostfile") << "localhost slots=2\n";
        CliResult r = runFts({"plan", config, "--hostfile", QString::fromStdString((dir / "hostfile").string())});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--capacity"), qPrintable(r.err));
        r = runFts({"plan", config, "--capacity", "lots"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--capacity"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestPlanCli)
#include "test_plan_cli.moc"
