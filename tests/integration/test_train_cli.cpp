// End-to-end tests of `fts train` on the quick-start: the run, its metrics and memory rows land in the
// store; the exported folder reloads to the same eval loss; a resumed run equals an uninterrupted one;
// a stop request checkpoints; bad input fails with a clear message and leaves no run marked running.
// LibTorch before Qt: Qt's `slots` keyword macro would otherwise break LibTorch's headers.
#include "core/model/language_model.h"
#include "core/model/safetensors_torch.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <sys/mount.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/data/text_dataset.h"
#include "core/data/tokenizer.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "core/util/checkpoint_checksums.h"
#include "core/util/checkpoint_dir.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using fts::testing::CliResult;
using fts::testing::kQuickstart;
using fts::testing::runFts;
using fts::testing::series;
using fts::testing::writeConfig;

const json kSmall = {{"training", {{"max_steps", 6}, {"eval_interval", 3}, {"save_interval", 3}, {"eval_batches", 4}}},
                     {"deepspeed", {{"train_micro_batch_size_per_gpu", 4}, {"gradient_accumulation_steps", 2}}}};

}  // namespace

class TestTrainCli : public QObject {
    Q_OBJECT
private slots:
    void endToEndRecordsRunAndExportReloads();
    void resumeEqualsUninterrupted();
    void stopCheckpointsAndResumeCompletes();
    void damagedNewestCheckpointResumesFromThePrevious();
    void commandLineOverridesTheConfig();
    void fullDiskFailsTheRunAndKeepsThePreviousCheckpoint();
    void badInputFailsClearly_data();
    void badInputFailsClearly();
    void versionNamesTheRuntime();
    void doctorSaysWhatToFix();
};

// --output_dir / --max_steps / --seed / --name set over the file for one run (every rank reads them), recorded with
// the run; running the same config again is refused in the same folder and takes a fresh one with --new-output;
// the terminal shows rank 0's model states as a table, not JSON.
void TestTrainCli::commandLineOverridesTheConfig() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const fs::path cfg = writeConfig(dir, "over", kSmall);
    const QString store = QString::fromStdString((dir / "runs.sqlite").string());
    const fs::path out = dir / "elsewhere";
    CliResult a = runFts({"train", QString::fromStdString(cfg.string()), "--store", store, "--output_dir",
                          QString::fromStdString(out.string()), "--max_steps", "2", "--seed", "11", "--name", "first",
                          "--nproc", "2"});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));
    QVERIFY2(a.err.contains("model states of rank 0") && a.err.contains("optimizer") && !a.err.contains("{\""),
             qPrintable(a.err));
    QVERIFY(fs::exists(out / "checkpoints" / fts::checkpointDirName(2)));
    QVERIFY(fs::exists(out / "final" / "model.safetensors"));
    {
        fts::RunStore s(dir / "runs.sqlite", true);
        const fts::RunRecord run = s.listRuns().at(0);
        QCOMPARE(run.name, std::string("first"));
        QCOMPARE(run.outputDir, out.string());
        QCOMPARE(series(s, run.id, "loss").size(), size_t(2));
        const json config = json::parse(run.configJson);
        QCOMPARE(config["training"]["max_steps"].get<int>(), 2);
        QCOMPARE(config["training"]["seed"].get<int>(), 11);
    }
    // The same config into the same folder: refused, naming the way out; --new-output writes beside it.
    CliResult b = runFts({"train", QString::fromStdString(cfg.string()), "--store", store, "--output_dir",
                          QString::fromStdString(out.string()), "--max_steps", "2"});
    QCOMPARE(b.exitCode, 2);
    QVERIFY2(b.err.contains("already holds checkpoints of run 1") && b.err.contains("--new-output"), qPrintable(b.err));
    CliResult c = runFts({"train", QString::fromStdString(cfg.string()), "--store", store, "--output_dir",
                          QString::fromStdString(out.string()), "--max_steps", "1", "--new-output", "--quiet"});
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    const fs::path fresh = dir / "elsewhere-2";
    QVERIFY2(c.err.contains(QString::fromStdString("this run writes to " + fresh.string())), qPrintable(c.err));
    QVERIFY(fs::exists(fresh / "checkpoints" / fts::checkpointDirName(1)));
    QCOMPARE(fts::listCheckpoints(out).size(), size_t(1));  // the first run's folder is untouched
    // --resume continues the run of the folder named on the command line, with its ranks and seed: another rank
    // count or seed is refused by name.
    const QStringList resume{"train",        QString::fromStdString(cfg.string()),
                             "--store",      store,
                             "--output_dir", QString::fromStdString(out.string()),
                             "--max_steps",  "3",
                             "--resume",     "--quiet"};
    CliResult ranks = runFts(resume + QStringList{"--seed", "11"});
    QVERIFY2(ranks.exitCode != 0 && ranks.err.contains("made by 2 ranks; resume it with the same number (now 1)"),
             qPrintable(ranks.err));
    CliResult seed = runFts(resume + QStringList{"--nproc", "2"});
    QVERIFY2(
        seed.exitCode != 0 && seed.err.contains("the same training.seed (the checkpoint's is 11, the config's 42)"),
        qPrintable(seed.err));
    CliResult d = runFts(resume + QStringList{"--nproc", "2", "--seed", "11"});
    QVERIFY2(d.exitCode == 0, qPrintable(d.err));
    QVERIFY(fs::exists(out / "checkpoints" / fts::checkpointDirName(3)));
    CliResult e = runFts({"train", QString::fromStdString(cfg.string()), "--store", store, "--new-output", "--resume"});
    QCOMPARE(e.exitCode, 2);
    QVERIFY2(e.err.contains("--new-output starts a new run"), qPrintable(e.err));
}

