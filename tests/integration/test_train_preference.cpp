// `fts train` with training.objective dpo / orpo / simpo against TRL 1.16's own trainers on the same tiny Llama,
// tokenizer and pairs (tests/data/preference, written by its make_fixture.py): the token ids of a pair equal TRL's,
// and over 10 steps every logged loss, reward, log-prob and logits metric, the gradient norm and the learning rate
// equal TRL's within 1e-5 relative; text and conversational pairs, full fine-tune and LoRA (from a PEFT adapter).
// Then the engine's own equivalences: the precomputed reference equals the frozen copy, switching the adapters off
// equals a copy of the base, a resumed run equals an uninterrupted one, ZeRO-2 on two ranks equals one rank; a mixture
// of experts adds its load-balancing loss.
// LibTorch before Qt: Qt's `slots` keyword macro would otherwise break LibTorch's headers.
#include "core/data/preference_pairs.h"
#include "core/model/language_model.h"
#include "core/data/unpaired_examples.h"
#include "core/data/tokenizer.h"

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
using fts::testing::runFts;
using fts::testing::series;

const fs::path kFixture = fs::path(FTS_SOURCE_DIR) / "tests" / "data" / "preference";

// A run of the fixture: `patch` merged into the base config (TRL's settings in the Trainer's names).
json fixtureConfig(const fs::path& out, const json& c) {
    const bool conv = c.value("data", std::string()) == "conv";
    const bool kto = c.value("objective", std::string()) == "kto";
    const std::string file = std::string(kto ? "kto_" : "") + (conv ? "conv.jsonl" : "text.jsonl");
    json cfg = {{"model", {{"path", (kFixture / "model").string()}}},
                {"data",
                 {{"train", (kFixture / file).string()},
                  {"format", "trl"},
                  {"shuffle", false},  // KTO pairs each example with the one before it for its KL: file order
                  {"template", "chatml"},
                  {"max_length", 128},
                  {"eval_fraction", 0}}},
                {"training",
                 {{"objective", c.value("objective", std::string("dpo"))},
                  {"output_dir", out.string()},
                  {"max_steps", 10},
                  {"learning_rate", 2e-3},
                  {"lr_scheduler_type", "linear"},
                  {"weight_decay", 0.0},
                  {"max_grad_norm", 1.0},
                  {"per_device_train_batch_size", c.value("micro", 2)},
                  {"log_interval", 1},
                  {"eval_interval", 0},
                  {"device", "cpu"},
                  {"seed", 42}}},
                {"deepspeed", {{"train_micro_batch_size_per_gpu", "auto"}}}};
    if (c.contains("adapter"))
        cfg["model"]["lora"] = {{"init_from", (kFixture / c["adapter"].get<std::string>()).string()}};
    if (c.contains("preference")) cfg["preference"] = c["preference"];
    return cfg;
}

struct Run {
    int64_t id = 0;
    CliResult result;
};

Run train(const fs::path& dir, const std::string& name, const json& cfg, const QStringList& extra = {}) {
    const fs::path file = dir / (name + ".json");
    std::ofstream(file) << cfg.dump(2);
    Run r;
    r.result = runFts(QStringList{"train", QString::fromStdString(file.string()), "--store",
                                  QString::fromStdString((dir / "runs.sqlite").string())} +
                      extra);
    fts::RunStore store((dir / "runs.sqlite").string());
    const auto runs = store.listRuns(0);
    for (const auto& run : runs)
        if (run.name == name) r.id = std::max(r.id, run.id);
    return r;
}

bool close(double ours, double theirs, double rel = 1e-5, double abs = 1e-6) {
    return std::abs(ours - theirs) <= abs + rel * std::abs(theirs);
}

}  // namespace

class TestTrainPreference : public QObject {
    Q_OBJECT
private slots:
    void tokenizationEqualsTrl_data();
    void tokenizationEqualsTrl();
    void stepsEqualTrl_data();
    void stepsEqualTrl();
    void referenceSourcesAgree();
    void resumeEqualsUninterrupted();
    void zero2OnTwoRanksEqualsOneRank();
    void mixtureOfExpertsAddsItsRouterLoss();

private:
    json m_expected = json::parse(fts::readFile(kFixture / "expected.json"));
};

