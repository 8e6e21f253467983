// `fts queue` on the CPU with the quick-start: three runs on two CPU slots run two at once and then the third; a
// queue runner killed with SIGKILL together with its run (a machine that went down) is picked up by the next
// runner: the interrupted run resumes from its checkpoint as the same run, the finished one is not run again;
// a 2 x 2 grid sweep (and a random one with seeds) expands into runs with the right configs, names and folders; a
// queued run whose data went missing fails alone with the reason and the queue goes on; waiting entries move and
// cancel.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;
using fts::testing::CliResult;
using fts::testing::runFts;
using fts::testing::writeConfig;

namespace {

// A quick-start run on the CPU: 64 tokens, micro-batch 4, `steps` steps, a checkpoint every `save` steps.
fs::path queueConfig(const fs::path& dir, const std::string& name, int steps, int save = 0,
                     const json& extra = json::object()) {
    json patch = {
        {"data", {{"max_length", 64}, {"eval_fraction", 0}}},
        {"training",
         {{"max_steps", steps}, {"eval_interval", 0}, {"save_interval", save}, {"device", "cpu"}, {"run_name", name}}},
        {"deepspeed", {{"train_micro_batch_size_per_gpu", 4}}}};
    patch.merge_patch(extra);
    return writeConfig(dir, name, patch);
}

json queueList(const QString& store) {
    CliResult r = runFts({"queue", "list", "--json", "--store", store});
    if (r.exitCode != 0) return json();
    return json::parse(r.out.toStdString());
}

json entryNamed(const json& list, const std::string& name) {
    for (const json& e : list.at("entries"))
        if (e.at("name") == name) return e;
    return json();
}

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

}  // namespace

