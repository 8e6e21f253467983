// End-to-end instruction fine-tuning through the real `fts train` (tests/data/sft: tiny random GPT-2 / Llama,
// the quick-start BPE plus ChatML specials): Alpaca and messages data, packed and padded, complete with the
// loss falling and the metrics in the store; a resumed packed run equals the uninterrupted one exactly; bad
// rows are reported with their line numbers and skipped or stop the run, as data.on_bad_row says; a token cache
// on a full disk fails the run naming the folder and its free space.
// LibTorch before Qt: Qt's `slots` keyword macro would otherwise break LibTorch's headers.
#include "core/model/safetensors_torch.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/mount.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using fts::testing::CliResult;
using fts::testing::runFts;

const fs::path kSft = fs::path(FTS_TEST_DATA_DIR) / "sft";

fs::path writeConfig(const fs::path& dir, const std::string& name, const json& patch) {
    json cfg = {{"model", {{"path", (kSft / "gpt2").string()}, {"init", "random"}}},
                {"data",
                 {{"train", (kSft / "alpaca.jsonl").string()},
                  {"format", "auto"},
                  {"max_length", 128},
                  {"eval_fraction", 0.1},
                  {"cache_dir", (dir / "token_cache").string()}}},
                {"training",
                 {{"max_steps", 16},
                  {"eval_interval", 8},
                  {"save_interval", 0},
                  {"output_dir", (dir / (name + "-out")).string()},
                  {"device", "cpu"}}},
                {"deepspeed",
                 {{"train_micro_batch_size_per_gpu", 4},
                  {"gradient_accumulation_steps", 2},
                  {"optimizer", {{"type", "AdamW"}, {"params", {{"lr", 0.005}, {"weight_decay", 0.0}}}}},
                  {"scheduler",
                   {{"type", "WarmupLR"},
                    {"params", {{"warmup_num_steps", 2}, {"warmup_max_lr", 0.005}, {"warmup_type", "linear"}}}}}}}};
    cfg.merge_patch(patch);
    fs::path file = dir / (name + ".json");
    std::ofstream(file) << cfg.dump(2);
    return file;
}

std::vector<double> series(const fts::RunStore& store, int64_t run, const std::string& name) {
    std::vector<double> v;
    for (const auto& m : store.metrics(run, name)) v.push_back(m.value);
    return v;
}

std::string allLogs(const fts::RunStore& store, int64_t run) {
    std::string text;
    for (const auto& l : store.logs(run, 0)) text += l.level + ": " + l.message + "\n";
    return text;
}

}  // namespace

class TestTrainSft : public QObject {
    Q_OBJECT
private slots:
    void trainsAndRecords_data();
    void trainsAndRecords();
    void packedResumeEqualsUninterrupted();
    void badRowsReportedWithLines_data();
    void badRowsReportedWithLines();
    void fullCacheDiskFailsTheRunNamingTheFolder();
    void samplesDuringTrainingEqualGenerateOnTheExport();
};

void TestTrainSft::trainsAndRecords_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("packing");
    QTest::newRow("alpaca gpt2 padded") << "gpt2"
                                        << "alpaca.jsonl" << false;
    QTest::newRow("alpaca gpt2 packed") << "gpt2"
                                        << "alpaca.jsonl" << true;
    QTest::newRow("messages llama packed") << "llama"
                                           << "messages.jsonl" << true;
    QTest::newRow("messages llama padded") << "llama"
                                           << "messages.jsonl" << false;
}

void TestTrainSft::trainsAndRecords() {
    QFETCH(QString, model);
    QFETCH(QString, file);
    QFETCH(bool, packing);
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const json patch = {{"model", {{"path", (kSft / model.toStdString()).string()}}},
                        {"data", {{"train", (kSft / file.toStdString()).string()}, {"packing", packing}}}};
    const fs::path storeFile = dir / "runs.sqlite";
    CliResult r = runFts({"train", QString::fromStdString(writeConfig(dir, "sft", patch).string()), "--store",
                          QString::fromStdString(storeFile.string()), "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    fts::RunStore store(storeFile, true);
    auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].status, fts::RunStatus::Completed);
    const auto loss = series(store, runs[0].id, "loss");
    QCOMPARE(loss.size(), size_t(16));
    for (double l : loss) QVERIFY(std::isfinite(l) && l > 0);
    const double last = (loss[13] + loss[14] + loss[15]) / 3;
    QVERIFY2(last < 0.7 * loss[0], qPrintable(QString("loss %1 -> %2").arg(loss[0]).arg(last)));
    const auto evalLoss = series(store, runs[0].id, "eval_loss");
    QCOMPARE(evalLoss.size(), size_t(3));  // step 0, 8, 16
    QVERIFY(evalLoss.back() < evalLoss.front());
    QVERIFY(!series(store, runs[0].id, "tokens_per_s").empty());
    const std::string logs = allLogs(store, runs[0].id);
    QVERIFY2(logs.find("token cache written") != std::string::npos, logs.c_str());
    QVERIFY2(logs.find("template chatml") != std::string::npos, logs.c_str());  // auto: the fixture's tokenizer_config
}