void TestTrainPreference::tokenizationEqualsTrl_data() {
    QTest::addColumn<QString>("name");
    for (const json& c : m_expected["cases"])
        QTest::newRow(c["name"].get<std::string>().c_str()) << QString::fromStdString(c["name"].get<std::string>());
}

// The ids of the first pair as TRL's trainer tokenized it: DPO's prompt / chosen / rejected split, CPO and ORPO's
// BOS + prompt + answer + EOS with the prompt labelled -100.
void TestTrainPreference::tokenizationEqualsTrl() {
    QFETCH(QString, name);
    json c;
    for (const json& x : m_expected["cases"])
        if (x["name"] == name.toStdString()) c = x;
    auto tokenizer = fts::Tokenizer::fromFile(kFixture / "model" / "tokenizer.json");
    auto ids = [](const std::vector<int32_t>& v, int64_t from, int64_t to) {
        return std::vector<int64_t>(v.begin() + from, v.begin() + to);
    };
    fts::PreferenceOptions o;
    if (c["objective"] == "kto") {  // the first example, and its KL sequence: the chunk's last completion
        o.files.trainPath = kFixture / (c["data"] == "conv" ? "kto_conv.jsonl" : "kto_text.jsonl");
        o.files.chatTemplate = "chatml";
        o.files.maxLength = 128;
        o.files.shuffle = false;
        const fts::UnpairedData d = fts::buildUnpairedData(o, *tokenizer, c["micro"].get<int64_t>());
        QCOMPARE(d.train.size(), size_t(4));
        const fts::UnpairedExample& e = d.train[0];
        const json& t = c["tokens"];
        QCOMPARE(ids(e.sequence.ids, 0, e.sequence.promptLength), t["prompt_ids"].get<std::vector<int64_t>>());
        QCOMPARE(ids(e.sequence.ids, e.sequence.promptLength, int64_t(e.sequence.ids.size())),
                 t["completion_ids"].get<std::vector<int64_t>>());
        QCOMPARE(ids(e.kl.ids, e.kl.promptLength, int64_t(e.kl.ids.size())),
                 t["KL_completion_ids"].get<std::vector<int64_t>>());
        QCOMPARE(d.desirable, int64_t(2));
        return;
    }
    o.files.trainPath = kFixture / (c["data"] == "conv" ? "conv.jsonl" : "text.jsonl");
    o.files.chatTemplate = "chatml";
    o.files.maxLength = 128;
    o.files.shuffle = false;
    o.layout = fts::PairLayout::Trl;
    o.tokenization = c["objective"] == "dpo" ? fts::PairTokenization::Dpo : fts::PairTokenization::Cpo;
    const fts::PreferenceData data = fts::buildPreferenceData(o, *tokenizer);
    QCOMPARE(data.train.size(), size_t(8));
    const fts::PreferencePair& p = data.train[0];
    const json& t = c["tokens"];
    if (c["objective"] == "dpo") {
        const auto prompt = t["prompt_ids"].get<std::vector<int64_t>>();
        QCOMPARE(ids(p.chosen.ids, 0, p.chosen.promptLength), prompt);
        QCOMPARE(ids(p.chosen.ids, p.chosen.promptLength, int64_t(p.chosen.ids.size())),
                 t["chosen_ids"].get<std::vector<int64_t>>());
        QCOMPARE(ids(p.rejected.ids, p.rejected.promptLength, int64_t(p.rejected.ids.size())),
                 t["rejected_ids"].get<std::vector<int64_t>>());
    } else {
        QCOMPARE(ids(p.chosen.ids, 0, int64_t(p.chosen.ids.size())), t["chosen_input_ids"].get<std::vector<int64_t>>());
        QCOMPARE(ids(p.rejected.ids, 0, int64_t(p.rejected.ids.size())),
                 t["rejected_input_ids"].get<std::vector<int64_t>>());
        const auto labels = t["chosen_labels"].get<std::vector<int64_t>>();
        int64_t masked = 0;
        while (masked < int64_t(labels.size()) && labels[size_t(masked)] == -100) ++masked;
        QCOMPARE(p.chosen.promptLength, masked);
    }
}

