// Shared by the ZeRO integration tests (test_train_zero, test_train_offload): a tiny GPT-2 with the quick-start
// tokenizer and 400 stories, a config for `fts train` at a given stage and rank count (global batch 8, accumulation 2,
// clipping that triggers), and readers of the store's series and of exported weights.
#pragma once
#include <torch/torch.h>

#include <QString>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "tests/integration/fts_cli_support.h"

namespace fts::testing {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kZeroSteps = 30;

// A 2-layer, 32-wide GPT-2 with the quick-start tokenizer, and the first 400 stories as data.
inline void writeTinyModelAndData(const fs::path& dir) {
    fs::create_directories(dir / "model");
    json mcfg = json::parse(fts::readFile(kQuickstart / "model" / "config.json"));
    mcfg["n_embd"] = 32;
    mcfg["n_layer"] = 2;
    mcfg["n_head"] = 2;
    mcfg["n_positions"] = 64;
    std::ofstream(dir / "model" / "config.json") << mcfg.dump(2);
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
        fs::copy_file(kQuickstart / "model" / f, dir / "model" / f);
    std::ifstream in(kQuickstart / "sample_stories.jsonl");
    std::ofstream out(dir / "stories.jsonl");
    std::string line;
    for (int i = 0; i < 400 && std::getline(in, line); ++i) out << line << "\n";
}

// Global batch 8 = micro (8 / accum / nproc) x accum 2 x nproc.
inline fs::path writeConfig(const fs::path& dir, const std::string& name, int nproc, int stage,
                            const json& extra = json::object()) {
    json cfg = quickstartConfig(dir, name);
    cfg["model"] = {{"path", (dir / "model").string()}, {"init", "random"}};
    cfg["data"]["train"] = (dir / "stories.jsonl").string();
    cfg["data"]["max_length"] = 32;
    cfg["training"] = {{"max_steps", kZeroSteps},
                       {"eval_interval", 0},
                       {"save_interval", 0},
                       {"log_interval", 1},
                       {"eval_batches", 1},
                       {"device", "cpu"},
                       {"seed", 5},
                       {"output_dir", (dir / (name + "-out")).string()},
                       {"keep_checkpoints", 0}};
    cfg["deepspeed"]["train_micro_batch_size_per_gpu"] = 8 / 2 / nproc;
    cfg["deepspeed"]["gradient_accumulation_steps"] = 2;
    cfg["deepspeed"]["gradient_clipping"] = 0.5;
    cfg["deepspeed"]["scheduler"]["params"]["total_num_steps"] = kZeroSteps;
    cfg["deepspeed"]["zero_optimization"] = {
        {"stage", stage}, {"reduce_bucket_size", 5000}, {"allgather_bucket_size", 3000}};
    if (stage == 3) {  // biases and norms (<= 96 elements) stay whole; the next block (12,416 elements) is prefetched
        cfg["deepspeed"]["zero_optimization"]["stage3_param_persistence_threshold"] = 100;
        cfg["deepspeed"]["zero_optimization"]["stage3_prefetch_bucket_size"] = 15000;
        cfg["deepspeed"]["zero_optimization"]["stage3_max_live_parameters"] = 50000;
    }
    cfg.merge_patch(extra);
    fs::path file = dir / (name + ".json");
    std::ofstream(file) << cfg.dump(2);
    return file;
}

inline double relL2(const std::map<std::string, torch::Tensor>& a, const std::map<std::string, torch::Tensor>& b) {
    std::vector<torch::Tensor> x, y;
    for (const auto& [name, t] : b) {
        if (!a.count(name)) return INFINITY;
        x.push_back(a.at(name).reshape({-1}).to(torch::kFloat64));
        y.push_back(t.reshape({-1}).to(torch::kFloat64));
    }
    auto xa = torch::cat(x), ya = torch::cat(y);
    return (xa - ya).norm().item<double>() / std::max(1e-30, ya.norm().item<double>());
}

inline QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

}  // namespace fts::testing
