// The sweep block's expansion: read the block, draw or enumerate the values, set them, check each run's config.
#include "core/config/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "core/config/train_config.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr size_t kMaxSweepRuns = 1000;

// One swept key: W&B's distributions (https://docs.wandb.ai/guides/sweeps/sweep-config-keys), drawn for method random;
// a grid takes the listed values (categorical, constant) or enumerates int_uniform and q_uniform.
struct Parameter {
    std::string key;
    std::string distribution;           // W&B's name: categorical, constant, uniform, log_uniform_values, normal, ...
    std::vector<json> values;           // categorical (constant: its one value)
    std::vector<double> probabilities;  // categorical_w_probabilities
    double min = 0, max = 0;            // uniform family; log_uniform and inv_log_uniform: natural-log exponents
    double mu = 0, sigma = 1;           // normal family
    double a = 1, b = 1;                // beta family
    json q = 1;                         // the q_ family's step (an integer step gives integers)
    bool discrete() const { return distribution == "categorical" || distribution == "constant"; }
};

[[noreturn]] void refuse(const std::string& key, const std::string& what) {
    throw ConfigError("sweep." + key + ": " + what);
}

void setPath(json& doc, const std::string& path, const json& value) {
    json* at = &doc;
    size_t start = 0;
    for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1) {
        json& next = (*at)[path.substr(start, dot - start)];
        if (!next.is_object()) next = json::object();
        at = &next;
    }
    (*at)[path.substr(start)] = value;
}

bool hasPath(const json& doc, const std::string& path) {
    const json* at = &doc;
    size_t start = 0;
    for (;;) {
        const size_t dot = path.find('.', start);
        const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!at->is_object() || !at->contains(part)) return false;
        at = &(*at)[part];
        if (dot == std::string::npos) return true;
        start = dot + 1;
    }
}

// A value as a name shows it: 0.0001, 8, true, "cosine" without quotes.
std::string valueName(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v.get<double>());
        return buf;
    }
    return v.dump();
}

std::string shortKey(const std::string& key) {
    const size_t dot = key.rfind('.');
    return dot == std::string::npos ? key : key.substr(dot + 1);
}

// A folder name of the values: "lr=0.0001_r=8_seed=1" (characters other than [A-Za-z0-9._=-] become '-').
std::string folderOf(const nlohmann::ordered_json& values) {
    std::string s;
    for (const auto& [k, v] : values.items()) s += (s.empty() ? "" : "_") + shortKey(k) + "=" + valueName(v);
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '=' && c != '-') c = '-';
    return s;
}

