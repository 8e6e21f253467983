// `fts train` end to end on every decoder family core/arch describes beyond the quick-start's GPT-2 (tiny random
// models over the quick-start tokenizer, Gloo on the CPU): ZeRO stage 3 on 2 ranks with activation checkpointing and
// stage 2 on 2 ranks give stage 0's losses on one rank at every step (stage 3: the same final weights; a mixture of
// experts with its load-balancing loss: stage 0's on 2 ranks, whose micro-batches are the same); a run stopped
// after 3 steps and resumed equals one run straight, to the bit; fp16 with a dynamic loss scale trains; the run's
// final/ folder loads back and LoRA (all-linear) in bf16 with the chunked loss trains over it.
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
    // mixtures of experts; Qwen3-MoE with the load-balancing loss in the loss (its gradient crosses ZeRO-3's
    // checkpointed blocks)
    if (type == "mixtral") c["num_local_experts"] = 4, c["num_experts_per_tok"] = 2;
    if (type == "gpt_oss")
        c["head_dim"] = 8, c["num_local_experts"] = 4, c["num_experts_per_tok"] = 2, c["sliding_window"] = 8,
        c["swiglu_limit"] = 1.0;
    if (type == "qwen3_moe")
        c["head_dim"] = 16, c["num_experts"] = 4, c["num_experts_per_tok"] = 2, c["moe_intermediate_size"] = 24,
        c["num_hidden_layers"] = 3, c["mlp_only_layers"] = json::array({1}), c["norm_topk_prob"] = true,
        c["output_router_logits"] = true, c["router_aux_loss_coef"] = 0.05;
    return c;
}