void TestTrainCli::endToEndRecordsRunAndExportReloads() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const fs::path cfg = writeConfig(dir, "e2e", kSmall);
    const fs::path storeFile = dir / "runs.sqlite";
    CliResult r =
        runFts({"train", QString::fromStdString(cfg.string()), "--store", QString::fromStdString(storeFile.string())});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));

    fts::RunStore store(storeFile, true);
    auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(1));
    const auto& run = runs[0];
    QCOMPARE(run.status, fts::RunStatus::Completed);
    QCOMPARE(run.totalSteps, int64_t(6));
    QVERIFY(run.configJson.find("\"max_steps\": 6") != std::string::npos);
    auto loss = series(store, run.id, "loss");
    QCOMPARE(loss.size(), size_t(6));
    for (double l : loss) QVERIFY(std::isfinite(l) && l > 0);
    QCOMPARE(series(store, run.id, "lr").size(), size_t(6));
    QCOMPARE(series(store, run.id, "grad_norm").size(), size_t(6));
    QCOMPARE(series(store, run.id, "tokens_per_s").size(), size_t(6));
    auto evalLoss = series(store, run.id, "eval_loss");
    QCOMPARE(evalLoss.size(), size_t(3));  // baseline at step 0, then steps 3 and 6
    QCOMPARE(store.metrics(run.id, "eval_loss").front().step, int64_t(0));
    auto mem = store.deviceSamples(run.id);
    QVERIFY(mem.size() >= 6);
    for (const auto& m : mem) {
        QCOMPARE(m.rank, 0);
        QCOMPARE(QString::fromStdString(m.device), QString("cpu"));
        QVERIFY(m.allocated > 0 && m.peak >= m.allocated && m.capacity > m.peak);
    }
    QVERIFY(!store.logs(run.id).empty());
    json final = json::parse(run.finalMetricsJson);
    QCOMPARE(final.at("steps").get<int64_t>(), int64_t(6));

    // The exported folder loads back (fresh process state, our loader) to the same eval loss.
    const fs::path exportDir = final.at("export_dir").get<std::string>();
    QVERIFY(fs::exists(exportDir / "config.json") && fs::exists(exportDir / "model.safetensors") &&
            fs::exists(exportDir / "tokenizer.json"));
    auto tok = fts::Tokenizer::fromFile(exportDir / "tokenizer.json");
    fts::LmDataOptions o;
    o.trainPath = kQuickstart / "sample_stories.jsonl";
    o.textField = "text";
    o.evalFraction = 0.05;
    o.maxLength = 128;
    o.seed = 42;
    auto data = fts::buildLmData(o, *tok);
    auto model = fts::loadPretrainedModel(exportDir, {});
    model->setTraining(false);
    torch::NoGradGuard ng;
    double sum = 0;
    const int64_t n = std::min<int64_t>(data.eval.numBlocks(), 4 * 4);  // eval_batches 4 x micro 4
    for (int64_t b = 0; b < n; b += 4) {
        auto ids = torch::empty({std::min<int64_t>(4, n - b), 128}, torch::kInt64);
        for (int64_t i = 0; i < ids.size(0); ++i)
            for (int64_t t = 0; t < 128; ++t) ids[i][t] = data.eval.block(b + i)[t];
        sum += model->loss(model->forward(ids, torch::Tensor()), ids).item<double>() * double(ids.size(0));
    }
    const double reloaded = sum / double(n);
    QVERIFY2(std::abs(reloaded - evalLoss.back()) < 1e-5,
             qPrintable(QString("reloaded eval loss %1 vs recorded %2").arg(reloaded).arg(evalLoss.back())));
    // The eval loss fell during training.
    QVERIFY(evalLoss.back() < evalLoss.front());

    // The same config started again (not --resume) is refused before it creates a run: its checkpoints would
    // mix with this run's in the same folder, and its rotation or export would overwrite them.
    const fs::path checkpoints = fs::path(run.outputDir) / "checkpoints";
    // Weights and trainer state are the owner's only (core/util/owner_only.h), whatever the umask.
    QCOMPARE(fs::status(checkpoints).permissions() & fs::perms::all, fs::perms::owner_all);
    std::vector<std::string> before;
    for (const auto& e : fs::directory_iterator(checkpoints)) before.push_back(e.path().filename().string());
    CliResult again =
        runFts({"train", QString::fromStdString(cfg.string()), "--store", QString::fromStdString(storeFile.string())});
    QCOMPARE(again.exitCode, 2);
    QVERIFY2(again.err.contains("training.output_dir") &&
                 again.err.contains("holds checkpoints of run 1 (\"quickstart\")") && again.err.contains("--resume"),
             qPrintable(again.err));
    QCOMPARE(store.listRuns().size(), size_t(1));
    std::vector<std::string> after;
    for (const auto& e : fs::directory_iterator(checkpoints)) after.push_back(e.path().filename().string());
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    QCOMPARE(after, before);
}

