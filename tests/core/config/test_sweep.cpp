// expandSweep (core/config/sweep.h) with sweep blocks as W&B users write them: every distribution drawn within its
// support and with its shape (mean and spread of many draws against the distribution's own), integer steps giving
// integers, probabilities honoured, W&B's nested parameters, a grid enumerating int_uniform and q_uniform, run_cap,
// metric.target, W&B's launcher keys warned about by name, and the keys a distribution does not read refused by name.
#include <QTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "core/config/sweep.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;
using json = nlohmann::json;
using fts::expandSweep;
using fts::SweepPlan;

namespace {

const fs::path kQuickstart = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";

// The quick-start config (absolute paths) with `sweep` as its sweep block.
json withSweep(const json& sweep) {
    json cfg = json::parse(fts::readFile(kQuickstart / "quickstart.json"));
    cfg["model"]["path"] = (kQuickstart / "model").string();
    cfg["data"]["train"] = (kQuickstart / "sample_stories.jsonl").string();
    cfg["training"]["output_dir"] = (fs::temp_directory_path() / "fts-sweep-test").string();
    cfg["sweep"] = sweep;
    return cfg;
}

SweepPlan expand(const json& sweep) { return expandSweep(withSweep(sweep), kQuickstart); }

// The message expandSweep refuses the block with ("" when it does not).
std::string refusal(const json& sweep) {
    try {
        expand(sweep);
    } catch (const fts::ConfigError& e) {
        return e.what();
    }
    return "";
}

// Draws of the one swept key (deepspeed.gradient_clipping unless given) over `count` random runs.
std::vector<double> draws(const json& spec, int count = 400, const std::string& key = "deepspeed.gradient_clipping") {
    const SweepPlan plan =
        expand({{"method", "random"}, {"count", count}, {"random_seed", 7}, {"parameters", {{key, spec}}}});
    std::vector<double> out;
    for (const fts::SweepRun& r : plan.runs) out.push_back(r.values.at(key).get<double>());
    return out;
}

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); }
double stddev(const std::vector<double>& v) {
    const double m = mean(v);
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return std::sqrt(s / double(v.size() - 1));
}
std::vector<double> logs(const std::vector<double>& v) {
    std::vector<double> out;
    for (double x : v) out.push_back(std::log(x));
    return out;
}

}  // namespace

class TestSweep : public QObject {
    Q_OBJECT
private slots:
    // Each distribution's draws stay in its support, and their mean and spread are the distribution's (400 draws:
    // the standard error of a mean is sigma / 20; the bounds below are four of those).
    void distributionsDrawAsWandbDefinesThem() {
        {
            const auto v = draws({{"distribution", "uniform"}, {"min", 0.5}, {"max", 1.5}});
            for (double x : v) QVERIFY(x >= 0.5 && x <= 1.5);
            QVERIFY(std::abs(mean(v) - 1.0) < 4 * 0.2887 / 20);
        }
        {  // log_uniform: min and max are natural-log exponents
            const auto v = draws({{"distribution", "log_uniform"}, {"min", -4}, {"max", 0}});
            for (double x : v) QVERIFY(x >= std::exp(-4) && x <= 1);
            QVERIFY(std::abs(mean(logs(v)) + 2) < 4 * 1.155 / 20);
        }
        {  // log_uniform_values: min and max are values
            const auto v = draws({{"distribution", "log_uniform_values"}, {"min", 1e-5}, {"max", 1e-3}});
            for (double x : v) QVERIFY(x >= 1e-5 * (1 - 1e-12) && x <= 1e-3 * (1 + 1e-12));
            QVERIFY(std::abs(mean(logs(v)) - std::log(1e-4)) < 4 * 1.329 / 20);
        }
        {  // inv_log_uniform_values: 1/X log-uniform between 1/max and 1/min, so X within [min, max]
            const auto v = draws({{"distribution", "inv_log_uniform_values"}, {"min", 0.01}, {"max", 1.0}});
            for (double x : v) QVERIFY(x >= 0.01 * (1 - 1e-12) && x <= 1.0 + 1e-12);
            QVERIFY(std::abs(mean(logs(v)) - std::log(0.1)) < 4 * 1.329 / 20);
        }
        {  // inv_log_uniform: log(1/X) uniform in [min, max]
            const auto v = draws({{"distribution", "inv_log_uniform"}, {"min", 0}, {"max", 2}});
            for (double x : v) QVERIFY(x >= std::exp(-2) * (1 - 1e-12) && x <= 1 + 1e-12);
            QVERIFY(std::abs(mean(logs(v)) + 1) < 4 * 0.577 / 20);
        }
        {
            const auto v = draws({{"distribution", "normal"}, {"mu", 2.0}, {"sigma", 0.5}});
            QVERIFY(std::abs(mean(v) - 2.0) < 4 * 0.5 / 20);
            QVERIFY(std::abs(stddev(v) - 0.5) < 0.1);
        }
        {  // log_normal: log X normal(mu, sigma); defaults mu 0, sigma 1
            const auto v = draws({{"distribution", "log_normal"}});
            for (double x : v) QVERIFY(x > 0);
            QVERIFY(std::abs(mean(logs(v))) < 4 * 1.0 / 20);
            QVERIFY(std::abs(stddev(logs(v)) - 1.0) < 0.15);
        }
        {  // beta(2, 5): mean 2/7
            const auto v = draws({{"distribution", "beta"}, {"a", 2}, {"b", 5}});
            for (double x : v) QVERIFY(x >= 0 && x <= 1);
            QVERIFY(std::abs(mean(v) - 2.0 / 7) < 4 * 0.16 / 20);
        }
    }