const std::vector<std::string>& distributionNames() {
    static const std::vector<std::string> names = {"constant",
                                                   "categorical",
                                                   "categorical_w_probabilities",
                                                   "int_uniform",
                                                   "uniform",
                                                   "q_uniform",
                                                   "log_uniform",
                                                   "log_uniform_values",
                                                   "q_log_uniform",
                                                   "q_log_uniform_values",
                                                   "inv_log_uniform",
                                                   "inv_log_uniform_values",
                                                   "normal",
                                                   "q_normal",
                                                   "log_normal",
                                                   "q_log_normal",
                                                   "beta",
                                                   "q_beta"};
    return names;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The keys each distribution reads besides "distribution" (W&B's schema); any other key is refused by name.
std::vector<std::string> keysOf(const std::string& d) {
    if (d == "constant") return {"value"};
    if (d == "categorical") return {"values"};
    if (d == "categorical_w_probabilities") return {"values", "probabilities"};
    std::vector<std::string> keys;
    if (d.find("normal") != std::string::npos)
        keys = {"mu", "sigma"};
    else if (d.find("beta") != std::string::npos)
        keys = {"a", "b"};
    else
        keys = {"min", "max"};
    if (startsWith(d, "q_")) keys.push_back("q");
    return keys;
}

double numberAt(const json& spec, const std::string& at, const char* key, std::optional<double> fallback) {
    if (!spec.contains(key)) {
        if (!fallback) refuse(at, std::string("needs ") + key);
        return *fallback;
    }
    if (!spec[key].is_number()) refuse(at + "." + key, "expected a number, got " + spec[key].dump());
    return spec[key].get<double>();
}

Parameter readParameter(const std::string& key, const json& spec) {
    Parameter p;
    p.key = key;
    const std::string at = "parameters." + key;
    if (spec.is_array()) {
        p.distribution = "categorical";
        p.values = spec.get<std::vector<json>>();
        if (p.values.empty()) refuse(at, "no values");
        return p;
    }
    if (!spec.is_object()) refuse(at, "expected a list of values or an object with values / min and max");
    // W&B's inference when no distribution is named: value, values (with probabilities), integer or real min/max
    if (spec.contains("distribution")) {
        if (!spec["distribution"].is_string()) refuse(at + ".distribution", "expected a string");
        p.distribution = spec["distribution"].get<std::string>();
        const auto& names = distributionNames();
        if (std::find(names.begin(), names.end(), p.distribution) == names.end()) {
            std::string list;
            for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
            refuse(at + ".distribution", "\"" + p.distribution + "\": expected one of " + list);
        }
    } else if (spec.contains("value")) {
        p.distribution = "constant";
    } else if (spec.contains("values")) {
        p.distribution = spec.contains("probabilities") ? "categorical_w_probabilities" : "categorical";
    } else if (spec.contains("min") && spec.contains("max")) {
        p.distribution = spec["min"].is_number_integer() && spec["max"].is_number_integer() ? "int_uniform" : "uniform";
    } else {
        refuse(at, "expected {\"values\": [...]}, {\"value\": v}, {\"min\": a, \"max\": b} or a distribution");
    }
    const std::vector<std::string> keys = keysOf(p.distribution);
    for (const auto& [k, v] : spec.items())
        if (k != "distribution" && std::find(keys.begin(), keys.end(), k) == keys.end()) {
            std::string list;
            for (const std::string& n : keys) list += (list.empty() ? "" : ", ") + n;
            refuse(at + "." + k, "not read by distribution " + p.distribution + " (it reads " + list + ")");
        }
    const std::string& d = p.distribution;
    if (d == "constant") {
        if (!spec.contains("value")) refuse(at, "constant needs value");
        p.values = {spec["value"]};
    } else if (startsWith(d, "categorical")) {
        if (!spec.contains("values") || !spec["values"].is_array() || spec["values"].empty())
            refuse(at + ".values", "expected a non-empty list of values");
        p.values = spec["values"].get<std::vector<json>>();
        if (d == "categorical_w_probabilities") {
            const json& pr = spec.contains("probabilities") ? spec["probabilities"] : json();
            if (!pr.is_array() || pr.size() != p.values.size())
                refuse(at + ".probabilities",
                       "expected one probability per value (" + std::to_string(p.values.size()) + ")");
            double sum = 0;
            for (const json& x : pr) {
                if (!x.is_number() || x.get<double>() < 0)
                    refuse(at + ".probabilities", "expected numbers >= 0, got " + x.dump());
                p.probabilities.push_back(x.get<double>());
                sum += x.get<double>();
            }
            if (std::abs(sum - 1) > 1e-6)
                refuse(at + ".probabilities", "must sum to 1 (they sum to " + std::to_string(sum) + ")");
        }
    } else if (d.find("normal") != std::string::npos) {
        p.mu = numberAt(spec, at, "mu", 0.0);
        p.sigma = numberAt(spec, at, "sigma", 1.0);
        if (!(p.sigma > 0)) refuse(at + ".sigma", "must be > 0");
    } else if (d.find("beta") != std::string::npos) {
        p.a = numberAt(spec, at, "a", 1.0);
        p.b = numberAt(spec, at, "b", 1.0);
        if (!(p.a > 0) || !(p.b > 0)) refuse(at, "beta needs a > 0 and b > 0");
    } else {
        p.min = numberAt(spec, at, "min", std::nullopt);
        p.max = numberAt(spec, at, "max", std::nullopt);
        if (!(p.min <= p.max)) refuse(at, "min must not exceed max");
        if (d == "int_uniform" && (!spec["min"].is_number_integer() || !spec["max"].is_number_integer()))
            refuse(at, "int_uniform needs integer min and max");
        if (d.find("_values") != std::string::npos) {  // bounds as values: drawn in log space
            if (!(p.min > 0)) refuse(at + ".min", d + " needs min > 0");
            p.min = std::log(p.min);
            p.max = std::log(p.max);
            if (startsWith(d, "inv_")) {  // X = exp(-U), U uniform in [-log max, -log min]
                const double low = -p.max, high = -p.min;
                p.min = low;
                p.max = high;
            }
        }
    }
    if (startsWith(d, "q_")) {
        p.q = spec.contains("q") ? spec["q"] : json(1);
        if (!p.q.is_number() || !(p.q.get<double>() > 0)) refuse(at + ".q", "expected a number > 0");
    }
    return p;
}

// One draw of a parameter (method random), as W&B's sampler draws it.
json draw(const Parameter& p, std::mt19937_64& rng) {
    const std::string& d = p.distribution;
    if (p.distribution == "constant") return p.values.front();
    if (p.distribution == "categorical")
        return p.values[std::uniform_int_distribution<size_t>(0, p.values.size() - 1)(rng)];
    if (p.distribution == "categorical_w_probabilities")
        return p.values[std::discrete_distribution<size_t>(p.probabilities.begin(), p.probabilities.end())(rng)];
    if (d == "int_uniform") return std::uniform_int_distribution<int64_t>(int64_t(p.min), int64_t(p.max))(rng);
    const std::string base = startsWith(d, "q_") ? d.substr(2) : d;
    double x = 0;
    if (base == "uniform") {
        x = std::uniform_real_distribution<double>(p.min, p.max)(rng);
    } else if (base == "log_uniform" || base == "log_uniform_values") {
        x = std::exp(std::uniform_real_distribution<double>(p.min, p.max)(rng));
    } else if (base == "inv_log_uniform" || base == "inv_log_uniform_values") {
        x = std::exp(-std::uniform_real_distribution<double>(p.min, p.max)(rng));
    } else if (base == "normal") {
        x = std::normal_distribution<double>(p.mu, p.sigma)(rng);
    } else if (base == "log_normal") {
        x = std::exp(std::normal_distribution<double>(p.mu, p.sigma)(rng));
    } else {  // beta, from two gamma draws
        const double ga = std::gamma_distribution<double>(p.a, 1.0)(rng);
        const double gb = std::gamma_distribution<double>(p.b, 1.0)(rng);
        x = ga / (ga + gb);
    }
    if (!startsWith(d, "q_")) return x;
    const double q = p.q.get<double>();
    const double rounded = std::round(x / q) * q;
    return p.q.is_number_integer() ? json(int64_t(std::llround(rounded))) : json(rounded);
}

// The values a grid takes of a parameter: its list, or W&B's enumeration of int_uniform (min..max) and q_uniform
// (min, min + q, ... below max).
std::vector<json> gridValues(const Parameter& p, const std::string& at) {
    if (p.discrete()) return p.values;
    std::vector<json> out;
    if (p.distribution == "int_uniform") {
        for (int64_t v = int64_t(p.min); v <= int64_t(p.max) && out.size() <= kMaxSweepRuns; ++v) out.push_back(v);
        return out;
    }
    if (p.distribution == "q_uniform") {
        const double q = p.q.get<double>();
        for (int64_t i = 0; p.min + double(i) * q < p.max && out.size() <= kMaxSweepRuns; ++i) {
            const double v = p.min + double(i) * q;
            out.push_back(p.q.is_number_integer() ? json(int64_t(std::llround(v))) : json(v));
        }
        if (out.empty()) refuse(at, "q_uniform from min below max gives no values");
        return out;
    }
    refuse(at,
           "a grid takes values, value, int_uniform or q_uniform (" + p.distribution + " is drawn: use method random)");
}

// The parameters block flattened: W&B's nested form ({"deepspeed": {"parameters": {"optimizer": ...}}}) gives the
// dotted config path; entries in the file's order.
template <class Json>
void flattenParameters(const Json& block, const std::string& prefix, std::vector<std::pair<std::string, json>>& out) {
    for (const auto& [k, spec] : block.items()) {
        const std::string key = prefix.empty() ? k : prefix + "." + k;
        if (spec.is_object() && spec.contains("parameters")) {
            if (spec.size() != 1 || !spec["parameters"].is_object() || spec["parameters"].empty())
                refuse("parameters." + key,
                       "nested parameters: expected {\"parameters\": {...}} alone, naming at least one key");
            flattenParameters(spec["parameters"], key, out);
        } else {
            out.emplace_back(key, json(spec));
        }
    }
}

// A swept key another key overrides, and the key that rules in its place: WarmupLR and WarmupDecayLR set the
// optimizer's lr every step and peak at the scheduler's warmup_max_lr, so sweeping the optimizer's lr alone would
// train every run alike. Such a key is mapped: each run sets the ruling key to the swept value too (unless that key
// is "auto", which follows the lr already, or is swept itself). Returns the ruling key, or "" when none.
std::string rulingKeyOf(const std::string& key, const json& document, const json& resolved,
                        const std::vector<std::string>& sweptKeys) {
    if (key != "deepspeed.optimizer.params.lr") return "";
    const json* scheduler = resolved.contains("deepspeed") ? &resolved["deepspeed"] : nullptr;
    if (!scheduler || !scheduler->contains("scheduler") || !(*scheduler)["scheduler"].is_object()) return "";
    const std::string type = (*scheduler)["scheduler"].value("type", std::string());
    if (type != "WarmupLR" && type != "WarmupDecayLR") return "";
    const std::string ruling = "deepspeed.scheduler.params.warmup_max_lr";
    if (std::find(sweptKeys.begin(), sweptKeys.end(), ruling) != sweptKeys.end()) return "";
    const json* raw = &document;
    for (const char* part : {"deepspeed", "scheduler", "params", "warmup_max_lr"}) {
        if (!raw->is_object() || !raw->contains(part)) return ruling;  // DeepSpeed's default peak (0.001) rules
        raw = &(*raw)[part];
    }
    return raw->is_string() && raw->get<std::string>() == "auto" ? "" : ruling;
}

// A config warning about a swept key that says the key does nothing as set (ignored, overridden, not the peak).
bool saysIneffective(const std::string& message) {
    for (const char* words : {"ignored", "overrid", "not the peak", "has no effect", "not used"})
        if (message.find(words) != std::string::npos) return true;
    return false;
}

// The block's own keys: W&B's launcher keys are said not to be used, early_terminate and unknown keys refused.
void checkBlockKeys(const json& block, SweepPlan& plan) {
    for (const auto& [k, v] : block.items()) {
        if (k == "name" || k == "method" || k == "parameters" || k == "seeds" || k == "count" || k == "metric" ||
            k == "random_seed" || k == "description" || k == "run_cap")
            continue;
        if (k == "program" || k == "command" || k == "entity" || k == "project") {
            // how W&B's agent starts a script and where it logs: here each run is `fts train` on its config
            plan.warnings.push_back(k + ": not used (W&B's agent " +
                                    (k == "program" || k == "command" ? std::string("starts that script")
                                                                      : std::string("logs to that " + k)) +
                                    "; each run of this sweep is fts train on its config, in the run store)");
            continue;
        }
        if (k == "early_terminate")
            refuse(k, "not built (W&B's hyperband stopping); every run of the sweep trains to its end");
        refuse(k,
               "unknown key (expected name, method, parameters, seeds, count, run_cap, metric, random_seed, "
               "description)");
    }
    if (block.contains("run_cap") && (!block["run_cap"].is_number_integer() || block["run_cap"].get<int64_t>() < 1))
        refuse("run_cap", "expected a positive integer");
    if (block.contains("count") && !block["count"].is_number_integer()) refuse("count", "expected a positive integer");
}

// name, description, method, random_seed and metric (name, goal, target).
void readHeader(const json& block, const std::string& runName, SweepPlan& plan) {
    if (block.contains("name") && !block["name"].is_string()) refuse("name", "expected a string");
    plan.name = block.contains("name") ? block["name"].get<std::string>() : runName + " sweep";
    if (block.contains("description")) {
        if (!block["description"].is_string()) refuse("description", "expected a string");
        plan.description = block["description"].get<std::string>();
    }
    if (block.contains("method") && !block["method"].is_string()) refuse("method", "expected grid or random");
    plan.method = block.value("method", std::string("grid"));
    if (block.contains("random_seed") && !block["random_seed"].is_number_unsigned() &&
        !(block["random_seed"].is_number_integer() && block["random_seed"].get<int64_t>() >= 0))
        refuse("random_seed", "expected a non-negative integer");
    if (plan.method != "grid" && plan.method != "random")
        refuse("method", "\"" + plan.method + "\": expected grid or random (bayes is not built)");
    if (!block.contains("metric")) return;
    const json& m = block["metric"];
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string())
        refuse("metric", "expected {\"name\": \"eval_loss\", \"goal\": \"minimize\"}");
    for (const auto& [k, v] : m.items())
        if (k != "name" && k != "goal" && k != "target")
            refuse("metric." + k, "unknown key (expected name, goal, target)");
    plan.metric = m["name"].get<std::string>();
    if (m.contains("goal") && !m["goal"].is_string()) refuse("metric.goal", "expected minimize or maximize");
    plan.goal = m.value("goal", std::string("minimize"));
    if (plan.goal != "minimize" && plan.goal != "maximize")
        refuse("metric.goal", "\"" + plan.goal + "\": expected minimize or maximize");
    if (m.contains("target")) {
        if (!m["target"].is_number()) refuse("metric.target", "expected a number");
        plan.target = m["target"].get<double>();
    }
}

// The swept keys, in the file's order when `ordered` has it: each a key the config reads, given once.
std::vector<Parameter> readParameters(const json& block, const nlohmann::ordered_json* ordered, const json& resolved,
                                      SweepPlan& plan) {
    if (!block.contains("parameters") || !block["parameters"].is_object() || block["parameters"].empty())
        refuse("parameters", "expected an object naming at least one config key and its values");
    std::vector<std::pair<std::string, json>> specs;  // the parameters as the file lists them
    if (ordered && ordered->contains("sweep") && (*ordered)["sweep"].contains("parameters") &&
        (*ordered)["sweep"]["parameters"].is_object())
        flattenParameters((*ordered)["sweep"]["parameters"], "", specs);
    else
        flattenParameters(block["parameters"], "", specs);
    std::vector<Parameter> params;
    for (const auto& [key, spec] : specs) {
        if (key == "sweep" || key.rfind("sweep.", 0) == 0) refuse("parameters." + key, "a sweep cannot sweep itself");
        if (!hasPath(resolved, key))
            refuse("parameters." + key,
                   "not a key this config reads (write it as the config's path, e.g. "
                   "deepspeed.optimizer.params.lr, or nested as W&B nests parameters)");
        if (std::find(plan.keys.begin(), plan.keys.end(), key) != plan.keys.end())
            refuse("parameters." + key, "given twice");
        params.push_back(readParameter(key, spec));
        if (plan.method == "grid" && params.back().distribution == "categorical_w_probabilities")
            refuse("parameters." + key + ".probabilities", "a grid takes every value (probabilities are for random)");
        plan.keys.push_back(key);
    }
    return params;
}

// `seeds`: each combination once per training.seed listed (the key goes last in plan.keys).
std::vector<json> readSeeds(const json& block, SweepPlan& plan) {
    std::vector<json> seeds;
    if (!block.contains("seeds")) return seeds;
    if (!block["seeds"].is_array() || block["seeds"].empty()) refuse("seeds", "expected a list of integers");
    for (const json& s : block["seeds"]) {
        if (!s.is_number_integer()) refuse("seeds", "expected integers, got " + s.dump());
        seeds.push_back(s);
    }
    if (std::find(plan.keys.begin(), plan.keys.end(), "training.seed") != plan.keys.end())
        refuse("seeds", "training.seed is also a swept parameter; give one of the two");
    plan.keys.push_back("training.seed");
    return seeds;
}

// The values of every run ({"key": value, ...}): a grid's combinations in the block's order (the last key varies
// fastest; W&B's order is by name) or `count` random draws, each once per seed, at most run_cap of them.
std::vector<json> combinations(const json& block, const std::vector<Parameter>& params,
                               const std::vector<json>& seeds) {
    const int64_t runCap = block.value("run_cap", int64_t(0));
    std::vector<json> combos;
    if (block.value("method", std::string("grid")) == "grid") {
        std::vector<std::vector<json>> values;
        double total = 1;
        for (const Parameter& p : params) {
            values.push_back(gridValues(p, "parameters." + p.key));
            total *= double(values.back().size());
        }
        if (runCap == 0 && total > double(kMaxSweepRuns))
            refuse("parameters", "the grid has over 1000 runs (run_cap keeps the first N)");
        const int64_t n = int64_t(std::min(total, double(runCap > 0 ? runCap : int64_t(kMaxSweepRuns))));
        for (int64_t i = 0; i < n; ++i) {
            json c = json::object();
            int64_t rest = i;
            for (size_t k = params.size(); k-- > 0;) {
                const int64_t size = int64_t(values[k].size());
                c[params[k].key] = values[k][size_t(rest % size)];
                rest /= size;
            }
            combos.push_back(std::move(c));
        }
    } else {
        // W&B's run_cap bounds the runs; count (the agent's --count) draws that many
        const int64_t count = block.contains("count") ? block["count"].get<int64_t>() : runCap;
        if (count < 1)
            refuse("count", "method random needs count (the number of runs to draw) or run_cap, a positive integer");
        if (count > int64_t(kMaxSweepRuns)) refuse("count", "over 1000 runs");
        std::mt19937_64 rng(block.value("random_seed", uint64_t(0)));
        for (int64_t i = 0; i < count; ++i) {
            json c = json::object();
            for (const Parameter& p : params) c[p.key] = draw(p, rng);
            combos.push_back(std::move(c));
        }
    }
    if (!seeds.empty()) {
        std::vector<json> next;
        for (const json& c : combos)
            for (const json& s : seeds) {
                json n = c;
                n["training.seed"] = s;
                next.push_back(std::move(n));
            }
        combos = std::move(next);
    }
    if (runCap > 0 && combos.size() > size_t(runCap)) combos.resize(size_t(runCap));  // W&B stops at run_cap
    if (combos.size() > kMaxSweepRuns) refuse(seeds.empty() ? "parameters" : "seeds", "the sweep has over 1000 runs");
    return combos;
}

// What every run of the sweep starts from.
struct RunSetting {
    const json& base;      // the document without its sweep block
    const json& resolved;  // the base resolved: the keys it reads
    const fs::path& baseDir;
    int worldSize;
    std::string runName;
    fs::path outputDir;
};

// A run's config checked: valid, and no warning that a swept key does nothing (refused: its runs would differ in
// name only); other warnings about a swept key kept for the plan, once each.
void checkSweptKeys(const std::vector<ConfigIssue>& issues, SweepPlan& plan) {
    for (const ConfigIssue& issue : issues)
        for (const std::string& key : plan.keys)
            if (!issue.isError && (issue.keyPath == key || issue.message.find(key) != std::string::npos)) {
                if (saysIneffective(issue.message))
                    refuse("parameters." + key, "the config overrides or ignores it, so its runs would train alike: " +
                                                    issue.keyPath + ": " + issue.message);
                const std::string w = issue.keyPath + ": " + issue.message;
                if (std::find(plan.warnings.begin(), plan.warnings.end(), w) == plan.warnings.end())
                    plan.warnings.push_back(w);
            }
}

// One run per combination: the values set (and the keys that rule a swept one), named and placed by its values,
// validated; runs that would train the same config under different values are refused.
void addRuns(const std::vector<json>& combos, const RunSetting& setting, SweepPlan& plan) {
    std::vector<std::pair<std::string, std::string>> mapped;  // swept key, the key that rules it
    for (const std::string& key : plan.keys)
        if (const std::string ruling = rulingKeyOf(key, setting.base, setting.resolved, plan.keys); !ruling.empty()) {
            mapped.emplace_back(key, ruling);
            plan.notes.push_back(key + ": each run also sets " + ruling +
                                 " to the swept value (the scheduler sets the optimizer's lr every step and peaks "
                                 "there)");
        }
    std::map<std::string, size_t> trained;  // each run's resolved config less its name and folder: runs must differ
    for (const json& c : combos) {
        SweepRun run;
        run.config = setting.base;
        std::string label;
        for (const std::string& key : plan.keys) {
            run.values[key] = c.at(key);
            setPath(run.config, key, c.at(key));
            label += " " + shortKey(key) + "=" + valueName(c.at(key));
        }
        for (const auto& [key, ruling] : mapped) setPath(run.config, ruling, c.at(key));
        run.name = setting.runName + label;
        setPath(run.config, "training.run_name", run.name);
        setPath(run.config, "training.output_dir", (setting.outputDir / folderOf(run.values)).string());
        const ConfigParseResult parsed = parseTrainConfig(run.config, setting.baseDir, setting.worldSize);
        if (!parsed.ok()) throw ConfigError("sweep run \"" + run.name + "\": " + parsed.errorText());
        checkSweptKeys(parsed.issues, plan);
        json training = configToResolvedJson(*parsed.config);
        training["training"].erase("run_name");
        training["training"].erase("output_dir");
        const auto [same, fresh] = trained.emplace(training.dump(), plan.runs.size());
        if (!fresh && plan.runs[same->second].values != run.values)
            refuse("parameters", "runs \"" + plan.runs[same->second].name + "\" and \"" + run.name +
                                     "\" would train the same config: a swept key does not change what trains");
        plan.runs.push_back(std::move(run));
    }
}

}  // namespace