void TestTrainSft::packedResumeEqualsUninterrupted() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const int N = 3;
    const json base = {{"model", {{"path", (kSft / "llama").string()}}},
                       {"data", {{"train", (kSft / "messages.jsonl").string()}, {"packing", true}}},
                       {"training", {{"save_interval", N}, {"eval_interval", 0}}}};
    const QString store = QString::fromStdString((dir / "runs.sqlite").string());
    json straight = base;
    straight["training"]["max_steps"] = 2 * N;
    CliResult a = runFts({"train", QString::fromStdString(writeConfig(dir, "straight", straight).string()), "--store",
                          store, "--quiet"});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));
    json first = base;
    first["training"]["max_steps"] = N;
    // WarmupLR is constant after warm-up, so the first half's schedule equals the straight run's.
    CliResult b1 = runFts(
        {"train", QString::fromStdString(writeConfig(dir, "split", first).string()), "--store", store, "--quiet"});
    QVERIFY2(b1.exitCode == 0, qPrintable(b1.err));
    json second = base;
    second["training"]["max_steps"] = 2 * N;
    CliResult b2 = runFts({"train", QString::fromStdString(writeConfig(dir, "split", second).string()), "--store",
                           store, "--resume", "--quiet"});
    QVERIFY2(b2.exitCode == 0, qPrintable(b2.err));

    fts::RunStore s(dir / "runs.sqlite", true);
    int64_t straightId = 0, splitId = 0;
    for (const auto& r : s.listRuns())
        (r.configPath.find("straight") != std::string::npos ? straightId : splitId) = r.id;
    const auto la = series(s, straightId, "loss"), lb = series(s, splitId, "loss");
    QCOMPARE(la.size(), size_t(2 * N));
    QCOMPARE(lb.size(), size_t(2 * N));
    for (int i = 0; i < 2 * N; ++i)
        QVERIFY2(la[i] == lb[i],
                 qPrintable(QString("step %1: %2 vs %3").arg(i + 1).arg(la[i], 0, 'g', 17).arg(lb[i], 0, 'g', 17)));
    const auto wa = fts::loadSafetensors(dir / "straight-out" / "final" / "model.safetensors");
    const auto wb = fts::loadSafetensors(dir / "split-out" / "final" / "model.safetensors");
    QVERIFY(!wa.empty());
    for (const auto& [name, t] : wa) QVERIFY2(torch::equal(t, wb.at(name)), name.c_str());
    // The resumed half read its data from the token cache the first half wrote.
    QVERIFY2(allLogs(s, splitId).find("token cache hit") != std::string::npos, allLogs(s, splitId).c_str());
}

void TestTrainSft::badRowsReportedWithLines_data() {
    QTest::addColumn<QString>("policy");
    QTest::newRow("skip") << "skip";
    QTest::newRow("stop") << "stop";
}

void TestTrainSft::badRowsReportedWithLines() {
    QFETCH(QString, policy);
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const json patch = {
        {"data",
         {{"train", (kSft / "bad_rows.jsonl").string()}, {"format", "alpaca"}, {"on_bad_row", policy.toStdString()}}},
        {"training", {{"max_steps", 2}, {"eval_interval", 0}}}};
    const fs::path storeFile = dir / "runs.sqlite";
    CliResult r = runFts({"train", QString::fromStdString(writeConfig(dir, "bad", patch).string()), "--store",
                          QString::fromStdString(storeFile.string()), "--quiet"});
    fts::RunStore store(storeFile, true);
    auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(1));
    if (policy == "stop") {
        QVERIFY2(r.exitCode != 0 && r.exitCode != -1, qPrintable(r.err));
        QVERIFY2(r.err.contains("bad_rows.jsonl:3:") && r.err.contains("on_bad_row"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("Exception raised from"), qPrintable(r.err));
        QCOMPARE(runs[0].status, fts::RunStatus::Failed);
        return;
    }
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(runs[0].status, fts::RunStatus::Completed);
    const std::string logs = allLogs(store, runs[0].id);
    QVERIFY2(logs.find("3 bad row(s)") != std::string::npos, logs.c_str());
    for (const char* line : {"bad_rows.jsonl:3: invalid JSON", "bad_rows.jsonl:7: missing field 'output'",
                             "bad_rows.jsonl:12: field 'instruction' must be a string"})
        QVERIFY2(logs.find(line) != std::string::npos, (std::string(line) + " not in\n" + logs).c_str());
}

