// A config's `sweep` block (Weights & Biases' sweep names): the runs it expands into, each the config with the swept
// keys set, named and placed by its values. Grid: every combination of the listed values (int_uniform and q_uniform
// enumerated, as W&B's grid does); random: `count` (else `run_cap`) draws from W&B's distributions (categorical with
// or without probabilities, constant, int_uniform, uniform, the log, inverse log, normal, log-normal and beta ones
// and their q_ forms), seeded by `random_seed`; parameters by config path or nested as W&B nests them; `seeds`
// repeats each for every training.seed listed; `run_cap` keeps the first N runs. The queue (`fts queue add`) takes
// them. A swept key the config overrides is mapped to the key that rules it (the optimizer's lr under WarmupLR /
// WarmupDecayLR also sets warmup_max_lr) or refused (a key the config ignores); runs that would train the same
// config under different values are refused.
//
//   "sweep": {"name": "lr x rank", "method": "grid",
//             "parameters": {"deepspeed.optimizer.params.lr": {"values": [1e-4, 3e-4]}, "model.lora.r": [8, 16]},
//             "seeds": [1, 2], "metric": {"name": "eval_loss", "goal": "minimize"}}
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fts {

struct SweepRun {
    nlohmann::json config;          // the document without its sweep block, the swept keys set
    std::string name;               // "<run name> lr=0.0001 r=8 seed=1"
    nlohmann::ordered_json values;  // {"deepspeed.optimizer.params.lr": 0.0001, ..., "training.seed": 1}
};

struct SweepPlan {
    std::string name;               // sweep.name, or "<run name> sweep"
    std::string method;             // "grid" or "random"
    std::vector<std::string> keys;  // the swept keys, in the block's order (training.seed last when seeds are given)
    std::string metric = "eval_loss", goal = "minimize";
    // W&B's metric.target: once a run of the sweep reaches it, the queue cancels the sweep's runs not yet started
    std::optional<double> target;
    std::string description;  // sweep.description (W&B's free text), kept with each queued entry
    std::vector<SweepRun> runs;
    // W&B keys this does not use (program, command, entity, project), then the config's warnings about a swept key in
    // any run (a value it overrides or ignores, e.g. an optimizer lr the scheduler's warmup_max_lr replaces),
    // "key: message", each once.
    std::vector<std::string> warnings;
    // Swept keys another key overrides, mapped: "deepspeed.optimizer.params.lr: each run also sets
    // deepspeed.scheduler.params.warmup_max_lr ..." (a swept key overridden without a mapping is refused).
    std::vector<std::string> notes;
};

bool hasSweep(const nlohmann::json& document);

// Expands the document's sweep block. Every run's config is parsed (for worldSize ranks) and must be valid; its
// output_dir is the config's with the values' folder name under it. Throws ConfigError naming the sweep key
// (an unknown key of the block, a parameter the config does not read, an empty list, a grid over 1000 runs, ...) or
// the run whose config is refused.
// `ordered`: the same document read keeping its members' order (nlohmann::ordered_json), for the order of the
// parameters (names and folders list them as the file does); without it they go in alphabetical order.
SweepPlan expandSweep(const nlohmann::json& document, const std::filesystem::path& baseDir, int worldSize = 1,
                      const nlohmann::ordered_json* ordered = nullptr);

}  // namespace fts