void TestTrainCli::resumeEqualsUninterrupted() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    // A model with dropout on, so the resumed run must also restore the random generator exactly.
    const fs::path modelDir = dir / "model";
    fs::create_directories(modelDir);
    json mcfg = json::parse(fts::readFile(kQuickstart / "model" / "config.json"));
    mcfg["attn_pdrop"] = 0.1;
    mcfg["resid_pdrop"] = 0.1;
    mcfg["embd_pdrop"] = 0.1;
    std::ofstream(modelDir / "config.json") << mcfg.dump(2);
    fs::copy_file(kQuickstart / "model" / "tokenizer.json", modelDir / "tokenizer.json");
    fs::copy_file(kQuickstart / "model" / "tokenizer_config.json", modelDir / "tokenizer_config.json");
    const int N = 4;
    json base = kSmall;
    base["model"] = {{"path", modelDir.string()}};
    base["training"]["save_interval"] = N;
    base["training"]["eval_interval"] = 0;
    base["deepspeed"]["scheduler"]["params"]["total_num_steps"] = 2 * N;  // same schedule in both halves

    json straight = base;
    straight["training"]["max_steps"] = 2 * N;
    const fs::path storeFile = dir / "runs.sqlite";
    const QString store = QString::fromStdString(storeFile.string());
    CliResult a =
        runFts({"train", QString::fromStdString(writeConfig(dir, "straight", straight).string()), "--store", store});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));

    json first = base;
    first["training"]["max_steps"] = N;
    CliResult b1 =
        runFts({"train", QString::fromStdString(writeConfig(dir, "split", first).string()), "--store", store});
    QVERIFY2(b1.exitCode == 0, qPrintable(b1.err));
    json second = base;
    second["training"]["max_steps"] = 2 * N;
    CliResult b2 = runFts(
        {"train", QString::fromStdString(writeConfig(dir, "split", second).string()), "--store", store, "--resume"});
    QVERIFY2(b2.exitCode == 0, qPrintable(b2.err));

    fts::RunStore s(storeFile, true);
    auto runs = s.listRuns();
    QCOMPARE(runs.size(), size_t(2));  // the resume continued the split run's row
    int64_t straightId = 0, splitId = 0;
    for (const auto& r : runs) (r.configPath.find("straight") != std::string::npos ? straightId : splitId) = r.id;
    auto la = series(s, straightId, "loss");
    auto lb = series(s, splitId, "loss");
    QCOMPARE(la.size(), size_t(2 * N));
    QCOMPARE(lb.size(), size_t(2 * N));
    for (int i = 0; i < 2 * N; ++i)
        QVERIFY2(la[i] == lb[i],
                 qPrintable(QString("step %1: %2 vs %3").arg(i + 1).arg(la[i], 0, 'g', 17).arg(lb[i], 0, 'g', 17)));

    auto wa = fts::loadSafetensors(dir / "straight-out" / "final" / "model.safetensors");
    auto wb = fts::loadSafetensors(dir / "split-out" / "final" / "model.safetensors");
    QCOMPARE(wa.size(), wb.size());
    QVERIFY(!wa.empty());
    for (const auto& [name, t] : wa) {
        QVERIFY2(wb.count(name) == 1, name.c_str());
        QVERIFY2(torch::equal(t, wb.at(name)), name.c_str());
    }
}

