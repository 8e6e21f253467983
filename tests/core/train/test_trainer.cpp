// In-process tests of the training loop: gradient accumulation equals one larger micro-batch, the lr of
// each step follows the DeepSpeed schedule, bf16 autocast trains, checkpoints rotate and stay complete, a resume
// from a trainer_state.json with fields of the wrong kind names the file and the key.
#include "core/model/safetensors_torch.h"
#include "core/config/lr_schedule.h"
#include "core/train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include "core/util/atomic_file.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"

#include "tests/support/capturing_sink.h"
#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kQuickstart = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";

using fts::test::CapturingSink;

fts::TrainConfig makeConfig(const fs::path& outDir, const json& patch) {
    json cfg = json::parse(fts::readFile(kQuickstart / "quickstart.json"));
    cfg["training"]["output_dir"] = outDir.string();
    cfg["training"]["eval_interval"] = 0;
    cfg["training"]["eval_batches"] = 2;
    cfg.merge_patch(patch);
    auto r = fts::parseTrainConfig(cfg, kQuickstart, 1);
    if (!r.ok()) throw std::runtime_error(r.errorText());
    return *r.config;
}

}  // namespace

class TestTrainer : public QObject {
    Q_OBJECT
private slots:
    void accumulationEqualsLargerMicroBatch() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const json common = {{"training", {{"max_steps", 3}, {"save_interval", 0}}}};
        json a = common, b = common;
        a["deepspeed"] = {{"train_micro_batch_size_per_gpu", 8}, {"gradient_accumulation_steps", 1}};
        b["deepspeed"] = {{"train_micro_batch_size_per_gpu", 4}, {"gradient_accumulation_steps", 2}};
        CapturingSink sa, sb;
        std::atomic<bool> stop{false};
        QVERIFY(fts::runTraining(makeConfig(dir / "a", a), {}, sa, stop) == fts::TrainOutcome::Completed);
        QVERIFY(fts::runTraining(makeConfig(dir / "b", b), {}, sb, stop) == fts::TrainOutcome::Completed);
        auto la = sa.values("loss"), lb = sb.values("loss");
        QCOMPARE(la.size(), size_t(3));
        QCOMPARE(lb.size(), size_t(3));
        for (size_t i = 0; i < la.size(); ++i)
            QVERIFY2(std::abs(la[i] - lb[i]) <= 1e-5 * std::abs(la[i]), qPrintable(QString::number(i)));
        auto ga = sa.values("grad_norm"), gb = sb.values("grad_norm");
        for (size_t i = 0; i < ga.size(); ++i) QVERIFY(std::abs(ga[i] - gb[i]) <= 1e-4 * ga[i]);
        auto wa = fts::loadSafetensors(dir / "a" / "final" / "model.safetensors");
        auto wb = fts::loadSafetensors(dir / "b" / "final" / "model.safetensors");
        for (const auto& [name, t] : wa) {
            const double rel = (t - wb.at(name)).norm().item<double>() / std::max(1e-12, t.norm().item<double>());
            QVERIFY2(rel <= 1e-5, name.c_str());
        }
    }

    void learningRateFollowsTheSchedule() {
        QTemporaryDir tmp;
        json patch = {{"training", {{"max_steps", 8}, {"save_interval", 0}}},
                      {"deepspeed",
                       {{"train_micro_batch_size_per_gpu", 2},
                        {"scheduler",
                         {{"type", "WarmupCosineLR"},
                          {"params",  // null removes the quick-start's WarmupDecayLR-only keys (JSON merge patch)
                           {{"warmup_num_steps", 3},
                            {"total_num_steps", 8},
                            {"warmup_type", "linear"},
                            {"warmup_min_lr", nullptr},
                            {"warmup_max_lr", nullptr}}}}}}}};
        auto cfg = makeConfig(fs::path(tmp.path().toStdString()) / "out", patch);
        CapturingSink sink;
        std::atomic<bool> stop{false};
        fts::runTraining(cfg, {}, sink, stop);
        auto lr = sink.values("lr");
        QCOMPARE(lr.size(), size_t(8));
        for (int64_t step = 0; step < 8; ++step)
            QCOMPARE(lr[size_t(step)], fts::learningRateAt(cfg.deepspeed.scheduler, cfg.deepspeed.optimizer.lr, step));
        QVERIFY(lr[0] < lr[3]);  // warm-up rises
        QVERIFY(lr[7] < lr[3]);  // cosine decays
    }

    void bf16AutocastTrains() {
        QTemporaryDir tmp;
        json patch = {{"training", {{"max_steps", 20}, {"save_interval", 0}}},
                      {"deepspeed", {{"train_micro_batch_size_per_gpu", 8}, {"bf16", {{"enabled", true}}}}}};
        CapturingSink sink;
        std::atomic<bool> stop{false};
        fts::runTraining(makeConfig(fs::path(tmp.path().toStdString()) / "out", patch), {}, sink, stop);
        auto loss = sink.values("loss");
        QCOMPARE(loss.size(), size_t(20));
        for (double l : loss) QVERIFY(std::isfinite(l));
        QVERIFY2(loss.back() < loss.front() - 1.0, qPrintable(QString("%1 -> %2").arg(loss.front()).arg(loss.back())));
        // Master weights stay fp32 under autocast.
        auto w = fts::loadSafetensors(fs::path(tmp.path().toStdString()) / "out" / "final" / "model.safetensors");
        for (const auto& [name, t] : w) QCOMPARE(t.scalar_type(), torch::kFloat32);
    }

    void checkpointsRotateAndLatestIsComplete() {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        json patch = {{"training", {{"max_steps", 6}, {"save_interval", 2}, {"keep_checkpoints", 2}}},
                      {"deepspeed", {{"train_micro_batch_size_per_gpu", 2}}}};
        // A leftover of this run's interrupted save must be cleaned up, never taken as a checkpoint (run id 0:
        // runTraining without a store).
        fs::create_directories(out / "checkpoints" / fts::checkpointTempName("step-00000099", 0, 123));
        // Another run's checkpoint and its save in progress in the same folder are never touched by rotation.
        const fs::path foreign = out / "checkpoints" / "step-00000001";
        fs::create_directories(foreign);
        fts::writeFileAtomic(foreign / "trainer_state.json", json{{"step", 1}, {"run_id", 7}}.dump());
        const std::string foreignTemp = fts::checkpointTempName("step-00000002", 7, 5);
        fs::create_directories(out / "checkpoints" / foreignTemp);
        CapturingSink sink;
        std::atomic<bool> stop{false};
        fts::runTraining(makeConfig(out, patch), {}, sink, stop);
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(out / "checkpoints")) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        QCOMPARE(names,
                 (std::vector<std::string>{"latest", "step-00000001", foreignTemp, "step-00000004", "step-00000006"}));
        QCOMPARE(fts::checkpointRunId(foreign), int64_t(7));
        QCOMPARE(fts::listCheckpoints(out).size(), size_t(3));
        const fs::path latest = fts::latestCheckpoint(out);
        QCOMPARE(latest.filename().string(), std::string("step-00000006"));
        for (const char* f : {"config.json", "model.safetensors", "optimizer.safetensors", "rng.safetensors",
                              "trainer_state.json", "tokenizer.json"})
            QVERIFY2(fs::exists(latest / f), f);
        json st = json::parse(fts::readFile(latest / "trainer_state.json"));
        QCOMPARE(st.at("step").get<int64_t>(), int64_t(6));
        QCOMPARE(st.at("optimizer_step").get<int64_t>(), int64_t(6));
    }

    void stopRequestCheckpointsAtTheCurrentStep() {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        json patch = {{"training", {{"max_steps", 50}, {"save_interval", 0}}},
                      {"deepspeed", {{"train_micro_batch_size_per_gpu", 2}}}};
        // The sink raises the stop flag when step 3's metrics arrive (what SIGTERM does in a worker).
        struct StopAt3 : CapturingSink {
            std::atomic<bool>* stop = nullptr;
            void publish(const json& e) override {
                CapturingSink::publish(e);
                if (e.value("event", "") == "metrics" && e.value("step", 0) == 3) stop->store(true);
            }
        } sink;
        std::atomic<bool> stop{false};
        sink.stop = &stop;
        QVERIFY(fts::runTraining(makeConfig(out, patch), {}, sink, stop) == fts::TrainOutcome::Stopped);
        QCOMPARE(sink.values("loss").size(), size_t(3));
        QCOMPARE(fts::latestCheckpoint(out).filename().string(), std::string("step-00000003"));
        QCOMPARE(sink.events.back().value("status", ""), std::string("stopped"));
        QVERIFY(!fs::exists(out / "final"));  // only a completed run is exported

        // The checkpoint written on the stop holds the training time so far, and the resumed run's clock goes on
        // from it (elapsed_s never falls back, the compare view's wall-time axis has no fold).
        const std::vector<double> before = sink.values("elapsed_s");
        QCOMPARE(before.size(), size_t(3));
        const json st = json::parse(fts::readFile(fts::latestCheckpoint(out) / "trainer_state.json"));
        const double saved = st.at("elapsed_s").get<double>();
        QVERIFY2(saved >= before.back() && saved > 0, qPrintable(QString("%1 vs %2").arg(saved).arg(before.back())));
        json second = patch;
        second["training"]["max_steps"] = 5;
        fts::TrainOptions opt;
        opt.resumeFrom = fts::latestCheckpoint(out);
        CapturingSink resumed;
        std::atomic<bool> noStop{false};
        QVERIFY(fts::runTraining(makeConfig(out, second), opt, resumed, noStop) == fts::TrainOutcome::Completed);
        const std::vector<double> after = resumed.values("elapsed_s");
        QCOMPARE(after.size(), size_t(2));  // steps 4 and 5
        QVERIFY2(after.front() > saved, qPrintable(QString("%1 after %2").arg(after.front()).arg(saved)));
        QVERIFY(after.back() >= after.front());
    }

    // A trainer_state.json edited by hand or written by another tool (no checksums.json to catch it): a field
    // of the wrong kind stops the resume with the file and the key named, not nlohmann's type_error.
    void trainerStateFieldsOfTheWrongKindAreNamed_data() {
        QTest::addColumn<QString>("patch");  // JSON merge patch of trainer_state.json ("" = intact)
        QTest::addColumn<QString>("expected");
        QTest::newRow("intact") << ""
                                << "";
        QTest::newRow("step a string") << R"({"step": "2"})"
                                       << R"("step" must be an integer)";
        QTest::newRow("tokens_seen a string") << R"({"tokens_seen": "many"})"
                                              << R"("tokens_seen")";
        QTest::newRow("elapsed_s a list") << R"({"elapsed_s": [1]})"
                                          << R"("elapsed_s" must be a number)";
        QTest::newRow("data_key a number") << R"({"data_key": 4})"
                                           << R"("data_key" must be a string)";
        QTest::newRow("world_size fractional") << R"({"world_size": 1.5})"
                                               << R"("world_size")";
        QTest::newRow("zero_stage a string") << R"({"zero_stage": "0"})"
                                             << R"("zero_stage")";
        QTest::newRow("loss scale a string") << R"({"loss_scaler": {"scale": "big"}})"
                                             << R"(loss_scaler: key "scale")";
        QTest::newRow("loss scale zero") << R"({"loss_scaler": {"scale": 0}})"
                                         << R"("scale" must be a positive)";
        QTest::newRow("loss_scaler a number") << R"({"loss_scaler": 3})"
                                              << R"("loss_scaler" must be a JSON object)";
        QTest::newRow("sampler a list") << R"({"sampler": [1]})"
                                        << R"("sampler" must be a JSON object)";
        QTest::newRow("sampler epoch a string") << R"({"sampler": {"epoch": "x"}, "sampler_ranks": null})"
                                                << R"(sampler state: key "epoch" must be an integer)";
        QTest::newRow("sampler_ranks short") << R"({"sampler_ranks": [[0]]})"
                                             << R"("sampler_ranks" must list)";
        QTest::newRow("sampler_ranks empty") << R"({"sampler_ranks": []})"
                                             << R"("sampler_ranks" must list)";
        QTest::newRow("optimizer_step a bool") << R"({"optimizer_step": true})"
                                               << R"("optimizer_step")";
    }

    void trainerStateFieldsOfTheWrongKindAreNamed() {
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        const json first = {{"training", {{"max_steps", 2}, {"save_interval", 2}}},
                            {"deepspeed", {{"train_micro_batch_size_per_gpu", 2}}}};
        CapturingSink sink;
        std::atomic<bool> stop{false};
        QVERIFY(fts::runTraining(makeConfig(out, first), {}, sink, stop) == fts::TrainOutcome::Completed);
        const fs::path ckpt = fts::latestCheckpoint(out);
        QVERIFY(!ckpt.empty());
        if (!patch.isEmpty()) {
            json st = json::parse(fts::readFile(ckpt / "trainer_state.json"));
            st.merge_patch(json::parse(patch.toStdString()));
            fts::writeFileAtomic(ckpt / "trainer_state.json", st.dump());
            fs::remove(ckpt / "checksums.json");
        }
        json second = first;
        second["training"]["max_steps"] = 3;
        fts::TrainOptions opt;
        opt.resumeFrom = ckpt;
        CapturingSink resumed;
        try {
            fts::runTraining(makeConfig(out, second), opt, resumed, stop);
            QVERIFY2(expected.isEmpty(), "the resume did not fail");
            QCOMPARE(resumed.values("loss").size(), size_t(1));  // step 3 only
        } catch (const fts::FormatError& e) {
            const QString m = e.what();
            QVERIFY2(!expected.isEmpty(), e.what());
            QVERIFY2(m.contains(QString::fromStdString((ckpt / "trainer_state.json").string())), e.what());
            QVERIFY2(m.contains(expected), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestTrainer)
#include "test_trainer.moc"