void TestTrainPreference::stepsEqualTrl_data() { tokenizationEqualsTrl_data(); }

// Ten steps of each case: every metric TRL logged (but entropy, num_tokens and mean_token_accuracy, which are not
// built) equals ours at every step.
void TestTrainPreference::stepsEqualTrl() {
    QFETCH(QString, name);
    json c;
    for (const json& x : m_expected["cases"])
        if (x["name"] == name.toStdString()) c = x;
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    json cfg = fixtureConfig(dir / "out", c);
    if (c.contains("adapter") && (c["objective"] == "dpo" || c["objective"] == "kto"))  // the adapter is the reference
        cfg["preference"]["precompute_ref_log_probs"] = true;
    const Run run = train(dir, "case", cfg);
    QVERIFY2(run.result.exitCode == 0, qPrintable(run.result.err.right(3000)));
    fts::RunStore store((dir / "runs.sqlite").string());
    QStringList wrong;
    int compared = 0;
    // The float32 floor: rewards and DPO's loss are differences of summed log-probs (|logps| ~ 60 here, one ulp
    // ~ 4e-6), so they match to a few of those ulps times beta; the gradient norm carries every earlier step's
    // float32 differences and is held to 1e-4; KTO's KL estimate (a mean of differences of summed log-probs on the
    // mismatched sequences, which a tenth of their size amplifies) to 32 of those ulps.
    const double beta = c.contains("preference") ? c["preference"].value("beta", 0.1) : 0.1;
    auto floorAt = [&](size_t k) {
        const json& row = c["rows"][k];
        const double logps =
            std::max(std::abs(row.value("logps/chosen", 0.0)), std::abs(row.value("logps/rejected", 0.0)));
        return 4.0 * beta * std::ldexp(1.0, std::ilogb(std::max(logps, 1e-30)) - 23);
    };
    for (const auto& [key, value] : c["rows"][0].items()) {
        if (key == "step" || key == "entropy" || key == "num_tokens" || key == "mean_token_accuracy") continue;
        const std::string ours = key == "learning_rate" ? "lr" : key;
        const std::vector<double> s = series(store, run.id, ours);
        if (s.size() != c["rows"].size()) {
            wrong << QString("%1: %2 values, TRL %3").arg(ours.c_str()).arg(s.size()).arg(c["rows"].size());
            continue;
        }
        for (size_t k = 0; k < s.size(); ++k) {
            const double theirs = c["rows"][k][key].get<double>();
            ++compared;
            const bool gradNorm = key == "grad_norm";
            const double rel = gradNorm ? 1e-4 : 1e-5;
            if (key == "kl") {  // KTO's KL: a mean of differences of summed log-probs, 32 of their ulps
                if (!close(s[k], theirs, rel, std::max(1e-6, 8.0 * floorAt(k) / beta)))
                    wrong << QString("step %1 kl: ours %2, TRL %3")
                                 .arg(k + 1)
                                 .arg(s[k], 0, 'g', 9)
                                 .arg(theirs, 0, 'g', 9);
                continue;
            }
            if (!close(s[k], theirs, rel,
                       std::max(1e-6, c["objective"] == "dpo" || c["objective"] == "kto" ? floorAt(k) : 0.0)))
                wrong << QString("step %1 %2: ours %3, TRL %4")
                             .arg(k + 1)
                             .arg(ours.c_str())
                             .arg(s[k], 0, 'g', 9)
                             .arg(theirs, 0, 'g', 9);
        }
    }
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.mid(0, 30).join('\n')));
    QVERIFY(compared >= 100);
}

