// `fts train` end to end on every decoder family core/arch describes beyond the quick-start's GPT-2 (tiny random
// models over the quick-start tokenizer, Gloo on the CPU): ZeRO stage 3 on 2 ranks with activation checkpointing
// gives stage 0's losses on one rank at every step and the same final weights; the run's final/ folder loads back
// and LoRA (all-linear) in bf16 with the chunked loss trains over it, its adapter saved as PEFT's.
// LibTorch before Qt: Qt's `slots` keyword macro would otherwise break LibTorch's headers.
#include "core/model/safetensors_torch.h"
#include "tests/integration/zero_run_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/arch/decoder_family.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using fts::testing::CliResult;
using fts::testing::q;
using fts::testing::relL2;
using fts::testing::runFts;
using fts::testing::series;

// A 2-layer, 32-wide model of the family over the quick-start's 590-token vocabulary, with the family's optional
// parts switched on where they are optional (windows shorter than the 32-token rows, soft-capping, biases).
json familyConfig(const std::string& type) {
    json c = {{"model_type", type},
              {"vocab_size", 590},
              {"hidden_size", 32},
              {"intermediate_size", 64},
              {"num_hidden_layers", 2},
              {"num_attention_heads", 4},
              {"num_key_value_heads", 2},
              {"max_position_embeddings", 64},
              {"tie_word_embeddings", false},
              {"bos_token_id", 0},
              {"eos_token_id", 0}};
    if (type == "qwen3") c["head_dim"] = 16;
    if (type == "gemma2" || type == "gemma3_text") {
        c["head_dim"] = 8;
        c["query_pre_attn_scalar"] = 8;
        c["sliding_window"] = 8;
        c["pad_token_id"] = 0;
    }
    if (type == "gemma2") c["attn_logit_softcapping"] = 5.0, c["final_logit_softcapping"] = 10.0;
    if (type == "gemma3_text") c["sliding_window_pattern"] = 2, c["final_logit_softcapping"] = 10.0;
    if (type == "phi3") c["partial_rotary_factor"] = 0.5, c["pad_token_id"] = 0;
    if (type == "olmo2") c["attention_bias"] = true, c["pad_token_id"] = 0;
    if (type == "granite")
        c["embedding_multiplier"] = 4.0, c["attention_multiplier"] = 0.2, c["residual_multiplier"] = 0.5,
        c["logits_scaling"] = 2.0;
    if (type == "smollm3") c["no_rope_layer_interval"] = 2, c["use_sliding_window"] = true, c["sliding_window"] = 8;
    return c;
}

const std::vector<std::string> kFamilies = {"qwen3", "gemma2", "gemma3_text", "phi3", "olmo2", "granite", "smollm3"};

}  // namespace

class TestTrainFamilies : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_dir;

    fs::path writeModel(const std::string& type) {
        const fs::path model = m_dir / type / "model";
        fs::create_directories(model);
        std::ofstream(model / "config.json") << familyConfig(type).dump(2);
        for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
            fs::copy_file(fts::testing::kQuickstart / "model" / f, model / f, fs::copy_options::overwrite_existing);
        return model;
    }