// The token cache on a 16 KiB tmpfs (root only; CI runs as root): the cache of alpaca.jsonl does not fit. The run
// fails, marked failed with the reason, naming the cache folder and its free space; nothing is left in the folder.
void TestTrainSft::fullCacheDiskFailsTheRunNamingTheFolder() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const fs::path small = dir / "small";
    fs::create_directories(small);
    if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=16k") != 0) QSKIP("needs root to mount a 16 KiB tmpfs");
    struct Unmount {
        fs::path p;
        ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
    } unmount{small};
    const fs::path cacheDir = small / "token_cache";
    const json patch = {{"data", {{"cache_dir", cacheDir.string()}}}, {"training", {{"max_steps", 2}}}};
    const fs::path storeFile = dir / "runs.sqlite";
    const CliResult r = runFts({"train", QString::fromStdString(writeConfig(dir, "full", patch).string()), "--store",
                                QString::fromStdString(storeFile.string()), "--quiet"});
    QCOMPARE(r.exitCode, 1);
    const QString said = r.out + r.err;
    QVERIFY2(said.contains("the disk is full") && said.contains(QString::fromStdString(cacheDir.string())) &&
                 said.contains("free on " + QString::fromStdString(cacheDir.string())),
             qPrintable(said));
    QVERIFY2(!said.contains("Exception raised from"), qPrintable(said));
    fts::RunStore store(storeFile, true);
    const auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].status, fts::RunStatus::Failed);
    QVERIFY2(runs[0].failureReason.find("the disk is full") != std::string::npos, runs[0].failureReason.c_str());
    for (const auto& e : fs::directory_iterator(cacheDir))
        QFAIL(qPrintable("left behind: " + QString(e.path().c_str())));
}

// training.sample_prompts on an instruction run (ChatML): replies at steps 0, 8 and 16 in the store, and those of the
// last step equal `fts generate --chat` on the exported model (the same weights, greedy).
void TestTrainSft::samplesDuringTrainingEqualGenerateOnTheExport() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const json patch = {
        {"training",
         {{"sample_prompts", {"Give me a tip.", "What is the capital of France?"}}, {"sample_max_new_tokens", 12}}}};
    const fs::path storeFile = dir / "runs.sqlite";
    const CliResult r = runFts({"train", QString::fromStdString(writeConfig(dir, "samples", patch).string()), "--store",
                                QString::fromStdString(storeFile.string())});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2((r.out + r.err).contains("sample at step 16: "), qPrintable(r.out + r.err));
    fts::RunStore store(storeFile, true);
    const auto run = store.listRuns().at(0);
    const auto texts = store.samplesAfterId(run.id);
    QCOMPARE(texts.size(), size_t(6));  // 2 prompts x steps 0, 8, 16 (sample_interval: the eval interval, 8)
    std::vector<int64_t> steps;
    for (const auto& t : texts) steps.push_back(t.step);
    QVERIFY(steps == std::vector<int64_t>({0, 0, 8, 8, 16, 16}));
    QCOMPARE(texts[5].prompt, std::string("What is the capital of France?"));
    QCOMPARE(texts[5].index, 1);
    for (size_t i : {size_t(4), size_t(5)}) {
        const CliResult g =
            runFts({"generate", "--model", QString::fromStdString((dir / "samples-out" / "final").string()), "--chat",
                    "--prompt", QString::fromStdString(texts[i].prompt), "--max_new_tokens", "12", "--json"});
        QVERIFY2(g.exitCode == 0, qPrintable(g.err));
        QCOMPARE(json::parse(g.out.toStdString()).at("text").get<std::string>(), texts[i].text);
    }
}

QTEST_APPLESS_MAIN(TestTrainSft)
#include "test_train_sft.moc"