// The reference, three ways, gives the same run: a frozen copy of model.path, precomputed log-probs (kept in
// output_dir) and, with LoRA, the adapters switched off vs preference.ref_model = the base folder.
void TestTrainPreference::referenceSourcesAgree() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    json base = fixtureConfig(dir / "copy", {{"objective", "dpo"}, {"data", "text"}});
    base["training"]["max_steps"] = 4;
    const Run copy = train(dir, "copy", base);
    QVERIFY2(copy.result.exitCode == 0, qPrintable(copy.result.err.right(3000)));
    json pre = base;
    pre["training"]["output_dir"] = (dir / "pre").string();
    pre["preference"]["precompute_ref_log_probs"] = true;
    const Run precomputed = train(dir, "pre", pre);
    QVERIFY2(precomputed.result.exitCode == 0, qPrintable(precomputed.result.err.right(3000)));
    QVERIFY(fs::exists(dir / "pre" / "reference_logps.json"));
    fts::RunStore store((dir / "runs.sqlite").string());
    for (const char* m : {"loss", "rewards/chosen", "rewards/margins", "grad_norm"}) {
        const auto a = series(store, copy.id, m), b = series(store, precomputed.id, m);
        QCOMPARE(a.size(), size_t(4));
        QCOMPARE(b.size(), a.size());
        for (size_t k = 0; k < a.size(); ++k) QVERIFY2(close(a[k], b[k], 1e-6), m);
    }
    json lora = base;
    lora["training"]["output_dir"] = (dir / "lora").string();
    lora["model"]["lora"] = {{"r", 4}, {"lora_alpha", 8}, {"target_modules", {"q_proj", "v_proj"}}};
    lora["training"]["learning_rate"] = 2e-2;  // B starts at 0: a larger step so that the rewards move
    const Run off = train(dir, "off", lora);
    QVERIFY2(off.result.exitCode == 0, qPrintable(off.result.err.right(3000)));
    json withCopy = lora;
    withCopy["training"]["output_dir"] = (dir / "lora-copy").string();
    withCopy["preference"]["ref_model"] = (kFixture / "model").string();
    const Run copied = train(dir, "lora-copy", withCopy);
    QVERIFY2(copied.result.exitCode == 0, qPrintable(copied.result.err.right(3000)));
    fts::RunStore again((dir / "runs.sqlite").string());
    const auto a = series(again, off.id, "rewards/margins"), b = series(again, copied.id, "rewards/margins");
    QCOMPARE(a.size(), size_t(4));
    QCOMPARE(b, a);
    QVERIFY(std::abs(a.back()) > 1e-4);  // the adapters moved the policy away from the reference
}

// DPO with the reference precomputed: stopped after 3 steps and resumed to 6 (the reference read back from
// output_dir), every loss and reward equals the uninterrupted run's, bit for bit.
void TestTrainPreference::resumeEqualsUninterrupted() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    json base = fixtureConfig(dir / "straight", {{"objective", "dpo"}, {"data", "conv"}});
    base["training"]["lr_scheduler_type"] = "constant";
    base["training"]["max_steps"] = 6;
    base["training"]["save_interval"] = 3;
    base["preference"] = {{"precompute_ref_log_probs", true}, {"loss_type", "ipo"}};
    const Run straight = train(dir, "straight", base);
    QVERIFY2(straight.result.exitCode == 0, qPrintable(straight.result.err.right(3000)));
    json first = base;
    first["training"]["output_dir"] = (dir / "split").string();
    first["training"]["max_steps"] = 3;
    const Run a = train(dir, "split", first);
    QVERIFY2(a.result.exitCode == 0, qPrintable(a.result.err.right(3000)));
    QVERIFY(fs::exists(dir / "split" / "reference_logps.json"));
    json second = first;
    second["training"]["max_steps"] = 6;
    const Run b = train(dir, "split", second, {"--resume"});
    QVERIFY2(b.result.exitCode == 0, qPrintable(b.result.err.right(3000)));
    fts::RunStore store((dir / "runs.sqlite").string());
    for (const char* m : {"loss", "rewards/margins", "logps/chosen", "grad_norm"}) {
        const auto x = series(store, straight.id, m), y = series(store, b.id, m);
        QCOMPARE(x.size(), size_t(6));
        QCOMPARE(y, x);
    }
}

