// `fts train` with model.lora on a pretrained copy of the quick-start GPT-2 (dropout on): checkpoints hold the PEFT
// adapter and no model weights; a resumed LoRA run equals an uninterrupted one (losses, adapter, merged export, bit
// for bit); the merged export changes only the adapted weights; merge_on_export false exports the adapter alone;
// `fts export` turns a LoRA checkpoint into a merged folder of the chosen dtype plus adapter/.
// LibTorch before Qt: Qt's `slots` keyword macro would otherwise break LibTorch's headers.
#include "core/model/language_model.h"
#include "core/model/safetensors_torch.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>

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
using fts::testing::series;
using fts::testing::writeConfig;

void expectSameTensors(const fs::path& a, const fs::path& b) {
    auto ta = fts::loadSafetensors(a);
    auto tb = fts::loadSafetensors(b);
    QCOMPARE(ta.size(), tb.size());
    QVERIFY(!ta.empty());
    for (const auto& [name, t] : ta) {
        QVERIFY2(tb.count(name) == 1, name.c_str());
        QVERIFY2(torch::equal(t, tb.at(name)), name.c_str());
    }
}

}  // namespace

class TestTrainLoraCli : public QObject {
    Q_OBJECT
private slots:
    void resumeEqualsUninterruptedAndExports();
    void zero3OnTwoRanksEqualsStageZeroOnOne();
};

void TestTrainLoraCli::resumeEqualsUninterruptedAndExports() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    // The "pretrained" base: the quick-start GPT-2 with dropout on, seeded weights saved as an HF folder.
    const fs::path modelDir = dir / "base";
    {
        json mcfg = json::parse(fts::readFile(kQuickstart / "model" / "config.json"));
        mcfg["attn_pdrop"] = mcfg["resid_pdrop"] = mcfg["embd_pdrop"] = 0.1;
        fs::create_directories(modelDir);
        std::ofstream(modelDir / "config.json") << mcfg.dump(2);
        auto model = fts::initModelFromConfig(modelDir / "config.json", 5, {});
        fts::saveHfModel(*model, modelDir, torch::kFloat32);
        for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
            fs::copy_file(kQuickstart / "model" / f, modelDir / f);
    }
    const int N = 3;
    json base = {
        {"model",
         {{"path", modelDir.string()},
          {"init", "pretrained"},
          {"lora", {{"r", 4}, {"lora_alpha", 8}, {"lora_dropout", 0.1}, {"target_modules", {"c_attn", "c_fc"}}}}}},
        {"training", {{"save_interval", N}, {"eval_interval", 0}, {"eval_batches", 2}}},
        {"deepspeed",
         {{"train_micro_batch_size_per_gpu", 4},
          {"gradient_accumulation_steps", 2},
          {"optimizer", {{"params", {{"lr", 0.01}}}}},
          {"scheduler", {{"params", {{"total_num_steps", 2 * N}, {"warmup_num_steps", 2}}}}}}}};
    const fs::path storeFile = dir / "runs.sqlite";
    const QString store = QString::fromStdString(storeFile.string());

    json straight = base;
    straight["training"]["max_steps"] = 2 * N;
    CliResult a =
        runFts({"train", QString::fromStdString(writeConfig(dir, "straight", straight).string()), "--store", store});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));

    json first = base;
    first["training"]["max_steps"] = N;
    first["model"]["lora"]["merge_on_export"] = false;
    CliResult b1 =
        runFts({"train", QString::fromStdString(writeConfig(dir, "split", first).string()), "--store", store});
    QVERIFY2(b1.exitCode == 0, qPrintable(b1.err));
    // A LoRA checkpoint: the PEFT adapter, optimizer and RNG state, no model weights.
    const fs::path ckpt = dir / "split-out" / "checkpoints" / "step-00000003";
    QVERIFY(fs::exists(ckpt / "adapter_config.json") && fs::exists(ckpt / "adapter_model.safetensors"));
    QVERIFY(fs::exists(ckpt / "optimizer.safetensors") && !fs::exists(ckpt / "model.safetensors"));
    const json adapterCfg = json::parse(fts::readFile(ckpt / "adapter_config.json"));
    QCOMPARE(adapterCfg.at("peft_type").get<std::string>(), std::string("LORA"));
    QCOMPARE(adapterCfg.at("task_type").get<std::string>(), std::string("CAUSAL_LM"));
    QVERIFY(adapterCfg.at("fan_in_fan_out").get<bool>());  // GPT-2's Conv1D
    QCOMPARE(adapterCfg.at("base_model_name_or_path").get<std::string>(), modelDir.string());
    // merge_on_export false: final/ is the adapter folder alone.
    const fs::path firstFinal = dir / "split-out" / "final";
    QVERIFY(fs::exists(firstFinal / "adapter_model.safetensors") && !fs::exists(firstFinal / "model.safetensors"));

    json second = base;
    second["training"]["max_steps"] = 2 * N;
    CliResult b2 = runFts(
        {"train", QString::fromStdString(writeConfig(dir, "split", second).string()), "--store", store, "--resume"});
    QVERIFY2(b2.exitCode == 0, qPrintable(b2.err));

    fts::RunStore s(storeFile, true);
    int64_t straightId = 0, splitId = 0;
    for (const auto& r : s.listRuns())
        (r.configPath.find("straight") != std::string::npos ? straightId : splitId) = r.id;
    auto la = series(s, straightId, "loss"), lb = series(s, splitId, "loss");
    QCOMPARE(la.size(), size_t(2 * N));
    QCOMPARE(lb.size(), size_t(2 * N));
    for (int i = 0; i < 2 * N; ++i)
        QVERIFY2(la[i] == lb[i],
                 qPrintable(QString("step %1: %2 vs %3").arg(i + 1).arg(la[i], 0, 'g', 17).arg(lb[i], 0, 'g', 17)));
    QVERIFY(la.back() < la.front());

    const fs::path fa = dir / "straight-out" / "final", fb = dir / "split-out" / "final";
    expectSameTensors(fa / "adapter" / "adapter_model.safetensors", fb / "adapter" / "adapter_model.safetensors");
    expectSameTensors(fa / "model.safetensors", fb / "model.safetensors");
    QVERIFY(!fs::exists(fb / "adapter_config.json"));  // the first half's adapter-only export does not linger

    // The merged export differs from the base exactly in the adapted weights.
    auto merged = fts::loadSafetensors(fa / "model.safetensors");
    auto original = fts::loadSafetensors(modelDir / "model.safetensors");
    for (const auto& [name, t] : original) {
        const bool adapted = name.ends_with("attn.c_attn.weight") || name.ends_with("mlp.c_fc.weight");
        QVERIFY2(merged.count(name) == 1, name.c_str());
        QVERIFY2(torch::equal(t, merged.at(name)) != adapted, name.c_str());
    }

    // fts export of a LoRA run's output dir: merged in bf16, plus the adapter.
    const fs::path exported = dir / "exported";
    CliResult e = runFts({"export", QString::fromStdString((dir / "split-out").string()), "--out",
                          QString::fromStdString(exported.string()), "--dtype", "bfloat16"});
    QVERIFY2(e.exitCode == 0, qPrintable(e.err));
    auto bf16 = fts::loadSafetensors(exported / "model.safetensors");
    QVERIFY(!bf16.empty());
    for (const auto& [name, t] : bf16) {
        QCOMPARE(t.scalar_type(), torch::kBFloat16);
        QVERIFY2(torch::equal(t, merged.at(name).to(torch::kBFloat16)), name.c_str());
    }
    QVERIFY(fs::exists(exported / "adapter" / "adapter_config.json") && fs::exists(exported / "tokenizer.json"));
}