void TestTrainCli::stopCheckpointsAndResumeCompletes() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    json patch = kSmall;
    patch["training"]["max_steps"] = 400;
    patch["training"]["save_interval"] = 0;
    patch["training"]["eval_interval"] = 0;
    const fs::path cfg = writeConfig(dir, "stop", patch);
    const fs::path storeFile = dir / "runs.sqlite";
    QProcess p;
    p.start(QString::fromUtf8(FTS_CLI_PATH), {"train", QString::fromStdString(cfg.string()), "--store",
                                              QString::fromStdString(storeFile.string()), "--quiet"});
    QVERIFY(p.waitForStarted());
    // Wait (polling the store, no fixed sleep) until a few steps are recorded, then ask it to stop.
    auto stepsRecorded = [&]() -> size_t {
        if (!fs::exists(storeFile)) return 0;
        try {
            fts::RunStore s(storeFile, true);
            auto runs = s.listRuns();
            return runs.empty() ? 0 : s.metrics(runs[0].id, "loss").size();
        } catch (const std::exception&) {
            return 0;
        }
    };
    QTRY_VERIFY_WITH_TIMEOUT(stepsRecorded() >= 2, 120000);
    ::kill(pid_t(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    {
        fts::RunStore s(storeFile, true);
        auto run = s.listRuns().at(0);
        QCOMPARE(run.status, fts::RunStatus::Stopped);
        QVERIFY(run.lastStep < 400);
    }
    QVERIFY(fs::exists(dir / "stop-out" / "checkpoints" / "latest"));

    // Resume (same run row) with max_steps just past the stop point, so the test stays short.
    fts::RunStore s0(storeFile, true);
    const int64_t stoppedAt = s0.metrics(s0.listRuns().at(0).id, "loss").back().step;
    patch["training"]["max_steps"] = stoppedAt + 2;
    writeConfig(dir, "stop", patch);
    CliResult r = runFts({"train", QString::fromStdString(cfg.string()), "--store",
                          QString::fromStdString(storeFile.string()), "--resume"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    fts::RunStore s(storeFile, true);
    auto run = s.listRuns().at(0);
    QCOMPARE(s.listRuns().size(), size_t(1));
    QCOMPARE(run.status, fts::RunStatus::Completed);
    auto loss = s.metrics(run.id, "loss");
    QCOMPARE(loss.back().step, stoppedAt + 2);
}

// A byte flipped in the newest checkpoint (as a torn write or a bad disk leaves it): --resume reports it by name and
// continues from the checkpoint before it, ending with exactly the weights of an uninterrupted run; `fts export`
// of the damaged folder is refused naming the file.
void TestTrainCli::damagedNewestCheckpointResumesFromThePrevious() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    json base = kSmall;
    base["training"]["save_interval"] = 2;
    base["training"]["eval_interval"] = 0;
    base["deepspeed"]["scheduler"]["params"]["total_num_steps"] = 8;
    const QString store = QString::fromStdString((dir / "runs.sqlite").string());
    json straight = base;
    straight["training"]["max_steps"] = 8;
    CliResult a =
        runFts({"train", QString::fromStdString(writeConfig(dir, "straight", straight).string()), "--store", store});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));

    json first = base;
    first["training"]["max_steps"] = 6;
    CliResult b1 =
        runFts({"train", QString::fromStdString(writeConfig(dir, "split", first).string()), "--store", store});
    QVERIFY2(b1.exitCode == 0, qPrintable(b1.err));
    const fs::path damaged = dir / "split-out" / "checkpoints" / "step-00000006";
    QVERIFY(fs::exists(damaged / "checksums.json"));
    {  // one byte in the middle of the optimizer state
        std::fstream f(damaged / "optimizer.safetensors", std::ios::in | std::ios::out | std::ios::binary);
        const auto size = fs::file_size(damaged / "optimizer.safetensors");
        f.seekg(std::streamoff(size / 2));
        char c = 0;
        f.read(&c, 1);
        c = char(c ^ 0x10);
        f.seekp(std::streamoff(size / 2));
        f.write(&c, 1);
    }
    CliResult exp = runFts(
        {"export", QString::fromStdString(damaged.string()), "--out", QString::fromStdString((dir / "exp").string())});
    QVERIFY(exp.exitCode != 0);
    QVERIFY2(exp.err.contains("optimizer.safetensors: checksum mismatch"), qPrintable(exp.err));

    json second = base;
    second["training"]["max_steps"] = 8;
    CliResult b2 = runFts(
        {"train", QString::fromStdString(writeConfig(dir, "split", second).string()), "--store", store, "--resume"});
    QVERIFY2(b2.exitCode == 0, qPrintable(b2.out + b2.err));
    // The terminal says so as it happens, naming the file (not only the store).
    QVERIFY2((b2.out + b2.err).contains("warning: ") && (b2.out + b2.err).contains("step-00000006 is damaged") &&
                 (b2.out + b2.err).contains("optimizer.safetensors: checksum mismatch"),
             qPrintable(b2.out + b2.err));
    fts::RunStore s((dir / "runs.sqlite"), true);
    int64_t splitId = 0;
    for (const auto& r : s.listRuns())
        if (r.configPath.find("split") != std::string::npos) splitId = r.id;
    bool reported = false, resumedAt4 = false;
    for (const auto& line : s.logs(splitId, 0)) {
        reported |= line.message.find("step-00000006 is damaged") != std::string::npos &&
                    line.message.find("optimizer.safetensors: checksum mismatch") != std::string::npos;
        resumedAt4 |= line.message.find("step-00000004 at step 4") != std::string::npos;
    }
    QVERIFY(reported);
    QVERIFY(resumedAt4);
    auto wa = fts::loadSafetensors(dir / "straight-out" / "final" / "model.safetensors");
    auto wb = fts::loadSafetensors(dir / "split-out" / "final" / "model.safetensors");
    QCOMPARE(wa.size(), wb.size());
    for (const auto& [name, t] : wa) QVERIFY2(torch::equal(t, wb.at(name)), name.c_str());
}