const std::vector<std::string> kFamilies = {"qwen3",   "gemma2",  "gemma3_text", "phi3",      "olmo2",
                                            "granite", "smollm3", "mixtral",     "qwen3_moe", "gpt_oss"};

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
        // The load-balancing loss is a function of each micro-batch's tokens (as in transformers), so with it the
        // reference is stage 0 over the same micro-batches: 2 ranks; without it, 1 rank.
        const bool routerLoss = familyConfig(type).value("output_router_logits", false);
        const int referenceRanks = routerLoss ? 2 : 1;
        const fs::path one = fts::testing::writeConfig(dir, "one", referenceRanks, 0, modelPatch);
        const fs::path three = fts::testing::writeConfig(
            dir, "z3", 2, 3,
            {{"model", {{"path", model.string()}, {"init", "random"}, {"activation_checkpointing", true}}}});
        CliResult r = runFts(
            {"train", q(one), "--store", q(dir / "one.sqlite"), "--quiet", "--nproc", QString::number(referenceRanks)});
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
        qInfo(
            "%s: stage 3 on 2 ranks + checkpointing vs stage 0 on %d: worst loss rel. diff %.3g, weights rel. L2 "
            "%.3g",
            type.c_str(), referenceRanks, worst, w);
        QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
        QVERIFY2(w <= 1e-5, qPrintable(QString::number(w)));
        if (routerLoss) {  // logged beside the loss, equal too
            const auto auxA = series(a, a.listRuns().at(0).id, "aux_loss"),
                       auxB = series(b, b.listRuns().at(0).id, "aux_loss");
            QVERIFY2(!auxA.empty() && auxA.size() == auxB.size(), "aux_loss logged on both");
            for (size_t i = 0; i < auxA.size(); ++i) QVERIFY(std::abs(auxA[i] - auxB[i]) <= 1e-5 * auxA[i]);
            // experts x sum_e (share of the top-k assignments) x (mean probability) is at least top-k (2) = balanced
            QVERIFY2(auxA.front() >= 2.0 - 1e-6, "the load-balancing loss is at least num_experts_per_tok");
        }

        // ZeRO-2 on 2 ranks: stage 0's losses too.
        r = runFts({"train", q(fts::testing::writeConfig(dir, "z2", 2, 2, modelPatch)), "--store", q(dir / "z2.sqlite"),
                    "--quiet", "--nproc", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        fts::RunStore z2(dir / "z2.sqlite", true);
        const auto lossZ2 = series(z2, z2.listRuns().at(0).id, "loss");
        QCOMPARE(lossZ2.size(), lossA.size());
        for (size_t i = 0; i < lossA.size(); ++i)
            QVERIFY2(std::abs(lossZ2[i] - lossA[i]) <= 1e-5 * lossA[i],
                     qPrintable(QString("stage 2, step %1").arg(i + 1)));

        // Stopped after 3 steps and resumed to 6: the same losses and weights as 6 steps straight, to the bit.
        const json half = {{"model", {{"path", model.string()}, {"init", "random"}}},
                           {"training", {{"max_steps", 3}, {"save_interval", 3}}},
                           {"deepspeed", {{"scheduler", {{"params", {{"total_num_steps", 6}}}}}}}};
        json full = half;
        full["training"]["max_steps"] = 6;
        const fs::path rs = dir / "resume.sqlite";
        r = runFts({"train", q(fts::testing::writeConfig(dir, "straight", 1, 0, full)), "--store", q(rs), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runFts({"train", q(fts::testing::writeConfig(dir, "split", 1, 0, half)), "--store", q(rs), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runFts(
            {"train", q(fts::testing::writeConfig(dir, "split", 1, 0, full)), "--store", q(rs), "--quiet", "--resume"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        {
            fts::RunStore s(rs, true);
            int64_t straightId = 0, splitId = 0;
            for (const auto& run : s.listRuns())
                (run.configPath.find("straight") != std::string::npos ? straightId : splitId) = run.id;
            const auto la = series(s, straightId, "loss"), lb = series(s, splitId, "loss");
            QCOMPARE(la.size(), size_t(6));
            QCOMPARE(lb.size(), size_t(6));
            for (size_t i = 0; i < la.size(); ++i)
                QVERIFY2(la[i] == lb[i],
                         qPrintable(QString("resumed, step %1: %2 vs %3").arg(i + 1).arg(lb[i]).arg(la[i])));
            QCOMPARE(relL2(fts::loadSafetensors(dir / "split-out" / "final" / "model.safetensors"),
                           fts::loadSafetensors(dir / "straight-out" / "final" / "model.safetensors")),
                     0.0);
        }

        // fp16 with DeepSpeed's dynamic loss scale (stage 0): it trains.
        const json fp16 = {{"model", {{"path", model.string()}, {"init", "random"}}},
                           {"deepspeed", {{"fp16", {{"enabled", true}, {"initial_scale_power", 16}}}}}};
        r = runFts({"train", q(fts::testing::writeConfig(dir, "fp16", 1, 0, fp16)), "--store", q(dir / "fp16.sqlite"),
                    "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        {
            fts::RunStore s(dir / "fp16.sqlite", true);
            const auto l = series(s, s.listRuns().at(0).id, "loss");
            QVERIFY(l.size() >= 20);
            double first = 0, last = 0;
            for (size_t i = 0; i < 10; ++i) first += l[i] / 10, last += l[l.size() - 1 - i] / 10;
            qInfo("%s: fp16 mean loss of the first 10 steps %.4f, of the last 10 %.4f", type.c_str(), first, last);
            QVERIFY2(std::isfinite(last) && last < first, "fp16 trained");
        }

        // LoRA over the trained model, bf16, the chunked loss: it trains and saves PEFT's adapter (a mixture of
        // experts: its expert tensors too, PEFT's target_parameters).
        json loraSection = {{"r", 4}, {"lora_alpha", 8}, {"target_modules", "all-linear"}};
        if (familyConfig(type).contains("num_experts_per_tok"))
            loraSection["target_parameters"] = {"mlp.experts.gate_up_proj", "mlp.experts.down_proj"};
        const fs::path lora = fts::testing::writeConfig(
            dir, "lora", 1, 0,
            {{"model",
              {{"path", (dir / "one-out" / "final").string()},
               {"init", "pretrained"},
               {"chunked_loss", true},
               {"lora", loraSection}}},
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