class TestQueueCli : public QObject {
    Q_OBJECT
private slots:
    void threeRunsOnTwoSlotsRunTwoThenThird() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        for (const char* name : {"first", "second", "third"}) {
            CliResult r = runFts({"queue", "add", q(queueConfig(dir, name, 40)), "--devices", "cpu", "--store", store});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        }
        CliResult run = runFts({"queue", "run", "--cpu-slots", "2", "--gpus", "none", "--store", store});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const json list = queueList(store);
        const json a = entryNamed(list, "first"), b = entryNamed(list, "second"), c = entryNamed(list, "third");
        for (const json* e : {&a, &b, &c}) QVERIFY2(e->at("status") == "done", e->dump().c_str());
        auto t = [](const json& e, const char* k) { return e.at(k).get<double>(); };
        // the first two at once, the third once one of them had ended
        QVERIFY(t(a, "started_at") < t(b, "ended_at") && t(b, "started_at") < t(a, "ended_at"));
        QVERIFY(t(c, "started_at") >= std::min(t(a, "ended_at"), t(b, "ended_at")));
        fts::RunStore s(fs::path(store.toStdString()), true);
        QCOMPARE(s.listRuns().size(), size_t(3));
        std::set<std::string> outputs;
        for (const fts::RunRecord& r : s.listRuns()) {
            QCOMPARE(r.status, fts::RunStatus::Completed);
            outputs.insert(r.outputDir);
        }
        QCOMPARE(outputs.size(), size_t(3));  // each its own folder
        QVERIFY(run.err.contains("queue is empty"));
    }

    void killedRunnerAndRunResumeFromTheCheckpoint() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        QVERIFY(runFts({"queue", "add", q(queueConfig(dir, "short", 20)), "--store", store}).exitCode == 0);
        QVERIFY(runFts({"queue", "add", q(queueConfig(dir, "long", 1200, 20)), "--store", store}).exitCode == 0);
        QVERIFY(runFts({"queue", "add", q(queueConfig(dir, "last", 20)), "--store", store}).exitCode == 0);
        QProcess runner;
        runner.start(QString::fromUtf8(FTS_CLI_PATH), {"queue", "run", "--gpus", "none", "--store", store});
        QVERIFY(runner.waitForStarted());
        // the long run past its first checkpoint (step 20)
        int64_t longRun = 0;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const json l = queueList(store);
                if (l.is_null()) return false;
                const json e = entryNamed(l, "long");
                if (e.is_null() || e.at("run_id").get<int64_t>() == 0) return false;
                longRun = e.at("run_id").get<int64_t>();
                const auto r = fts::RunStore(fs::path(store.toStdString()), true).getRun(longRun);
                return r && r->lastStep >= 25;
            }(),
            120000);
        QCOMPARE(entryNamed(queueList(store), "short").at("status"), json("done"));
        // the machine goes down: the runner and every process of the run, killed at once
        const json longEntry = entryNamed(queueList(store), "long");
        runner.kill();
        runner.waitForFinished();
        QProcess::execute("pkill",
                          {"-KILL", "-f", QString("queue/entry-%1.json").arg(longEntry.at("id").get<int64_t>())});
        QTRY_VERIFY_WITH_TIMEOUT(
            QProcess::execute("pgrep", {"-f", QString("queue/entry-%1.json").arg(longEntry.at("id").get<int64_t>())}) !=
                0,
            20000);
        QCOMPARE(entryNamed(queueList(store), "long").at("status"), json("running"));  // as the runner left it
        // the next runner picks the queue up
        CliResult again = runFts({"queue", "run", "--gpus", "none", "--store", store});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains("resuming"), qPrintable(again.err));
        const json list = queueList(store);
        for (const char* name : {"short", "long", "last"})
            QVERIFY2(entryNamed(list, name).at("status") == "done", entryNamed(list, name).dump().c_str());
        QCOMPARE(entryNamed(list, "long").at("run_id").get<int64_t>(), longRun);  // the same run, continued
        fts::RunStore s(fs::path(store.toStdString()), true);
        QCOMPARE(s.listRuns().size(), size_t(3));  // nothing ran twice
        const auto run = s.getRun(longRun);
        QCOMPARE(run->status, fts::RunStatus::Completed);
        QCOMPARE(run->lastStep, int64_t(1200));
        bool resumed = false;
        for (const fts::LogLine& l : s.logs(longRun, 0))
            resumed = resumed || (l.message.find("resumed from") != std::string::npos &&
                                  l.message.find("at step 0") == std::string::npos);
        QVERIFY(resumed);
        QVERIFY(!again.err.contains("entry " + QString::number(entryNamed(list, "short").at("id").get<int64_t>()) +
                                    " (short): started"));
    }

    void sweepExpandsIntoItsRuns() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        const fs::path grid = queueConfig(dir, "grid", 10, 0,
                                          {{"sweep",
                                            {{"method", "grid"},
                                             {"description", "clipping and peak"},
                                             {"parameters",
                                              {{"deepspeed.optimizer.params.lr", {{"values", {0.001, 0.003}}}},
                                               {"deepspeed.gradient_clipping", {0.5, 2}}}}}}});
        CliResult r = runFts({"queue", "add", q(grid), "--store", store});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("4 runs queued"));
        // the quick-start's scheduler sets the peak (warmup_max_lr): sweeping the optimizer's lr sets it too, said
        QVERIFY2(r.err.contains("note:") && r.err.contains("sweep: deepspeed.optimizer.params.lr: each run also sets "
                                                           "deepspeed.scheduler.params.warmup_max_lr"),
                 qPrintable(r.err));
        const json list = queueList(store);
        QCOMPARE(list.at("entries").size(), size_t(4));
        std::set<std::pair<double, double>> seen;
        std::set<std::string> outputs;
        std::vector<double> fractions;
        for (const json& e : list.at("entries")) {
            fts::RunStore s(fs::path(store.toStdString()), true);
            const json values = e.at("sweep_values").at("values");
            const double lr = values.at("deepspeed.optimizer.params.lr").get<double>();
            const double clip = values.at("deepspeed.gradient_clipping").get<double>();
            seen.insert({lr, clip});
            QCOMPARE(e.at("sweep").get<std::string>(), std::string("grid sweep"));
            QCOMPARE(e.at("sweep_values").at("description").get<std::string>(), std::string("clipping and peak"));
            const std::string name = e.at("name").get<std::string>();
            QVERIFY2(name.find("lr=") != std::string::npos && name.find("gradient_clipping=") != std::string::npos,
                     name.c_str());
        }
        QCOMPARE(seen, (std::set<std::pair<double, double>>{{0.001, 0.5}, {0.001, 2}, {0.003, 0.5}, {0.003, 2}}));
        // the entries' configs hold those values (what the runs will train with)
        CliResult run = runFts({"queue", "run", "--gpus", "none", "--store", store});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        fts::RunStore s(fs::path(store.toStdString()), true);
        const json ran = queueList(store);
        for (const json& e : ran.at("entries")) {
            const auto rec = s.getRun(e.at("run_id").get<int64_t>());
            QVERIFY(rec.has_value());
            const json cfg = json::parse(rec->resolvedConfigJson);
            const json values = e.at("sweep_values").at("values");
            QCOMPARE(cfg.at("deepspeed").at("optimizer").at("params").at("lr").get<double>(),
                     values.at("deepspeed.optimizer.params.lr").get<double>());
            QCOMPARE(cfg.at("deepspeed").at("scheduler").at("params").at("warmup_max_lr").get<double>(),
                     values.at("deepspeed.optimizer.params.lr").get<double>());
            // and the runs trained with it: the lr each logged is its swept value times the same warm-up fraction
            double peak = 0;
            for (const fts::MetricPoint& m : s.metrics(rec->id, "lr")) peak = std::max(peak, m.value);
            fractions.push_back(peak / values.at("deepspeed.optimizer.params.lr").get<double>());
            QCOMPARE(cfg.at("deepspeed").at("gradient_clipping").get<double>(),
                     values.at("deepspeed.gradient_clipping").get<double>());
            outputs.insert(rec->outputDir);
        }
        QCOMPARE(outputs.size(), size_t(4));
        QVERIFY(fractions.front() > 0);
        for (double f : fractions) QVERIFY2(std::abs(f - fractions.front()) < 1e-9, qPrintable(QString::number(f)));

        // random: 3 draws x 2 seeds, within their ranges
        const fs::path random =
            queueConfig(dir, "random", 10, 0,
                        {{"sweep",
                          {{"method", "random"},
                           {"count", 3},
                           {"seeds", {1, 2}},
                           {"parameters",
                            {{"deepspeed.optimizer.params.lr",
                              {{"min", 1e-4}, {"max", 1e-2}, {"distribution", "log_uniform_values"}}},
                             {"deepspeed.train_micro_batch_size_per_gpu", {{"values", {2, 4}}}}}}}}});
        r = runFts({"queue", "add", q(random), "--store", store});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        int n = 0;
        std::set<int64_t> seeds;
        const json drawn = queueList(store);
        for (const json& e : drawn.at("entries")) {
            if (e.at("sweep") != "random sweep") continue;
            ++n;
            const json v = e.at("sweep_values").at("values");
            const double lr = v.at("deepspeed.optimizer.params.lr").get<double>();
            QVERIFY(lr >= 1e-4 && lr <= 1e-2);
            const int64_t mb = v.at("deepspeed.train_micro_batch_size_per_gpu").get<int64_t>();
            QVERIFY(mb == 2 || mb == 4);
            seeds.insert(v.at("training.seed").get<int64_t>());
        }
        QCOMPARE(n, 6);
        QCOMPARE(seeds, (std::set<int64_t>{1, 2}));

        // a key the config does not read, and a config with a sweep given to fts train
        const fs::path bad =
            queueConfig(dir, "bad", 10, 0, {{"sweep", {{"parameters", {{"deepspeed.optimizer.params.lrr", {1, 2}}}}}}});
        r = runFts({"queue", "add", q(bad), "--store", store});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("sweep.parameters.deepspeed.optimizer.params.lrr"), qPrintable(r.err));
        r = runFts({"train", q(grid), "--store", store});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.contains("fts queue add") || r.err.contains("fts queue add"), qPrintable(r.out + r.err));
    }

    // A swept key the config overrides (the optimizer's lr beside a swept warmup_max_lr) is refused by
    // `fts queue add`, naming it; the same sweep queued twice is two
    // submissions (its runs numbered apart), and a plain config queued where a run of its name exists is named by
    // what differs ("q lr=0.002"), or numbered when nothing does.
    void queueAddRefusesIgnoredKeysAndNamesApart() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        const fs::path ignored = queueConfig(dir, "ignored", 4, 0,
                                             {{"sweep",
                                               {{"parameters",
                                                 {{"deepspeed.optimizer.params.lr", {0.001, 0.003}},
                                                  {"deepspeed.scheduler.params.warmup_max_lr", {0.002}}}}}}});
        CliResult r = runFts({"queue", "add", q(ignored), "--store", store});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("sweep.parameters.deepspeed.optimizer.params.lr") && r.err.contains("train alike"),
                 qPrintable(r.err));
        QVERIFY(queueList(store).at("entries").empty());

        const fs::path sweep =
            queueConfig(dir, "twice", 4, 0, {{"sweep", {{"parameters", {{"deepspeed.gradient_clipping", {0.5, 2}}}}}}});
        QCOMPARE(runFts({"queue", "add", q(sweep), "--store", store}).exitCode, 0);
        QCOMPARE(runFts({"queue", "add", q(sweep), "--store", store}).exitCode, 0);
        std::map<int64_t, std::set<std::string>> submissions;
        const json twice = queueList(store);
        for (const json& e : twice.at("entries"))
            submissions[e.at("submission").get<int64_t>()].insert(e.at("name").get<std::string>());
        QCOMPARE(submissions.size(), size_t(2));
        std::set<std::string> names;
        for (const auto& [id, members] : submissions) {
            QCOMPARE(members.size(), size_t(2));
            names.insert(members.begin(), members.end());
        }
        QCOMPARE(names.size(), size_t(4));
        QVERIFY(names.count("twice gradient_clipping=0.5") && names.count("twice gradient_clipping=0.5 #2"));

        const fs::path plain = queueConfig(dir, "q", 4);
        QCOMPARE(runFts({"queue", "add", q(plain), "--store", store}).exitCode, 0);
        const fs::path faster = queueConfig(dir, "q", 4, 0,
                                            {{"deepspeed",
                                              {{"optimizer", {{"params", {{"lr", 0.002}}}}},
                                               {"scheduler", {{"params", {{"warmup_max_lr", 0.002}}}}}}}});
        r = runFts({"queue", "add", q(faster), "--store", store});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("\tq lr=0.002 warmup_max_lr=0.002\n"), qPrintable(r.out));
        r = runFts({"queue", "add", q(queueConfig(dir, "q", 4)), "--store", store});  // the first config again
        QVERIFY2(r.out.contains("\tq #2\n"), qPrintable(r.out));
    }

    // W&B's metric.target: once a run of the sweep reaches it, the sweep's runs not yet started are cancelled with
    // the reason; a sweep whose target no run reaches runs every run.
    void sweepStopsAtItsTarget() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        const auto sweep = [&](const std::string& name, double target) {
            return queueConfig(dir, name, 6, 0,
                               {{"sweep",
                                 {{"method", "grid"},
                                  {"name", name},
                                  {"metric", {{"name", "loss"}, {"goal", "minimize"}, {"target", target}}},
                                  {"parameters", {{"training.seed", {1, 2, 3}}}}}}});
        };
        QVERIFY(runFts({"queue", "add", q(sweep("reached", 1e9)), "--store", store}).exitCode == 0);
        QVERIFY(runFts({"queue", "add", q(sweep("unreached", -1)), "--store", store}).exitCode == 0);
        CliResult run = runFts({"queue", "run", "--cpu-slots", "1", "--gpus", "none", "--store", store});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const json list = queueList(store);
        std::map<std::string, std::vector<std::string>> states;
        for (const json& e : list.at("entries")) {
            states[e.at("sweep").get<std::string>()].push_back(e.at("status").get<std::string>());
            if (e.at("sweep") == "reached" && e.at("status") == "cancelled")
                QVERIFY2(e.at("reason").get<std::string>().rfind(
                             "the sweep's target was reached by reached seed=1 (loss ", 0) == 0,
                         e.at("reason").get<std::string>().c_str());
        }
        std::sort(states["reached"].begin(), states["reached"].end());
        QCOMPARE(states["reached"], (std::vector<std::string>{"cancelled", "cancelled", "done"}));
        QCOMPARE(states["unreached"], (std::vector<std::string>{"done", "done", "done"}));
        QVERIFY2(run.err.contains("the sweep's waiting runs are cancelled") ||
                     run.out.contains("the sweep's waiting runs are cancelled"),
                 qPrintable(run.err));
    }

    // A hostfile entry (this machine as its one host, two slots, with DeepSpeed's include) runs its ranks through the
    // hostfile launch and holds this machine's CPU slot: a CPU entry behind it waits for it.
    void hostfileEntriesHoldTheirHosts() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        std::ofstream(dir / "hostfile") << "localhost slots=2\n";
        const QString devices = "hostfile:" + q(dir / "hostfile") + ";include=localhost:0,1";
        CliResult r = runFts({"queue", "add", q(queueConfig(dir, "two", 12)), "--devices", devices, "--store", store});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(
            runFts({"queue", "add", q(queueConfig(dir, "one", 12)), "--devices", "cpu", "--store", store}).exitCode ==
            0);
        CliResult run = runFts({"queue", "run", "--gpus", "none", "--cpu-slots", "1", "--store", store});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const json list = queueList(store);
        const json two = entryNamed(list, "two"), one = entryNamed(list, "one");
        QVERIFY2(two.at("status") == "done", two.dump().c_str());
        QVERIFY2(one.at("status") == "done", one.dump().c_str());
        QVERIFY(one.at("started_at").get<double>() >= two.at("ended_at").get<double>());  // it waited for the slot
        fts::RunStore s(fs::path(store.toStdString()), true);
        QCOMPARE(s.getRun(two.at("run_id").get<int64_t>())->worldSize, 2);
        CliResult bad = runFts({"queue", "add", q(queueConfig(dir, "bad", 12)), "--devices",
                                "hostfile:" + q(dir / "hostfile") + ";include=elsewhere:0", "--store", store});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("elsewhere"), qPrintable(bad.err));
    }

    void invalidQueuedConfigFailsAlone() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        fs::copy_file(fts::testing::kQuickstart / "sample_stories.jsonl", dir / "data.jsonl");
        QVERIFY(runFts({"queue", "add", q(queueConfig(dir, "a", 10)), "--store", store}).exitCode == 0);
        QVERIFY(runFts({"queue", "add",
                        q(queueConfig(dir, "b", 10, 0, {{"data", {{"train", (dir / "data.jsonl").string()}}}})),
                        "--store", store})
                    .exitCode == 0);
        QVERIFY(runFts({"queue", "add", q(queueConfig(dir, "c", 10)), "--store", store}).exitCode == 0);
        fs::remove(dir / "data.jsonl");  // b's data went away while it waited
        CliResult run = runFts({"queue", "run", "--gpus", "none", "--store", store});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const json list = queueList(store);
        QCOMPARE(entryNamed(list, "a").at("status"), json("done"));
        QCOMPARE(entryNamed(list, "c").at("status"), json("done"));
        const json b = entryNamed(list, "b");
        QCOMPARE(b.at("status"), json("failed"));
        QVERIFY2(b.at("reason").get<std::string>().find("data.jsonl") != std::string::npos, b.dump().c_str());
    }

    void waitingEntriesMoveAndCancel() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = q(dir / "runs.sqlite");
        for (const char* name : {"x", "y", "z"})
            QVERIFY(runFts({"queue", "add", q(queueConfig(dir, name, 10)), "--store", store}).exitCode == 0);
        const int64_t z = entryNamed(queueList(store), "z").at("id").get<int64_t>();
        QVERIFY(runFts({"queue", "move", QString::number(z), "1", "--store", store}).exitCode == 0);
        std::vector<std::string> order;
        const json moved = queueList(store);
        for (const json& e : moved.at("entries")) order.push_back(e.at("name").get<std::string>());
        QCOMPARE(order, (std::vector<std::string>{"z", "x", "y"}));
        const int64_t x = entryNamed(queueList(store), "x").at("id").get<int64_t>();
        QVERIFY(runFts({"queue", "remove", QString::number(x), "--store", store}).exitCode == 0);
        QCOMPARE(entryNamed(queueList(store), "x").at("status"), json("cancelled"));
        QVERIFY(runFts({"queue", "remove", QString::number(x), "--store", store}).exitCode == 0);  // now deleted
        QVERIFY(entryNamed(queueList(store), "x").is_null());
        CliResult bad =
            runFts({"queue", "add", q(queueConfig(dir, "w", 10)), "--devices", "gpus:zero", "--store", store});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--devices"), qPrintable(bad.err));
        // a request the runner can never meet fails instead of waiting forever
        QVERIFY(
            runFts({"queue", "add", q(queueConfig(dir, "v", 10)), "--devices", "cpu:3", "--store", store}).exitCode ==
            0);
        QVERIFY(runFts({"queue", "remove", QString::number(z),
                        QString::number(entryNamed(queueList(store), "y").at("id").get<int64_t>()), "--store", store})
                    .exitCode == 0);
        CliResult run = runFts({"queue", "run", "--gpus", "none", "--cpu-slots", "2", "--store", store});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const json v = entryNamed(queueList(store), "v");
        QCOMPARE(v.at("status"), json("failed"));
        QVERIFY2(v.at("reason").get<std::string>().find("needs 3 CPU slots") != std::string::npos, v.dump().c_str());
    }
};

QTEST_GUILESS_MAIN(TestQueueCli)
#include "test_queue_cli.moc"
