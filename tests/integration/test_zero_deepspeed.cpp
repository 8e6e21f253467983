// DeepSpeed itself as the reference for the ZeRO engine: DeepSpeed 0.19.8 runs on CPU here (DS_ACCELERATOR=cpu,
// gloo, torch AdamW; tests/data/zero/ds_zero_reference.py) and trains the same tiny GPT-2, from the same weights,
// on the same data with the same `deepspeed` config section, on 2 ranks at each ZeRO stage; `fts train --nproc 2`
// must give the same loss at every step. The global batch is the whole data set (16 blocks of 32 tokens), so the
// two samplers' orders cannot matter.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using fts::testing::CliResult;
using fts::testing::kQuickstart;
using fts::testing::runFts;

constexpr int kSteps = 12, kBlocks = 16, kBlockLen = 32, kRanks = 2;
const QString kScript = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/zero/ds_zero_reference.py"));

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

struct PyResult {
    int exitCode = -1;
    QString output;
};
PyResult runPython(const QStringList& args) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QString::fromUtf8(FTS_TEST_PYTHON), QStringList{kScript} + args);
    if (!p.waitForFinished(600000)) p.kill(), p.waitForFinished();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
}

// Global batch 16 = micro 4 x accumulation 2 x 2 ranks (DeepSpeed's triple); clipping at 0.5 triggers (checked),
// weight decay and a WarmupDecayLR schedule are on.
fs::path writeConfig(const fs::path& dir, int stage) {
    json cfg = fts::testing::quickstartConfig(dir, "s" + std::to_string(stage));
    cfg["model"] = {{"path", (dir / "model").string()}, {"init", "pretrained"}};
    cfg["data"]["train"] = (dir / "stories.jsonl").string();
    cfg["data"]["max_length"] = kBlockLen;
    cfg["data"]["eval_fraction"] = 0.0;
    cfg["training"] = {{"max_steps", kSteps},
                       {"eval_interval", 0},
                       {"save_interval", 0},
                       {"log_interval", 1},
                       {"device", "cpu"},
                       {"seed", 3},
                       {"output_dir", (dir / ("s" + std::to_string(stage) + "-out")).string()},
                       {"keep_checkpoints", 0}};
    json& ds = cfg["deepspeed"];
    ds["train_micro_batch_size_per_gpu"] = kBlocks / 2 / kRanks;
    ds["gradient_accumulation_steps"] = 2;
    ds["gradient_clipping"] = 0.5;
    ds["optimizer"]["params"] = {{"lr", 0.01}, {"betas", {0.9, 0.95}}, {"eps", 1e-8}, {"weight_decay", 0.01}};
    ds["scheduler"] = {{"type", "WarmupDecayLR"},
                       {"params",
                        {{"warmup_min_lr", 0.0},
                         {"warmup_max_lr", 0.01},
                         {"warmup_num_steps", 4},
                         {"total_num_steps", kSteps},
                         {"warmup_type", "linear"}}}};
    // Stage 3: weights above 100 elements are partitioned and gathered (the default threshold, 1e5, would keep every
    // tensor of this tiny model whole), one block prefetched; stages 0-2 ignore these keys on both sides.
    ds["zero_optimization"] = {{"stage", stage},
                               {"reduce_bucket_size", 5000},
                               {"allgather_bucket_size", 3000},
                               {"stage3_param_persistence_threshold", 100},
                               {"stage3_prefetch_bucket_size", 15000}};
    const fs::path file = dir / ("s" + std::to_string(stage) + ".json");
    std::ofstream(file) << cfg.dump(2);
    return file;
}

}  // namespace

class TestZeroDeepSpeed : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_dir;
    json m_ds;  // {"<stage>": {"loss": [per step], "step_seconds": [...]} | {"error": ...}}

private slots:
    // DeepSpeed's runs of stages 0-3, in one launch of 2 ranks (its start-up dominates).
    void initTestCase() {
        m_dir = m_tmp.path().toStdString();
        PyResult prep =
            runPython({"prepare", q(m_dir), q(kQuickstart / "model"), q(kQuickstart / "sample_stories.jsonl"),
                       QString::number(kBlocks), QString::number(kBlockLen)});
        QVERIFY2(prep.exitCode == 0, qPrintable(prep.output));
        const fs::path cfg = writeConfig(m_dir, 0);
        PyResult ds = runPython({"run", q(cfg), q(m_dir / "blocks.json"), q(m_dir / "ds.json"), QString::number(kRanks),
                                 QString::number(kSteps), "0", "1", "2", "3"});
        QVERIFY2(ds.exitCode == 0, qPrintable("DeepSpeed reference failed:\n" + ds.output.right(4000)));
        m_ds = json::parse(fts::readFile(m_dir / "ds.json"));
    }

    void lossEqualsDeepSpeedPerStage_data() {
        QTest::addColumn<int>("stage");
        QTest::newRow("stage 0") << 0;
        QTest::newRow("stage 1") << 1;
        QTest::newRow("stage 2") << 2;
        QTest::newRow("stage 3") << 3;
    }
    void lossEqualsDeepSpeedPerStage() {
        QFETCH(int, stage);
        const json& run0 = m_ds.at(std::to_string(stage));
        QVERIFY2(run0.contains("loss"),
                 qPrintable(QString::fromStdString("DeepSpeed stage " + std::to_string(stage) + ": " + run0.dump())));
        const json& ref = run0.at("loss");
        const fs::path store = m_dir / ("s" + std::to_string(stage) + ".sqlite");
        CliResult r = runFts({"train", q(writeConfig(m_dir, stage)), "--store", q(store), "--quiet", "--nproc",
                              QString::number(kRanks)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        fts::RunStore s(store, true);
        const int64_t run = s.listRuns().at(0).id;
        const auto loss = fts::testing::series(s, run, "loss");
        const auto norms = fts::testing::series(s, run, "grad_norm");
        QCOMPARE(loss.size(), size_t(kSteps));
        QCOMPARE(ref.size(), size_t(kSteps));
        QVERIFY2(*std::max_element(norms.begin(), norms.end()) > 0.5,
                 "clipping (0.5) must trigger for the test to test it");
        QVERIFY(loss.back() < loss.front() - 0.1);  // it trained
        double worst = 0.0;
        for (int i = 0; i < kSteps; ++i) {
            const double d =
                std::fabs(loss[size_t(i)] - ref[size_t(i)].get<double>()) / std::fabs(ref[size_t(i)].get<double>());
            worst = std::max(worst, d);
            qInfo("stage %d step %2d: fts %.8f  DeepSpeed %.8f  rel %.2e", stage, i + 1, loss[size_t(i)],
                  ref[size_t(i)].get<double>(), d);
        }
        // Two float32 implementations of the same computation (fts's GPT-2 in LibTorch vs transformers' with SDPA;
        // different reduction orders in the loss, the bucketed reductions and the norm): their logits agree to
        // ~2e-6 (model goldens), and AdamW turns rounding differences into weight differences of at most a few
        // ulps per step. Measured on 12 steps: worst 7.7e-8 (stages 0-2; stage 3: 4.1e-8). The bound leaves a margin of >10x over that
        // and is far below what a semantic difference (a missing 1/N, a different clip factor, lr off by a step) gives
        // (>= 1e-3 from step 3 on).
        QVERIFY2(worst < 1e-6, qPrintable(QString("worst relative loss difference %1").arg(worst)));
    }
};

QTEST_APPLESS_MAIN(TestZeroDeepSpeed)
#include "test_zero_deepspeed.moc"