// ZeRO stage 3 with LoRA on 2 ranks (the frozen base partitioned: persistence threshold 10, so every weight is cut
// in two) gives the losses of LoRA at stage 0 on 1 rank with the same global batch; a stage-3 LoRA run resumed
// halfway equals the uninterrupted one bit for bit; its adapter loads in PEFT and PEFT's merge equals our export.
void TestTrainLoraCli::zero3OnTwoRanksEqualsStageZeroOnOne() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const fs::path modelDir = dir / "base";
    {
        json mcfg = json::parse(fts::readFile(kQuickstart / "model" / "config.json"));
        mcfg["attn_pdrop"] = mcfg["resid_pdrop"] = mcfg["embd_pdrop"] = 0.0;  // ranks draw different dropout masks
        fs::create_directories(modelDir);
        std::ofstream(modelDir / "config.json") << mcfg.dump(2);
        auto model = fts::initModelFromConfig(modelDir / "config.json", 11, {});
        fts::saveHfModel(*model, modelDir, torch::kFloat32);
        for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
            fs::copy_file(kQuickstart / "model" / f, modelDir / f);
    }
    const int steps = 6;
    json base = {{"model",
                  {{"path", modelDir.string()},
                   {"init", "pretrained"},
                   {"lora", {{"r", 4}, {"lora_alpha", 8}, {"target_modules", {"c_attn", "c_fc", "c_proj"}}}}}},
                 {"data", {{"max_length", 32}}},
                 {"training", {{"max_steps", steps}, {"save_interval", 3}, {"eval_interval", 0}, {"eval_batches", 1}}},
                 {"deepspeed",
                  {{"train_micro_batch_size_per_gpu", 4},
                   {"gradient_accumulation_steps", 2},
                   {"optimizer", {{"params", {{"lr", 0.03}, {"weight_decay", 0.01}}}}},
                   {"scheduler", nullptr},
                   {"zero_optimization", {{"stage", 0}}}}}};
    const fs::path storeFile = dir / "runs.sqlite";
    const QString store = QString::fromStdString(storeFile.string());
    auto run = [&](const std::string& name, const json& patch, QStringList extra) {
        json cfg = base;
        cfg.merge_patch(patch);
        QStringList args = {"train", QString::fromStdString(writeConfig(dir, name, cfg).string()), "--store", store,
                            "--quiet"};
        args += extra;
        CliResult r = runFts(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    };
    const json zero3 = {{"deepspeed",
                         {{"train_micro_batch_size_per_gpu", 2},
                          {"zero_optimization", {{"stage", 3}, {"stage3_param_persistence_threshold", 10}}}}}};
    run("stage0", json::object(), {});
    run("stage3", zero3, {"--nproc", "2"});
    json half = zero3;
    half["training"]["max_steps"] = steps / 2;
    run("split", half, {"--nproc", "2"});
    run("split", zero3, {"--nproc", "2", "--resume"});

    fts::RunStore s(storeFile, true);
    std::map<std::string, int64_t> ids;
    for (const auto& r : s.listRuns())
        ids[fs::path(r.configPath).stem().string()] = r.id;  // the resumed run is the same run
    const auto l0 = series(s, ids["stage0"], "loss"), l3 = series(s, ids["stage3"], "loss"),
               ls = series(s, ids["split"], "loss");
    QCOMPARE(l0.size(), size_t(steps));
    QCOMPARE(l3.size(), size_t(steps));
    QCOMPARE(ls.size(), size_t(steps));
    for (int i = 0; i < steps; ++i) {
        QVERIFY2(std::abs(l3[i] - l0[i]) <= 1e-5 * std::abs(l0[i]),
                 qPrintable(QString("step %1: stage 3 on 2 ranks %2, stage 0 on 1 rank %3")
                                .arg(i + 1)
                                .arg(l3[i], 0, 'g', 17)
                                .arg(l0[i], 0, 'g', 17)));
        QVERIFY2(ls[i] == l3[i], qPrintable(QString("step %1: resumed %2, uninterrupted %3")
                                                .arg(i + 1)
                                                .arg(ls[i], 0, 'g', 17)
                                                .arg(l3[i], 0, 'g', 17)));
    }
    // The adapters learn: the last step's loss is below the first one's (6 steps of the same run, lr 0.01).
    QVERIFY2(l3.back() < l3.front(), qPrintable(QString("loss %1 -> %2").arg(l3.front()).arg(l3.back())));
    // A stage-3 LoRA checkpoint is a LoRA checkpoint: the PEFT adapter, no weight shards.
    const fs::path ckpt = dir / "stage3-out" / "checkpoints" / "step-00000003";
    QVERIFY(fs::exists(ckpt / "adapter_model.safetensors") && !fs::exists(ckpt / "model.safetensors"));
    expectSameTensors(dir / "split-out" / "final" / "adapter" / "adapter_model.safetensors",
                      dir / "stage3-out" / "final" / "adapter" / "adapter_model.safetensors");

    // PEFT loads the adapter onto the base and merges it into what our export holds.
    const fs::path finalDir = dir / "stage3-out" / "final";
    QProcess py;
    py.start(QString::fromUtf8(FTS_TEST_PYTHON),
             {"-c",
              "import sys, torch\n"
              "from transformers import AutoModelForCausalLM\n"
              "from peft import PeftModel\n"
              "from safetensors.torch import load_file\n"
              "base = AutoModelForCausalLM.from_pretrained(sys.argv[1], torch_dtype=torch.float32)\n"
              "merged = PeftModel.from_pretrained(base, sys.argv[2]).merge_and_unload()\n"
              "ours = load_file(sys.argv[3])\n"
              "sd = merged.state_dict()\n"
              "worst = max((sd[k] - v).abs().max().item() for k, v in ours.items() if k in sd)\n"
              "print(len([k for k in ours if k in sd]), worst)\n",
              QString::fromStdString(modelDir.string()), QString::fromStdString((finalDir / "adapter").string()),
              QString::fromStdString((finalDir / "model.safetensors").string())});
    QVERIFY(py.waitForFinished(300000));
    QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
    const QStringList out = QString::fromUtf8(py.readAllStandardOutput()).trimmed().split('\n').last().split(' ');
    QCOMPARE(out.size(), 2);
    QVERIFY2(out[0].toInt() > 10, qPrintable(out.join(' ')));
    QVERIFY2(out[1].toDouble() < 1e-5, qPrintable("PEFT's merge differs from our export by " + out[1]));
}

QTEST_APPLESS_MAIN(TestTrainLoraCli)
#include "test_train_lora_cli.moc"
