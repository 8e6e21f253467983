// training.objective and the "preference" section: TRL 1.16's names and defaults read and written back; the keys an
// objective does not use warned about by name; TRL keys that are not built, removed or contradictory refused by
// name; the rules relating it to the data and ZeRO sections.
#include <QtTest>

#include "core/config/train_config.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {

const std::filesystem::path kDir = (std::string(FTS_TEST_DATA_DIR) + "/config");

ConfigParseResult parseWith(const json& patch) {
    json doc = json::parse(R"({"model": {"path": "../models/gpt2"}, "data": {"train": "train.jsonl"},
        "training": {"output_dir": "out", "max_steps": 10}, "deepspeed": {"train_micro_batch_size_per_gpu": 2}})");
    doc.merge_patch(patch);
    return parseTrainConfig(doc, kDir, 1);
}

// "key: message" of every issue, errors and warnings.
std::string issues(const ConfigParseResult& r) {
    std::string out;
    for (const ConfigIssue& i : r.issues) out += (i.isError ? "E " : "W ") + i.keyPath + ": " + i.message + "\n";
    return out;
}

bool has(const ConfigParseResult& r, const std::string& key, const std::string& part, bool error) {
    for (const ConfigIssue& i : r.issues)
        if (i.keyPath == key && i.isError == error && i.message.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

class TestPreferenceSection : public QObject {
    Q_OBJECT
private slots:
    // TRL's defaults; data.format becomes "auto"; the resolved config carries the section and parses back the same.
    void defaultsAndRoundTrip() {
        const ConfigParseResult r = parseWith({{"training", {{"objective", "dpo"}}}});
        QVERIFY2(r.ok(), issues(r).c_str());
        const TrainConfig& c = *r.config;
        QCOMPARE(c.training.objective, std::string("dpo"));
        QCOMPARE(c.data.format, std::string("auto"));
        QCOMPARE(c.preference.beta, 0.1);
        QCOMPARE(c.preference.lossTypes, std::vector<std::string>{"sigmoid"});
        QCOMPARE(c.preference.truncationMode, std::string("keep_start"));
        QVERIFY(c.preference.disableDropout);
        const json resolved = configToResolvedJson(c);
        QCOMPARE(resolved["training"]["objective"], json("dpo"));
        QCOMPARE(resolved["preference"]["loss_type"], json("sigmoid"));
        const ConfigParseResult again = parseTrainConfig(resolved, kDir, 1);
        QVERIFY2(again.ok(), issues(again).c_str());
        QCOMPARE(configToResolvedJson(*again.config), resolved);
        QVERIFY(!configToResolvedJson(*parseWith({}).config).contains("preference"));  // sft: no section
        QVERIFY(!resolved["data"].contains("cache_dir"));                              // pairs are not cached
        // The instruction keys apply (format "auto" by default): no "format is lm" warning for the template.
        const ConfigParseResult t =
            parseWith({{"training", {{"objective", "dpo"}}}, {"data", {{"template", "chatml"}, {"cache_dir", "c"}}}});
        QVERIFY2(t.ok() && !has(t, "data.template", "", false), issues(t).c_str());
        QVERIFY2(has(t, "data.cache_dir", "no token cache", false), issues(t).c_str());
    }

    // A list of loss types with weights; older TRL's rpo_alpha becomes the "sft" term; SimPO's keys.
    void lossTypesAndWeights() {
        ConfigParseResult r =
            parseWith({{"training", {{"objective", "dpo"}}},
                       {"preference", {{"loss_type", {"sigmoid", "bco_pair"}}, {"loss_weights", {0.8, 0.2}}}}});
        QVERIFY2(r.ok(), issues(r).c_str());
        QCOMPARE(r.config->preference.lossWeights, (std::vector<double>{0.8, 0.2}));
        r = parseWith({{"training", {{"objective", "dpo"}}}, {"preference", {{"rpo_alpha", 0.5}}}});
        QVERIFY2(r.ok(), issues(r).c_str());
        QCOMPARE(r.config->preference.lossTypes, (std::vector<std::string>{"sigmoid", "sft"}));
        QCOMPARE(r.config->preference.lossWeights, (std::vector<double>{1.0, 0.5}));
        r = parseWith({{"training", {{"objective", "simpo"}}},
                       {"preference", {{"beta", 2.0}, {"simpo_gamma", 1.0}, {"cpo_alpha", 0}}}});
        QVERIFY2(r.ok(), issues(r).c_str());
        QCOMPARE(r.config->preference.cpoAlpha, 0.0);
        QCOMPARE(configToResolvedJson(*r.config)["preference"]["simpo_gamma"], json(1.0));
    }

    // Refused or warned, each by its key.
    void badValuesNamed() {
        ConfigParseResult r = parseWith({{"training", {{"objective", "ppo"}}}});
        QVERIFY2(has(r, "training.objective", "expected one of sft, dpo, orpo, simpo, kto", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}},
                       {"preference",
                        {{"loss_type", "kto_pair"},
                         {"beta", 0},
                         {"ld_alpha", 0.5},
                         {"max_completion_length", 64},
                         {"simpo_gamma", 1.0},
                         {"betta", 1}}}});
        QVERIFY(!r.ok());
        QVERIFY2(has(r, "preference.loss_type", "got \"kto_pair\"", true), issues(r).c_str());
        QVERIFY2(has(r, "preference.beta", "a number > 0", true), issues(r).c_str());
        QVERIFY2(has(r, "preference.ld_alpha", "not built", true), issues(r).c_str());
        QVERIFY2(has(r, "preference.max_completion_length", "removed in TRL 1.16", true), issues(r).c_str());
        QVERIFY2(has(r, "preference.simpo_gamma", "does not use it", false), issues(r).c_str());
        QVERIFY2(has(r, "preference.betta", "did you mean \"beta\"", false), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}},
                       {"preference", {{"loss_type", {"sigmoid", "ipo"}}, {"loss_weights", {1}}}}});
        QVERIFY2(has(r, "preference.loss_weights", "1 weight(s) for 2 loss type(s)", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}}, {"preference", {{"loss_type", "exo_pair"}}}});
        QVERIFY2(has(r, "preference.label_smoothing", "exo_pair", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}}, {"preference", {{"label_smoothing", 0.1}}}});
        QVERIFY2(has(r, "preference.label_smoothing", "no effect", false), issues(r).c_str());
        // Keys a preference run does not read, and preference columns under sft: warned about by name.
        r = parseWith({{"training", {{"objective", "dpo"}}},
                       {"model", {{"chunked_loss", true}}},
                       {"data", {{"text_field", "t"}, {"columns", {{"output", "o"}, {"chosen", "good"}}}}},
                       {"preference", {{"discopop_tau", 0.1}}}});
        QVERIFY2(r.ok(), issues(r).c_str());
        QVERIFY2(has(r, "model.chunked_loss", "whole logits", false), issues(r).c_str());
        QVERIFY2(has(r, "data.text_field", "ignored", false), issues(r).c_str());
        QVERIFY2(has(r, "data.columns.output", "ignored", false), issues(r).c_str());
        QVERIFY2(!has(r, "data.columns.chosen", "", false), issues(r).c_str());
        QVERIFY2(has(r, "preference.discopop_tau", "no \"discopop\"", false), issues(r).c_str());
        r = parseWith({{"data", {{"format", "alpaca"}, {"columns", {{"rejected", "bad"}}}}}});
        QVERIFY2(has(r, "data.columns.rejected", "preference column", false), issues(r).c_str());
        r = parseWith({{"preference", {{"beta", 0.2}}}});  // sft
        QVERIFY2(has(r, "preference", "ignored", false), issues(r).c_str());
    }

    // KTO: its loss types and weights; its KL estimate needs two or more examples per micro-batch.
    void kto() {
        ConfigParseResult r = parseWith(
            {{"training", {{"objective", "kto"}}}, {"preference", {{"undesirable_weight", 1.33}, {"beta", 0.2}}}});
        QVERIFY2(r.ok(), issues(r).c_str());
        QCOMPARE(r.config->preference.lossTypes, std::vector<std::string>{"kto"});
        QCOMPARE(r.config->preference.undesirableWeight, 1.33);
        const json resolved = configToResolvedJson(*r.config);
        QCOMPARE(resolved["preference"]["loss_type"], json("kto"));
        QCOMPARE(configToResolvedJson(*parseTrainConfig(resolved, kDir, 1).config), resolved);
        r = parseWith({{"training", {{"objective", "kto"}}}, {"preference", {{"loss_type", "sigmoid"}}}});
        QVERIFY2(has(r, "preference.loss_type", "expected one of kto, apo_zero_unpaired", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "kto"}}}, {"deepspeed", {{"train_micro_batch_size_per_gpu", 1}}}});
        QVERIFY2(has(r, "deepspeed.train_micro_batch_size_per_gpu", "expected 2 or more", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "kto"}}},
                       {"preference", {{"loss_type", "apo_zero_unpaired"}}},
                       {"deepspeed", {{"train_micro_batch_size_per_gpu", 1}}}});
        QVERIFY2(r.ok(), issues(r).c_str());  // no KL term: one example per micro-batch is enough
        r = parseWith({{"training", {{"objective", "kto"}}}, {"preference", {{"simpo_gamma", 1}}}});
        QVERIFY2(has(r, "preference.simpo_gamma", "does not use it", false), issues(r).c_str());
    }

    // The rules that relate sections: pairs need a pair layout and no packing; "trl" needs a preference objective;
    // ZeRO-3 and a random initialisation need the reference precomputed; init_from's adapter too.
    void crossSectionRules() {
        ConfigParseResult r =
            parseWith({{"training", {{"objective", "orpo"}}}, {"data", {{"format", "lm"}, {"packing", true}}}});
        QVERIFY2(has(r, "data.format", "chosen/rejected pairs", true), issues(r).c_str());
        QVERIFY2(has(r, "data.packing", "not packed", true), issues(r).c_str());
        r = parseWith({{"data", {{"format", "trl"}}}});
        QVERIFY2(has(r, "data.format", "needs training.objective", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}}, {"deepspeed", {{"zero_optimization", {{"stage", 3}}}}}});
        QVERIFY2(has(r, "preference.precompute_ref_log_probs", "ZeRO stage 3", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}}, {"model", {{"init", "random"}}}});
        QVERIFY2(has(r, "preference.precompute_ref_log_probs", "random initialisation", true), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}},
                       {"model", {{"init", "random"}}},
                       {"preference", {{"precompute_ref_log_probs", true}}}});
        QVERIFY2(r.ok(), issues(r).c_str());
        r = parseWith({{"training", {{"objective", "dpo"}}}, {"model", {{"lora", {{"init_from", "../models/gpt2"}}}}}});
        QVERIFY2(has(r, "preference.precompute_ref_log_probs", "init_from", true), issues(r).c_str());
    }
};

QTEST_GUILESS_MAIN(TestPreferenceSection)
#include "test_preference_section.moc"