// The output folder on a 16 MiB tmpfs: the first checkpoint (about 11 MB) fits, the second does not. The run fails
// naming the file and the free space, no temporary folder is left, and the first checkpoint stays whole and is
// still `latest`. Needs root to mount (CI runs as root).
void TestTrainCli::fullDiskFailsTheRunAndKeepsThePreviousCheckpoint() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const fs::path small = dir / "small";
    fs::create_directories(small);
    if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=16m") != 0) QSKIP("needs root to mount a 16 MiB tmpfs");
    struct Unmount {
        fs::path p;
        ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
    } unmount{small};
    json patch = kSmall;
    patch["training"]["max_steps"] = 4;
    patch["training"]["save_interval"] = 1;
    patch["training"]["eval_interval"] = 0;
    patch["training"]["output_dir"] = (small / "out").string();
    const fs::path cfg = writeConfig(dir, "full", patch);
    const CliResult r = runFts({"train", QString::fromStdString(cfg.string()), "--store",
                                QString::fromStdString((dir / "runs.sqlite").string())});
    QCOMPARE(r.exitCode, 1);
    const QString said = r.out + r.err;
    QVERIFY2(said.contains("optimizer.safetensors: the disk is full after writing") &&
                 said.contains("free on " + QString::fromStdString((small / "out" / "checkpoints").string())),
             qPrintable(said));
    fts::RunStore s((dir / "runs.sqlite"), true);
    const auto run = s.listRuns().at(0);
    QCOMPARE(run.status, fts::RunStatus::Failed);
    QVERIFY2(run.failureReason.find("the disk is full") != std::string::npos, run.failureReason.c_str());
    const fs::path latest = fts::latestCheckpoint(small / "out");
    QCOMPARE(latest.filename().string(), std::string("step-00000001"));
    QVERIFY(fts::checkpointDamage(latest).empty());
    for (const auto& e : fs::directory_iterator(small / "out" / "checkpoints"))  // no temporary folder or file left
        QVERIFY2(e.path().filename().string().find("tmp") == std::string::npos, e.path().c_str());
}

