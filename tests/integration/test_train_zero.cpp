// End-to-end tests of ZeRO stages 1, 2 and 3 through the real `fts train --nproc N` (Gloo, CPU, fp32): 30 steps
// with gradient accumulation and clipping on 2 and 4 ranks give the loss of every step and the final weights
// of stage 0 on one rank with the same global batch; a sharded checkpoint holds one optimizer shard per rank,
// resuming it continues exactly, and `fts export` of it gives an HF folder (stage 3: consolidated from the shards).
// A tiny GPT-2 keeps it quick.
// LibTorch before Qt: Qt's `slots` keyword macro would otherwise break LibTorch's headers.
#include "core/model/safetensors_torch.h"
#include "tests/integration/zero_run_support.h"

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

constexpr int kSteps = fts::testing::kZeroSteps;
using fts::testing::q;
using fts::testing::relL2;
using fts::testing::series;
using fts::testing::writeConfig;
using fts::testing::writeTinyModelAndData;

}  // namespace

class TestTrainZero : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_dir;
    std::vector<double> m_loss1;
    std::map<std::string, torch::Tensor> m_weights1;

private slots:
    // The reference: stage 0 on one rank (micro 4 x accumulation 2).
    void initTestCase() {
        m_dir = m_tmp.path().toStdString();
        writeTinyModelAndData(m_dir);
        const fs::path store = m_dir / "one.sqlite";
        CliResult r = runFts({"train", q(writeConfig(m_dir, "one", 1, 0)), "--store", q(store), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        fts::RunStore s(store, true);
        m_loss1 = series(s, s.listRuns().at(0).id, "loss");
        QCOMPARE(m_loss1.size(), size_t(kSteps));
        QVERIFY(m_loss1.back() < m_loss1.front());  // it trained
        const auto norms = series(s, s.listRuns().at(0).id, "grad_norm");
        QVERIFY2(*std::max_element(norms.begin(), norms.end()) > 0.5,
                 "clipping (0.5) must trigger for the test to test it");
        m_weights1 = fts::loadSafetensors(m_dir / "one-out" / "final" / "model.safetensors");
    }

    void zeroEqualsStage0OnOneRank_data() {
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("nproc");
        // 4 ranks at stage 1 is left to zero_test_zero_optimizer (time); stage 3 at 4 ranks also runs in the resume test.
        QTest::newRow("stage 1, 2 ranks") << 1 << 2;
        QTest::newRow("stage 2, 2 ranks") << 2 << 2;
        QTest::newRow("stage 2, 4 ranks") << 2 << 4;
        QTest::newRow("stage 3, 2 ranks") << 3 << 2;
        QTest::newRow("stage 3, 4 ranks") << 3 << 4;
    }
    void zeroEqualsStage0OnOneRank() {
        QFETCH(int, stage);
        QFETCH(int, nproc);
        const std::string name = "z" + std::to_string(stage) + "n" + std::to_string(nproc);
        const fs::path store = m_dir / (name + ".sqlite");
        CliResult r = runFts({"train", q(writeConfig(m_dir, name, nproc, stage)), "--store", q(store), "--quiet",
                              "--nproc", QString::number(nproc)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        fts::RunStore s(store, true);
        const auto run = s.listRuns().at(0);
        QCOMPARE(run.worldSize, nproc);
        const auto loss = series(s, run.id, "loss");
        QCOMPARE(loss.size(), m_loss1.size());
        double worst = 0;
        for (size_t i = 0; i < loss.size(); ++i) {
            const double rel = std::abs(loss[i] - m_loss1[i]) / std::abs(m_loss1[i]);
            worst = std::max(worst, rel);
            QVERIFY2(rel <= 1e-5, qPrintable(QString("step %1: loss %2 (stage %3, %4 ranks) vs %5 (stage 0, one rank)")
                                                 .arg(i + 1)
                                                 .arg(loss[i], 0, 'g', 10)
                                                 .arg(stage)
                                                 .arg(nproc)
                                                 .arg(m_loss1[i], 0, 'g', 10)));
        }
        const double d =
            relL2(fts::loadSafetensors(m_dir / (name + "-out") / "final" / "model.safetensors"), m_weights1);
        QVERIFY2(d <= 1e-5, qPrintable(QString("final weights: relative L2 %1").arg(d)));
        qInfo("stage %d, %d ranks vs stage 0 on one rank: worst loss rel. diff %.3g, final weights rel. L2 %.3g", stage,
              nproc, worst, d);
    }

    // fp16 parameters with fp32 masters and DeepSpeed's dynamic loss scale on stage 2, 2 ranks (from 2^24: the
    // first steps overflow, hysteresis 1, window 5): every halving of the recorded scale is a skipped step (and
    // nothing else is) and the run trains (its loss trails the fp32 run's: the skipped steps are not trained).
    void fp16DynamicLossScale() {
        const json fp16 = {
            {"deepspeed",
             {{"fp16",
               {{"enabled", true}, {"initial_scale_power", 24}, {"hysteresis", 1}, {"loss_scale_window", 5}}}}}};
        const fs::path store = m_dir / "fp16.sqlite";
        CliResult b =
            runFts({"train", q(writeConfig(m_dir, "h2", 2, 2, fp16)), "--store", q(store), "--quiet", "--nproc", "2"});
        QVERIFY2(b.exitCode == 0, qPrintable(b.err));
        fts::RunStore s(store, true);
        const auto run = s.listRuns().at(0);
        const auto scale = series(s, run.id, "loss_scale"), loss = series(s, run.id, "loss");
        QCOMPARE(scale.size(), size_t(kSteps));
        QVERIFY(loss.size() > size_t(kSteps / 2));  // a step whose forward overflowed has no finite loss to record
        QCOMPARE(scale.front(), std::ldexp(1.0, 24));
        int halvings = 0, doublings = 0;
        for (size_t i = 1; i < scale.size(); ++i) {
            halvings += scale[i] == scale[i - 1] / 2;
            doublings += scale[i] == scale[i - 1] * 2;
            QVERIFY2(scale[i] == scale[i - 1] || scale[i] == scale[i - 1] / 2 || scale[i] == scale[i - 1] * 2,
                     qPrintable(QString("step %1: scale %2 after %3").arg(i + 1).arg(scale[i]).arg(scale[i - 1])));
        }
        QVERIFY2(halvings > 0, "some steps overflowed");
        int skipped = 0;
        for (const auto& l : s.logs(run.id, 0)) skipped += l.message.find("step skipped") != std::string::npos;
        QVERIFY2(skipped == halvings || skipped == halvings + 1,  // + the last step, whose halving is not recorded
                 qPrintable(QString("%1 skipped steps, %2 halvings of the scale").arg(skipped).arg(halvings)));
        QVERIFY(loss.back() < loss.front());
        qInfo(
            "fp16 stage 2: loss scale %g -> %g (%d halvings, %d doublings, %d skipped steps), last loss %.5f (fp32: %.5f)",
            scale.front(), scale.back(), halvings, doublings, skipped, loss.back(), m_loss1.back());
    }

    // An overflow with the scale already at min_loss_scale stops the run with DeepSpeed's reason.
    void fp16OverflowAtMinimumStops() {
        const json fp16 = {
            {"deepspeed",
             {{"fp16",
               {{"enabled", true}, {"initial_scale_power", 30}, {"hysteresis", 1}, {"min_loss_scale", 536870912.0}}}}}};
        const fs::path store = m_dir / "fp16min.sqlite";
        CliResult r = runFts({"train", q(writeConfig(m_dir, "hmin", 1, 0, fp16)), "--store", q(store), "--quiet"});
        QVERIFY(r.exitCode != 0);
        fts::RunStore s(store, true);
        const auto run = s.listRuns().at(0);
        QCOMPARE(run.status, fts::RunStatus::Failed);
        QVERIFY2(run.failureReason.find("min_loss_scale") != std::string::npos &&
                     run.failureReason.find("already at its minimum") != std::string::npos,
                 run.failureReason.c_str());
    }

    // 6 steps straight vs 3 steps, then --resume to 6: identical; the checkpoint has one optimizer shard per rank;
    // `fts export` of it gives an HF folder with the model's weights (stage 3: consolidated from the rank shards,
    // equal to the run's own export at that step, with the tensor names and shapes of a stage-0 export).
    void shardedCheckpointResumesExactly_data() {
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("nproc");
        QTest::newRow("stage 2, 2 ranks") << 2 << 2;
        QTest::newRow("stage 3, 4 ranks") << 3 << 4;
    }
    void shardedCheckpointResumesExactly() {
        QFETCH(int, stage);
        QFETCH(int, nproc);
        const std::string tag = "s" + std::to_string(stage) + "n" + std::to_string(nproc);
        const QString np = QString::number(nproc);
        const json half = {{"training", {{"max_steps", 3}, {"save_interval", 3}}},
                           {"deepspeed", {{"scheduler", {{"params", {{"total_num_steps", 6}}}}}}}};
        json full = half;
        full["training"]["max_steps"] = 6;
        const fs::path store = m_dir / (tag + "resume.sqlite");
        const std::string straight = tag + "straight", split = tag + "split";
        CliResult a = runFts({"train", q(writeConfig(m_dir, straight, nproc, stage, full)), "--store", q(store),
                              "--quiet", "--nproc", np});
        QVERIFY2(a.exitCode == 0, qPrintable(a.err));
        CliResult b1 = runFts(
            {"train", q(writeConfig(m_dir, split, nproc, stage, half)), "--store", q(store), "--quiet", "--nproc", np});
        QVERIFY2(b1.exitCode == 0, qPrintable(b1.err));
        const fs::path ckpt = m_dir / (split + "-out") / "checkpoints" / "step-00000003";
        for (int r = 0; r < nproc; ++r)
            QVERIFY2(fs::exists(ckpt / ("optimizer_rank" + std::to_string(r) + ".safetensors")),
                     "one optimizer shard per rank");
        QVERIFY(!fs::exists(ckpt / "optimizer.safetensors"));
        QCOMPARE(fs::exists(ckpt / "model.safetensors"), stage != 3);  // stage 3: the weights are the ranks' shards
        const json st = json::parse(fts::readFile(ckpt / "trainer_state.json"));
        QCOMPARE(st.at("zero_stage").get<int>(), stage);
        for (const auto& e : fs::directory_iterator(ckpt.parent_path()))  // no staging folder left behind
            QVERIFY2(e.path().filename().string().find(".tmp") == std::string::npos, e.path().c_str());

        // export of the sharded checkpoint: the run's own export at step 3, under stage 0's names and shapes
        const fs::path exported = m_dir / (tag + "exported");
        CliResult ex = runFts({"export", q(ckpt), "--out", q(exported)});
        QVERIFY2(ex.exitCode == 0, qPrintable(ex.err));
        QVERIFY(fs::exists(exported / "config.json"));
        const auto weights = fts::loadSafetensors(exported / "model.safetensors");
        QCOMPARE(relL2(weights, fts::loadSafetensors(m_dir / (split + "-out") / "final" / "model.safetensors")), 0.0);
        QCOMPARE(weights.size(), m_weights1.size());
        for (const auto& [name, t] : m_weights1) {
            QVERIFY2(weights.count(name), name.c_str());
            QVERIFY2(weights.at(name).sizes().equals(t.sizes()), name.c_str());
        }
        if (stage != 3) QCOMPARE(relL2(weights, fts::loadSafetensors(ckpt / "model.safetensors")), 0.0);
        if (stage == 3) {  // a partition edited by hand (no checksums.json): named, not a crash or an overflow
            struct Edit {
                const char* key;
                json value;
                const char* expected;
            };
            const Edit edits[] = {{"numel", "many", "key \"numel\" must be an integer"},
                                  {"chunk", int64_t(9e18), "does not fit the shards"}};
            for (const auto& [key, value, expected] : edits) {
                const fs::path copy = m_dir / (tag + "edited");
                fs::remove_all(copy);
                fs::copy(ckpt, copy, fs::copy_options::recursive);
                fs::remove(copy / "checksums.json");
                json edited = st;
                edited["zero3_partition"]["params"][0][key] = value;
                fts::writeFileAtomic(copy / "trainer_state.json", edited.dump());
                CliResult bad = runFts({"export", q(copy), "--out", q(m_dir / (tag + "edited-export"))});
                QVERIFY2(bad.exitCode != 0 && bad.err.contains("zero3_partition") && bad.err.contains(expected),
                         qPrintable(bad.err));
            }
        }

        CliResult b2 = runFts({"train", q(writeConfig(m_dir, split, nproc, stage, full)), "--store", q(store),
                               "--quiet", "--nproc", np, "--resume"});
        QVERIFY2(b2.exitCode == 0, qPrintable(b2.err));
        fts::RunStore s(store, true);
        int64_t straightId = 0, splitId = 0;
        for (const auto& r : s.listRuns())
            (r.configPath.find(straight) != std::string::npos ? straightId : splitId) = r.id;
        const auto la = series(s, straightId, "loss"), lb = series(s, splitId, "loss");
        QCOMPARE(la.size(), size_t(6));
        QCOMPARE(lb.size(), size_t(6));
        for (size_t i = 0; i < la.size(); ++i)
            QVERIFY2(la[i] == lb[i],
                     qPrintable(QString("step %1: %2 vs %3").arg(i + 1).arg(la[i], 0, 'g', 17).arg(lb[i], 0, 'g', 17)));
        QCOMPARE(relL2(fts::loadSafetensors(m_dir / (split + "-out") / "final" / "model.safetensors"),
                       fts::loadSafetensors(m_dir / (straight + "-out") / "final" / "model.safetensors")),
                 0.0);
    }
};

FTS_SUITE_MAIN(argc, argv) {
    qputenv("QTEST_FUNCTION_TIMEOUT", "900000");  // several multi-process trainings per test function
    TestTrainZero t;
    return QTest::qExec(&t, argc, argv);
}
#include "test_train_zero.moc"