private slots:
    void initTestCase() {
        m_dir = m_tmp.path().toStdString();
        // Every family the table describes is either here or the quick-start's own kind of test.
        for (const auto& f : fts::decoderFamilies()) {
            const std::string t(f.modelType);
            const bool covered = std::find(kFamilies.begin(), kFamilies.end(), t) != kFamilies.end() || t == "llama" ||
                                 t == "mistral" || t == "qwen2";
            QVERIFY2(covered, qPrintable("no end-to-end training case for " + QString::fromStdString(t)));
        }
    }

    void zero3MatchesStage0_data() {
        QTest::addColumn<QString>("family");
        for (const auto& f : kFamilies) QTest::newRow(f.c_str()) << QString::fromStdString(f);
    }
    void zero3MatchesStage0() {
        QFETCH(QString, family);
        const std::string type = family.toStdString();
        const fs::path dir = m_dir / type;
        fs::create_directories(dir);
        fts::testing::writeTinyModelAndData(dir);  // the stories (and a GPT-2 folder this test does not use)
        const fs::path model = writeModel(type);
        const json modelPatch = {{"model", {{"path", model.string()}, {"init", "random"}}}};
        const fs::path one = fts::testing::writeConfig(dir, "one", 1, 0, modelPatch);
        const fs::path three = fts::testing::writeConfig(
            dir, "z3", 2, 3,
            {{"model", {{"path", model.string()}, {"init", "random"}, {"activation_checkpointing", true}}}});
        CliResult r = runFts({"train", q(one), "--store", q(dir / "one.sqlite"), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runFts({"train", q(three), "--store", q(dir / "z3.sqlite"), "--quiet", "--nproc", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        fts::RunStore a(dir / "one.sqlite", true), b(dir / "z3.sqlite", true);
        const auto lossA = series(a, a.listRuns().at(0).id, "loss"), lossB = series(b, b.listRuns().at(0).id, "loss");
        QCOMPARE(lossA.size(), size_t(fts::testing::kZeroSteps));
        QCOMPARE(lossB.size(), lossA.size());
        QVERIFY2(lossA.back() < lossA.front(), "it trained");
        double worst = 0;
        for (size_t i = 0; i < lossA.size(); ++i) worst = std::max(worst, std::abs(lossB[i] - lossA[i]) / lossA[i]);
        const double w = relL2(fts::loadSafetensors(dir / "z3-out" / "final" / "model.safetensors"),
                               fts::loadSafetensors(dir / "one-out" / "final" / "model.safetensors"));
        qInfo("%s: stage 3 on 2 ranks + checkpointing vs stage 0: worst loss rel. diff %.3g, weights rel. L2 %.3g",
              type.c_str(), worst, w);
        QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
        QVERIFY2(w <= 1e-5, qPrintable(QString::number(w)));

        // LoRA over the trained model, bf16, the chunked loss: it trains and saves PEFT's adapter.
        const fs::path lora = fts::testing::writeConfig(
            dir, "lora", 1, 0,
            {{"model",
              {{"path", (dir / "one-out" / "final").string()},
               {"init", "pretrained"},
               {"chunked_loss", true},
               {"lora", {{"r", 4}, {"lora_alpha", 8}, {"target_modules", "all-linear"}}}}},
             {"deepspeed",
              {{"bf16", {{"enabled", true}}},
               {"optimizer", {{"params", {{"lr", 0.01}}}}},
               {"scheduler", {{"params", {{"warmup_max_lr", 0.01}, {"warmup_num_steps", 5}}}}}}}});
        r = runFts({"train", q(lora), "--store", q(dir / "lora.sqlite"), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        fts::RunStore l(dir / "lora.sqlite", true);
        const auto lossL = series(l, l.listRuns().at(0).id, "loss");
        QCOMPARE(lossL.size(), size_t(fts::testing::kZeroSteps));
        // per-step losses are of different batches: the mean of the last ten against the first ten
        double first = 0, last = 0;
        for (size_t i = 0; i < 10; ++i) first += lossL[i] / 10, last += lossL[lossL.size() - 1 - i] / 10;
        qInfo("%s: LoRA (bf16, chunked loss) mean loss of the first 10 steps %.4f, of the last 10 %.4f", type.c_str(),
              first, last);
        QVERIFY2(std::isfinite(last) && last < first, "LoRA trained");
        QVERIFY2(fs::exists(dir / "lora-out" / "final" / "adapter_model.safetensors") ||
                     fs::exists(dir / "lora-out" / "final" / "adapter" / "adapter_model.safetensors") ||
                     fs::exists(dir / "lora-out" / "final" / "model.safetensors"),
                 "the LoRA run's export");
    }
};

QTEST_APPLESS_MAIN(TestTrainFamilies)
#include "test_train_families.moc"