bool hasSweep(const json& document) {
    return document.is_object() && document.contains("sweep") && !document["sweep"].is_null();
}

SweepPlan expandSweep(const json& document, const fs::path& baseDir, int worldSize,
                      const nlohmann::ordered_json* ordered) {
    if (!hasSweep(document)) throw ConfigError("sweep: the config has no sweep block");
    const json& block = document["sweep"];
    if (!block.is_object()) throw ConfigError("sweep: expected an object with method and parameters");
    SweepPlan plan;
    checkBlockKeys(block, plan);
    json base = document;
    base.erase("sweep");
    const ConfigParseResult parsedBase = parseTrainConfig(base, baseDir, worldSize);
    if (!parsedBase.ok()) throw ConfigError("the config under the sweep: " + parsedBase.errorText());
    const json resolved = configToResolvedJson(*parsedBase.config);
    const std::string runName =
        parsedBase.config->training.runName.empty() ? std::string("run") : parsedBase.config->training.runName;
    readHeader(block, runName, plan);
    const std::vector<Parameter> params = readParameters(block, ordered, resolved, plan);
    const std::vector<json> combos = combinations(block, params, readSeeds(block, plan));
    const RunSetting setting{base, resolved, baseDir, worldSize, runName, parsedBase.config->training.outputDir};
    addRuns(combos, setting, plan);
    return plan;
}

}  // namespace fts
