// Rotary position parameters read from config.json (torch-free): rope_parameters (transformers 5) or rope_scaling +
// rope_theta (4.x), with transformers 5.23's precedence (a non-empty rope_scaling wins), partial rotary dimensions
// and the types default, linear, dynamic (NTK), llama3, longrope (Phi-3) and yarn (gpt-oss). core/model/rope.h turns them into
// frequencies. Invariant: every value the formulas read is checked here, naming the key, before a weight is read.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/arch/hf_config.h"

namespace fts {

struct RopeConfig {
    std::string type = "default";  // default | linear | dynamic | llama3 | longrope
    double theta = 10000.0;
    double factor = 1.0;
    double lowFreqFactor = 1.0, highFreqFactor = 4.0;  // llama3
    int64_t originalMaxPositions = 0;                  // llama3, longrope
    int64_t maxPositions = 0;                          // max_position_embeddings (dynamic, longrope)
    int64_t dim = 0;                                   // rotary dimension: head_dim * partial_rotary_factor
    std::vector<double> shortFactor, longFactor;       // longrope: one divisor per frequency (dim / 2 each)
    double attentionFactor = 1.0;                      // longrope, yarn: cos and sin are scaled by it
    double betaFast = 32, betaSlow = 1;                // yarn: the ramp between extrapolated and interpolated
    bool truncate = true;                              // yarn: the ramp's bounds rounded outwards to whole dims
};

// The rope types supported, for messages.
inline constexpr const char* kSupportedRopeTypes = "default, linear, dynamic, llama3, longrope, yarn";

// Parses rope_scaling / rope_parameters / rope_theta (and partial_rotary_factor, top level or inside the dict).
// FormatError naming the key and listing supported types; a null inside the dict or a null rope_theta is an error
// (transformers fails on it); llama3 without original_max_position_embeddings takes maxPositions.
// topOriginalMax: the config's own original_max_position_embeddings attribute (Phi-3), which longrope prefers.
RopeConfig parseRopeConfig(const HfConfig& config, int64_t headDim, int64_t maxPositions,
                           std::optional<int64_t> topOriginalMax = std::nullopt);

// One rope dict (`dict` at `key`, e.g. rope_parameters["sliding_attention"]) with `theta` as its default base:
// what parseRopeConfig does once it has picked the dict. Used for per-layer-type parameters (Gemma 3).
RopeConfig parseRopeDict(const HfConfig& config, const nlohmann::json& dict, const std::string& key, double theta,
                         double partialRotary, int64_t headDim, int64_t maxPositions,
                         std::optional<int64_t> topOriginalMax = std::nullopt);

}  // namespace fts