    // The q_ forms round to their step; an integer step gives integers (W&B: an int q returns ints).
    void quantizedDrawsKeepTheirStep() {
        const SweepPlan plan = expand(
            {{"method", "random"},
             {"count", 50},
             {"parameters",
              {{"deepspeed.gradient_clipping", {{"distribution", "q_uniform"}, {"min", 0}, {"max", 2}, {"q", 0.25}}},
               {"deepspeed.train_micro_batch_size_per_gpu",
                {{"distribution", "q_log_uniform_values"}, {"min", 2}, {"max", 32}, {"q", 2}}}}}});
        QCOMPARE(plan.runs.size(), size_t(50));
        for (const fts::SweepRun& r : plan.runs) {
            const double clip = r.values.at("deepspeed.gradient_clipping").get<double>();
            QVERIFY(std::abs(clip / 0.25 - std::round(clip / 0.25)) < 1e-9 && clip >= 0 && clip <= 2);
            const json mb = r.values.at("deepspeed.train_micro_batch_size_per_gpu");
            QVERIFY2(mb.is_number_integer(), mb.dump().c_str());
            QVERIFY(mb.get<int64_t>() % 2 == 0 && mb.get<int64_t>() >= 2 && mb.get<int64_t>() <= 32);
            QVERIFY(r.config["deepspeed"]["train_micro_batch_size_per_gpu"] == mb);
        }
        // int_uniform draws integers within [min, max], both ends reached
        std::map<int64_t, int> seen;
        const SweepPlan ints =
            expand({{"method", "random"},
                    {"count", 200},
                    {"parameters", {{"deepspeed.gradient_accumulation_steps", {{"min", 1}, {"max", 3}}}}}});
        for (const fts::SweepRun& r : ints.runs)
            ++seen[r.values.at("deepspeed.gradient_accumulation_steps").get<int64_t>()];
        QCOMPARE(seen.size(), size_t(3));
        QVERIFY(seen.count(1) && seen.count(3));
    }

    void probabilitiesWeighTheValues() {
        const SweepPlan plan =
            expand({{"method", "random"},
                    {"count", 1000},
                    {"parameters",
                     {{"deepspeed.scheduler.type",
                       {{"values", {"WarmupDecayLR", "WarmupLR"}}, {"probabilities", {0.9, 0.1}}}}}}});
        int first = 0;
        for (const fts::SweepRun& r : plan.runs) first += r.values.at("deepspeed.scheduler.type") == "WarmupDecayLR";
        QVERIFY2(std::abs(first - 900) < 4 * 9.5, std::to_string(first).c_str());  // binomial sd sqrt(90) = 9.5
        QVERIFY(refusal({{"method", "random"},
                         {"count", 2},
                         {"parameters", {{"training.seed", {{"values", {1, 2}}, {"probabilities", {0.5, 0.4}}}}}}})
                    .find("sum to 1") != std::string::npos);
        QVERIFY(refusal({{"method", "grid"},
                         {"parameters", {{"training.seed", {{"values", {1, 2}}, {"probabilities", {0.5, 0.5}}}}}}})
                    .find("sweep.parameters.training.seed.probabilities") != std::string::npos);
    }

