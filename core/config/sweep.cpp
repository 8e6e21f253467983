// The sweep block's expansion: read the block, draw or enumerate the values, set them, check each run's config.
#include "core/config/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/config/train_config.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr size_t kMaxSweepRuns = 1000;

struct Parameter {
    std::string key;
    std::vector<json> values;  // grid, or random from a list
    bool range = false;        // random from min..max
    double min = 0, max = 0;
    std::string distribution = "uniform";
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

Parameter readParameter(const std::string& key, const json& spec) {
    Parameter p;
    p.key = key;
    const std::string at = "parameters." + key;
    if (spec.is_array()) {
        p.values = spec.get<std::vector<json>>();
    } else if (spec.is_object()) {
        for (const auto& [k, v] : spec.items())
            if (k != "values" && k != "value" && k != "min" && k != "max" && k != "distribution")
                refuse(at + "." + k, "unknown key (expected values, value, or min, max and distribution)");
        if (spec.contains("values")) {
            if (!spec["values"].is_array()) refuse(at + ".values", "expected a list of values");
            p.values = spec["values"].get<std::vector<json>>();
        } else if (spec.contains("value")) {
            p.values = {spec["value"]};
        } else if (spec.contains("min") && spec.contains("max")) {
            if (!spec["min"].is_number() || !spec["max"].is_number()) refuse(at, "min and max must be numbers");
            p.range = true;
            p.min = spec["min"].get<double>();
            p.max = spec["max"].get<double>();
            if (!(p.min <= p.max)) refuse(at, "min must not exceed max");
            if (spec.contains("distribution")) {
                if (!spec["distribution"].is_string()) refuse(at + ".distribution", "expected a string");
                p.distribution = spec["distribution"].get<std::string>();
            } else {
                const bool ints = spec["min"].is_number_integer() && spec["max"].is_number_integer();
                p.distribution = ints ? "int_uniform" : "uniform";
            }
            if (p.distribution != "uniform" && p.distribution != "log_uniform_values" &&
                p.distribution != "int_uniform")
                refuse(at + ".distribution",
                       "\"" + p.distribution + "\": expected uniform, log_uniform_values or int_uniform");
            if (p.distribution == "log_uniform_values" && p.min <= 0) refuse(at, "log_uniform_values needs min > 0");
        } else {
            refuse(at, "expected {\"values\": [...]}, {\"value\": v} or {\"min\": a, \"max\": b}");
        }
    } else {
        refuse(at, "expected a list of values or an object with values / min and max");
    }
    if (!p.range && p.values.empty()) refuse(at, "no values");
    return p;
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
    for (const auto& [k, v] : block.items())
        if (k != "name" && k != "method" && k != "parameters" && k != "seeds" && k != "count" && k != "metric" &&
            k != "random_seed" && k != "description")
            refuse(k, "unknown key (expected name, method, parameters, seeds, count, metric, random_seed)");
    json base = document;
    base.erase("sweep");
    const ConfigParseResult parsedBase = parseTrainConfig(base, baseDir, worldSize);
    if (!parsedBase.ok()) throw ConfigError("the config under the sweep: " + parsedBase.errorText());
    const json resolved = configToResolvedJson(*parsedBase.config);
    SweepPlan plan;
    const std::string runName =
        parsedBase.config->training.runName.empty() ? std::string("run") : parsedBase.config->training.runName;
    plan.name =
        block.contains("name") && block["name"].is_string() ? block["name"].get<std::string>() : runName + " sweep";
    if (block.contains("description")) {
        if (!block["description"].is_string()) refuse("description", "expected a string");
        plan.description = block["description"].get<std::string>();
    }
    plan.method = block.value("method", std::string("grid"));
    if (plan.method != "grid" && plan.method != "random")
        refuse("method", "\"" + plan.method + "\": expected grid or random (bayes is not built)");
    if (block.contains("metric")) {
        const json& m = block["metric"];
        if (!m.is_object() || !m.contains("name") || !m["name"].is_string())
            refuse("metric", "expected {\"name\": \"eval_loss\", \"goal\": \"minimize\"}");
        plan.metric = m["name"].get<std::string>();
        plan.goal = m.value("goal", std::string("minimize"));
        if (plan.goal != "minimize" && plan.goal != "maximize")
            refuse("metric.goal", "\"" + plan.goal + "\": expected minimize or maximize");
    }
    std::vector<Parameter> params;
    if (!block.contains("parameters") || !block["parameters"].is_object() || block["parameters"].empty())
        refuse("parameters", "expected an object naming at least one config key and its values");
    std::vector<std::string> order;  // the parameters as the file lists them
    if (ordered && ordered->contains("sweep") && (*ordered)["sweep"].contains("parameters") &&
        (*ordered)["sweep"]["parameters"].is_object())
        for (const auto& [key, spec] : (*ordered)["sweep"]["parameters"].items()) order.push_back(key);
    if (order.size() != block["parameters"].size()) {
        order.clear();
        for (const auto& [key, spec] : block["parameters"].items()) order.push_back(key);
    }
    for (const std::string& key : order) {
        const json& spec = block["parameters"][key];
        if (key == "sweep" || key.rfind("sweep.", 0) == 0) refuse("parameters." + key, "a sweep cannot sweep itself");
        if (!hasPath(resolved, key))
            refuse("parameters." + key,
                   "not a key this config reads (write it as the config's path, e.g. "
                   "deepspeed.optimizer.params.lr)");
        params.push_back(readParameter(key, spec));
        if (plan.method == "grid" && params.back().range)
            refuse("parameters." + key, "a grid needs a list of values (min and max are for method random)");
        plan.keys.push_back(key);
    }
    std::vector<json> seeds;
    if (block.contains("seeds")) {
        if (!block["seeds"].is_array() || block["seeds"].empty()) refuse("seeds", "expected a list of integers");
        for (const json& s : block["seeds"]) {
            if (!s.is_number_integer()) refuse("seeds", "expected integers, got " + s.dump());
            seeds.push_back(s);
        }
        if (block["parameters"].contains("training.seed"))
            refuse("seeds", "training.seed is also a swept parameter; give one of the two");
        plan.keys.push_back("training.seed");
    }
    // the combinations of values, in the block's order (the last key varies fastest)
    std::vector<json> combos;
    if (plan.method == "grid") {
        combos.push_back(json::object());
        for (const Parameter& p : params) {
            std::vector<json> next;
            for (const json& c : combos)
                for (const json& v : p.values) {
                    json n = c;
                    n[p.key] = v;
                    next.push_back(std::move(n));
                }
            combos = std::move(next);
            if (combos.size() > kMaxSweepRuns) refuse("parameters", "the grid has over 1000 runs");
        }
    } else {
        if (!block.contains("count") || !block["count"].is_number_integer() || block["count"].get<int64_t>() < 1)
            refuse("count", "method random needs count, the number of runs to draw (a positive integer)");
        const int64_t count = block["count"].get<int64_t>();
        if (count > int64_t(kMaxSweepRuns)) refuse("count", "over 1000 runs");
        std::mt19937_64 rng(block.value("random_seed", uint64_t(0)));
        for (int64_t i = 0; i < count; ++i) {
            json c = json::object();
            for (const Parameter& p : params) {
                if (!p.range) {
                    c[p.key] = p.values[std::uniform_int_distribution<size_t>(0, p.values.size() - 1)(rng)];
                } else if (p.distribution == "int_uniform") {
                    c[p.key] = std::uniform_int_distribution<int64_t>(int64_t(std::ceil(p.min)),
                                                                      int64_t(std::floor(p.max)))(rng);
                } else if (p.distribution == "log_uniform_values") {
                    c[p.key] = std::exp(std::uniform_real_distribution<double>(std::log(p.min), std::log(p.max))(rng));
                } else {
                    c[p.key] = std::uniform_real_distribution<double>(p.min, p.max)(rng);
                }
            }
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
        if (combos.size() > kMaxSweepRuns) refuse("seeds", "the sweep has over 1000 runs");
    }
    const fs::path outputDir = parsedBase.config->training.outputDir;
    for (const json& c : combos) {
        SweepRun run;
        run.config = base;
        std::string label;
        for (const std::string& key : plan.keys) {
            run.values[key] = c.at(key);
            setPath(run.config, key, c.at(key));
            label += " " + shortKey(key) + "=" + valueName(c.at(key));
        }
        run.name = runName + label;
        setPath(run.config, "training.run_name", run.name);
        setPath(run.config, "training.output_dir", (outputDir / folderOf(run.values)).string());
        const ConfigParseResult parsed = parseTrainConfig(run.config, baseDir, worldSize);
        if (!parsed.ok()) throw ConfigError("sweep run \"" + run.name + "\": " + parsed.errorText());
        for (const ConfigIssue& issue : parsed.issues)
            for (const std::string& key : plan.keys)
                if (!issue.isError && (issue.keyPath == key || issue.message.find(key) != std::string::npos)) {
                    const std::string w = issue.keyPath + ": " + issue.message;
                    if (std::find(plan.warnings.begin(), plan.warnings.end(), w) == plan.warnings.end())
                        plan.warnings.push_back(w);
                }
        plan.runs.push_back(std::move(run));
    }
    return plan;
}

}  // namespace fts