void TestTrainCli::badInputFailsClearly_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("expectInError");
    QTest::newRow("missing config") << "missing-config"
                                    << "no-such-config.json";
    QTest::newRow("config not json") << "config-syntax"
                                     << "line";
    QTest::newRow("bad config key") << "config-bad-value"
                                    << "deepspeed.gradient_clipping";
    QTest::newRow("missing model folder") << "missing-model"
                                          << "no-such-model";
    QTest::newRow("corrupt tokenizer") << "bad-tokenizer"
                                       << "tokenizer.json";
    QTest::newRow("corrupt dataset row") << "bad-dataset"
                                         << "bad.jsonl:2";
    QTest::newRow("missing dataset") << "missing-dataset"
                                     << "no-such-data.jsonl";
}

void TestTrainCli::badInputFailsClearly() {
    QFETCH(QString, what);
    QFETCH(QString, expectInError);
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    fs::path cfg;
    json patch = kSmall;
    if (what == "missing-config") {
        cfg = dir / "no-such-config.json";
    } else if (what == "config-syntax") {
        cfg = dir / "syntax.json";
        std::ofstream(cfg) << "{\n  \"model\": {\n    \"path\": \"x\",\n  }\n";
    } else if (what == "config-bad-value") {
        patch["deepspeed"]["gradient_clipping"] = "lots";
        cfg = writeConfig(dir, "bad", patch);
    } else if (what == "missing-model") {
        patch["model"] = {{"path", (dir / "no-such-model").string()}, {"init", "pretrained"}};
        cfg = writeConfig(dir, "bad", patch);
    } else if (what == "bad-tokenizer") {
        fs::create_directories(dir / "m");
        fs::copy_file(kQuickstart / "model" / "config.json", dir / "m" / "config.json");
        std::ofstream(dir / "m" / "tokenizer.json") << "{\"model\": {\"type\": \"BPE\", \"vocab\": ";
        patch["model"] = {{"path", (dir / "m").string()}, {"init", "random"}};  // the tokenizer is the only fault
        cfg = writeConfig(dir, "bad", patch);
    } else if (what == "bad-dataset") {
        std::ofstream(dir / "bad.jsonl") << "{\"text\": \"fine\"}\n{\"text\": oops}\n";
        patch["data"] = {{"train", (dir / "bad.jsonl").string()}};
        cfg = writeConfig(dir, "bad", patch);
    } else if (what == "missing-dataset") {
        patch["data"] = {{"train", (dir / "no-such-data.jsonl").string()}};
        cfg = writeConfig(dir, "bad", patch);
    }
    const fs::path storeFile = dir / "runs.sqlite";
    CliResult r = runFts({"train", QString::fromStdString(cfg.string()), "--store",
                          QString::fromStdString(storeFile.string()), "--quiet"},
                         120000);
    QVERIFY2(r.exitCode != 0 && r.exitCode != -1, qPrintable(r.err));
    QVERIFY2(r.err.contains(expectInError), qPrintable(r.err));
    QVERIFY2(!r.err.contains("Exception raised from"), qPrintable(r.err));  // no C++ backtraces for users
    if (fs::exists(storeFile)) {
        fts::RunStore s(storeFile, true);
        for (const auto& run : s.listRuns()) {
            QCOMPARE(run.status, fts::RunStatus::Failed);
            QVERIFY(!run.failureReason.empty());
        }
    }
}