    // W&B nests parameters; the nested names are the config's path.
    void nestedParametersAreTheConfigPath() {
        const SweepPlan plan = expand(
            {{"method", "grid"},
             {"parameters",
              {{"deepspeed",
                {{"parameters",
                  {{"optimizer",
                    {{"parameters", {{"params", {{"parameters", {{"weight_decay", {{"values", {0.0, 0.1}}}}}}}}}}}},
                   {"gradient_clipping", {{"value", 0.5}}}}}}},
               {"training", {{"parameters", {{"seed", {{"values", {1, 2, 3}}}}}}}}}}});
        QCOMPARE(plan.runs.size(), size_t(6));
        // (without the file's member order, as here, the keys go in alphabetical order)
        QCOMPARE(plan.keys, (std::vector<std::string>{"deepspeed.gradient_clipping",
                                                      "deepspeed.optimizer.params.weight_decay", "training.seed"}));
        QCOMPARE(plan.runs[1].config["deepspeed"]["optimizer"]["params"]["weight_decay"].get<double>(), 0.0);
        QCOMPARE(plan.runs[1].config["training"]["seed"].get<int>(), 2);
        QCOMPARE(plan.runs[3].config["deepspeed"]["optimizer"]["params"]["weight_decay"].get<double>(), 0.1);
        QCOMPARE(plan.runs[3].config["deepspeed"]["gradient_clipping"].get<double>(), 0.5);
        // a nested name the config does not read is refused by its whole path
        QVERIFY(refusal({{"parameters", {{"deepspeed", {{"parameters", {{"optimiser", {{"values", {1}}}}}}}}}}})
                    .find("sweep.parameters.deepspeed.optimiser") != std::string::npos);
    }

    // A grid enumerates int_uniform (min..max) and q_uniform (min, min+q, ... below max) as W&B's grid does; run_cap
    // keeps the first N runs; a drawn distribution in a grid is refused.
    void gridEnumeratesAndRunCapBounds() {
        const SweepPlan plan = expand(
            {{"method", "grid"},
             {"parameters",
              {{"deepspeed.gradient_accumulation_steps", {{"distribution", "int_uniform"}, {"min", 1}, {"max", 3}}},
               {"deepspeed.gradient_clipping",
                {{"distribution", "q_uniform"}, {"min", 0.5}, {"max", 2.0}, {"q", 0.5}}}}}});
        QCOMPARE(plan.runs.size(), size_t(9));
        QCOMPARE(plan.runs[0].values.at("deepspeed.gradient_accumulation_steps").get<int>(), 1);
        QCOMPARE(plan.runs[0].values.at("deepspeed.gradient_clipping").get<double>(), 0.5);
        QCOMPARE(plan.runs[2].values.at("deepspeed.gradient_clipping").get<double>(), 1.5);
        QCOMPARE(plan.runs[8].values.at("deepspeed.gradient_accumulation_steps").get<int>(), 3);
        const SweepPlan capped = expand(
            {{"method", "grid"}, {"run_cap", 4}, {"parameters", {{"training.seed", {{"min", 1}, {"max", 5000}}}}}});
        QCOMPARE(capped.runs.size(), size_t(4));
        QCOMPARE(capped.runs[3].values.at("training.seed").get<int>(), 4);
        QVERIFY(refusal({{"method", "grid"}, {"parameters", {{"training.seed", {{"min", 1}, {"max", 5000}}}}}})
                    .find("over 1000") != std::string::npos);
        QVERIFY(refusal({{"method", "grid"},
                         {"parameters", {{"deepspeed.gradient_clipping", {{"distribution", "normal"}}}}}})
                    .find("use method random") != std::string::npos);
        // random: run_cap stands for count when count is not given, and bounds it when both are
        QCOMPARE(
            expand({{"method", "random"}, {"run_cap", 3}, {"parameters", {{"training.seed", {1, 2}}}}}).runs.size(),
            size_t(3));
        QCOMPARE(
            expand({{"method", "random"}, {"run_cap", 3}, {"count", 5}, {"parameters", {{"training.seed", {1, 2}}}}})
                .runs.size(),
            size_t(3));
        QVERIFY(refusal({{"method", "random"}, {"parameters", {{"training.seed", {1, 2}}}}}).find("run_cap") !=
                std::string::npos);
    }