// ZeRO stage 2 on two ranks (one pair each, each rank with its frozen reference copy) equals one rank with both
// pairs in its micro-batch: DPO with the sft term, so that the losses, the rewards and the NLL all take part.
void TestTrainPreference::zero2OnTwoRanksEqualsOneRank() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    json one = fixtureConfig(dir / "one", {{"objective", "dpo"}, {"data", "conv"}});
    one["training"]["max_steps"] = 4;
    one["preference"] = {{"rpo_alpha", 0.5}};
    const Run single = train(dir, "one", one);
    QVERIFY2(single.result.exitCode == 0, qPrintable(single.result.err.right(3000)));
    json two = one;
    two["training"]["output_dir"] = (dir / "two").string();
    two["training"]["per_device_train_batch_size"] = 1;
    two["deepspeed"]["zero_optimization"] = {{"stage", 2}};
    const Run ranks = train(dir, "two", two, {"--nproc", "2"});
    QVERIFY2(ranks.result.exitCode == 0, qPrintable(ranks.result.err.right(3000)));
    fts::RunStore store((dir / "runs.sqlite").string());
    for (const char* m : {"loss", "rewards/margins", "rewards/accuracies", "logps/rejected"}) {
        const auto x = series(store, single.id, m), y = series(store, ranks.id, m);
        QCOMPARE(x.size(), size_t(4));
        QCOMPARE(y.size(), x.size());
        for (size_t k = 0; k < x.size(); ++k)
            QVERIFY2(close(y[k], x[k], 1e-5),
                     qPrintable(QString("%1 step %2: %3 vs %4").arg(m).arg(k + 1).arg(y[k]).arg(x[k])));
    }
}

// A mixture of experts with output_router_logits: the DPO loss gains router_aux_loss_coef x the policy's
// load-balancing loss (as TRL adds it), logged as aux_loss. Two runs that differ only in the coefficient log first-step
// losses (same weights) apart by exactly coefficient x aux_loss.
void TestTrainPreference::mixtureOfExpertsAddsItsRouterLoss() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    auto runWith = [&](const std::string& name, double coef) {
        const fs::path model = dir / (name + "-model");
        fs::create_directories(model);
        const json config = {{"model_type", "qwen3_moe"},
                             {"vocab_size", 320},
                             {"hidden_size", 32},
                             {"intermediate_size", 48},
                             {"num_hidden_layers", 2},
                             {"num_attention_heads", 4},
                             {"num_key_value_heads", 2},
                             {"head_dim", 8},
                             {"num_experts", 4},
                             {"num_experts_per_tok", 2},
                             {"moe_intermediate_size", 16},
                             {"output_router_logits", true},
                             {"router_aux_loss_coef", coef},
                             {"max_position_embeddings", 256},
                             {"tie_word_embeddings", false}};
        std::ofstream(model / "config.json") << config.dump(2);
        for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
            if (fs::exists(kFixture / "model" / f)) fs::copy_file(kFixture / "model" / f, model / f);
        {
            auto m = fts::initModelFromConfig(model / "config.json", 11, {});
            fts::saveHfModel(*m, model, torch::kFloat32);
        }
        json cfg = fixtureConfig(dir / name, {{"objective", "dpo"}, {"data", "conv"}});
        cfg["model"]["path"] = model.string();
        cfg["training"]["max_steps"] = 2;
        return train(dir, name, cfg);
    };
    const Run without = runWith("coef0", 0.0), with = runWith("coef05", 0.5);
    QVERIFY2(without.result.exitCode == 0, qPrintable(without.result.err.right(3000)));
    QVERIFY2(with.result.exitCode == 0, qPrintable(with.result.err.right(3000)));
    fts::RunStore store((dir / "runs.sqlite").string());
    const auto loss0 = series(store, without.id, "loss"), loss5 = series(store, with.id, "loss");
    const auto aux = series(store, with.id, "aux_loss");
    QCOMPARE(aux.size(), size_t(2));
    QVERIFY2(aux[0] >= 2.0 - 1e-6, "the load-balancing loss is at least num_experts_per_tok (2)");
    QVERIFY2(close(loss5[0] - loss0[0], 0.5 * aux[0], 1e-4),
             qPrintable(QString("loss difference %1, 0.5 x aux_loss %2").arg(loss5[0] - loss0[0]).arg(0.5 * aux[0])));
}

QTEST_GUILESS_MAIN(TestTrainPreference)
#include "test_train_preference.moc"