// fts --version: this build, then the LibTorch it runs with and the CUDA runtime, cuDNN and NCCL it carries, then the
// devices (none here: the line says so).
void TestTrainCli::versionNamesTheRuntime() {
    const CliResult r = runFts({"--version"});
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], QStringLiteral("fts " FTS_VERSION));
    QVERIFY2(lines[1].startsWith("LibTorch 2.") && lines[1].contains("CUDA runtime ") && lines[1].contains("NCCL"),
             qPrintable(lines[1]));
    QVERIFY2(lines[2].startsWith("CUDA devices: "), qPrintable(lines[2]));
}

// fts doctor: on this machine every line is OK / info / warning (no GPU: a warning saying what to do) and the exit
// code is 0; a store that is not a database and a host name that would be an ssh option are errors with a fix, exit 1;
// --json gives one object per line.
void TestTrainCli::doctorSaysWhatToFix() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    CliResult r = runFts({"doctor", "--store", QString::fromStdString((dir / "runs.sqlite").string())});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("INFO     store") && r.out.contains("no store yet") &&
                 (r.out.contains("OK       memory") || r.out.contains("WARNING  memory")) &&
                 r.out.contains("disk (store)") && r.out.contains("OK       runtime       LibTorch"),
             qPrintable(r.out));
    if (!torch::cuda::is_available())
        QVERIFY2(
            r.out.contains("WARNING  gpus          no CUDA device visible") && r.out.contains("-> install the NVIDIA"),
            qPrintable(r.out));
    fts::writeFileAtomic(dir / "broken.sqlite",
                         "not a database at all, just text long enough for SQLite to read a header");
    r = runFts({"doctor", "--store", QString::fromStdString((dir / "broken.sqlite").string()), "--host",
                "-oProxyCommand=x", "--json"});
    QCOMPARE(r.exitCode, 1);
    bool storeError = false, hostError = false;
    for (const QString& line : r.out.trimmed().split('\n')) {
        const json j = json::parse(line.toStdString());
        QVERIFY(j.contains("level") && j.contains("topic") && j.contains("detail") && j.contains("fix"));
        if (j["topic"] == "store")
            storeError = j["level"] == "error" &&
                         j["detail"].get<std::string>().find("not a database") != std::string::npos &&
                         !j["fix"].get<std::string>().empty();
        if (j["topic"] == "host -oProxyCommand=x") hostError = j["level"] == "error";
    }
    QVERIFY2(storeError && hostError, qPrintable(r.out));
}

QTEST_GUILESS_MAIN(TestTrainCli)
#include "test_train_cli.moc"