    // Sweeping the optimizer's lr under the quick-start's WarmupDecayLR (whose warmup_max_lr sets the rate) maps it:
    // each run's peak is its swept lr, said in the notes; with warmup_max_lr "auto" (it follows the lr) nothing is
    // mapped; with warmup_max_lr swept too, the optimizer's lr does nothing and is refused by name.
    void overriddenKeysAreMappedOrRefused() {
        const SweepPlan plan = expand({{"parameters", {{"deepspeed.optimizer.params.lr", {0.001, 0.01}}}}});
        QCOMPARE(plan.runs.size(), size_t(2));
        for (const fts::SweepRun& r : plan.runs)
            QVERIFY(r.config["deepspeed"]["scheduler"]["params"]["warmup_max_lr"] ==
                    r.values["deepspeed.optimizer.params.lr"]);
        QCOMPARE(plan.notes.size(), size_t(1));
        QVERIFY2(plan.notes[0].rfind("deepspeed.optimizer.params.lr: each run also sets "
                                     "deepspeed.scheduler.params.warmup_max_lr",
                                     0) == 0,
                 plan.notes[0].c_str());
        for (const std::string& w : plan.warnings) QVERIFY2(w.find("not the peak") == std::string::npos, w.c_str());
        // both swept apart: the optimizer's lr then does nothing, refused
        const std::string apart = refusal(
            {{"parameters",
              {{"deepspeed.optimizer.params.lr", {0.001}}, {"deepspeed.scheduler.params.warmup_max_lr", {0.002}}}}});
        QVERIFY2(apart.find("sweep.parameters.deepspeed.optimizer.params.lr") != std::string::npos &&
                     apart.find("not the peak") != std::string::npos,
                 apart.c_str());
        // "auto" follows the optimizer's lr already
        json cfg = withSweep({{"parameters", {{"deepspeed.optimizer.params.lr", {0.001, 0.01}}}}});
        cfg["deepspeed"]["scheduler"]["params"]["warmup_max_lr"] = "auto";
        const SweepPlan autoPeak = expandSweep(cfg, kQuickstart);
        QVERIFY(autoPeak.notes.empty());
        QCOMPARE(autoPeak.runs[1].config["deepspeed"]["scheduler"]["params"]["warmup_max_lr"].get<std::string>(),
                 std::string("auto"));
    }

    // W&B's launcher keys are said not to be used, by name; what would change the runs (early_terminate) is refused,
    // as is any key a distribution does not read.
    void wandbKeysAreUsedWarnedOrRefusedByName() {
        const SweepPlan plan = expand({{"program", "train.py"},
                                       {"project", "lm"},
                                       {"method", "grid"},
                                       {"metric", {{"name", "eval_loss"}, {"goal", "minimize"}, {"target", 0.5}}},
                                       {"parameters", {{"training.seed", {1, 2}}}}});
        QVERIFY(plan.target && *plan.target == 0.5);
        int said = 0;
        for (const std::string& w : plan.warnings)
            said += (w.rfind("program: not used", 0) == 0) + (w.rfind("project: not used", 0) == 0);
        QCOMPARE(said, 2);
        // a top-level key of the wrong kind is refused by name, never a JSON library error
        for (const char* key : {"name", "method", "random_seed", "count", "run_cap"}) {
            const std::string why = refusal({{key, json::array({1})}, {"parameters", {{"training.seed", {1}}}}});
            QVERIFY2(why.find(std::string("sweep.") + key + ":") != std::string::npos, why.c_str());
        }
        QVERIFY(refusal({{"early_terminate", {{"type", "hyperband"}}}, {"parameters", {{"training.seed", {1}}}}})
                    .find("sweep.early_terminate") != std::string::npos);
        QVERIFY(
            refusal({{"metric", {{"name", "eval_loss"}, {"target", "low"}}}, {"parameters", {{"training.seed", {1}}}}})
                .find("sweep.metric.target") != std::string::npos);
        QVERIFY(refusal({{"metric", {{"name", "eval_loss"}, {"targte", 1}}}, {"parameters", {{"training.seed", {1}}}}})
                    .find("sweep.metric.targte") != std::string::npos);
        QVERIFY(refusal({{"method", "random"},
                         {"count", 1},
                         {"parameters", {{"deepspeed.gradient_clipping", {{"distribution", "normal"}, {"min", 0}}}}}})
                    .find("sweep.parameters.deepspeed.gradient_clipping.min: not read by distribution normal") !=
                std::string::npos);
        QVERIFY(refusal({{"method", "random"},
                         {"count", 1},
                         {"parameters", {{"deepspeed.gradient_clipping", {{"distribution", "gamma"}}}}}})
                    .find("expected one of") != std::string::npos);
        QVERIFY(refusal({{"method", "random"},
                         {"count", 1},
                         {"parameters",
                          {{"deepspeed.gradient_clipping",
                            {{"distribution", "log_uniform_values"}, {"min", 0}, {"max", 1}}}}}})
                    .find("min > 0") != std::string::npos);
    }
};

QTEST_MAIN(TestSweep)
#include "test_sweep.moc"
