// The "deepspeed" block: DeepSpeed 0.19.8's semantics (runtime/config.py, precision_config.py,
// lr_schedules.py, engine._configure_basic_optimizer) re-stated for Finetune Studio, with every problem
// reported at once. Invariant: a block without errors resolves to a batch triple that satisfies
// train_batch_size == micro * accumulation * world size, exactly as DeepSpeed asserts it.
#include "core/config/deepspeed_block.h"

#include "core/config/offload_block.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fts::config_detail {
namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
const std::string kDs = "deepspeed";

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

// a * b * c, or nullopt when it does not fit int64.
std::optional<int64_t> checkedProduct(int64_t a, int64_t b, int64_t c) {
    int64_t ab = 0, abc = 0;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc)) return std::nullopt;
    return abc;
}

// Python's // on integers (rounds toward minus infinity).
int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

// Top-level DeepSpeed keys Finetune Studio reads.
const std::vector<std::string> kUsedTopKeys = {"train_batch_size",
                                               "train_micro_batch_size_per_gpu",
                                               "gradient_accumulation_steps",
                                               "gradient_clipping",
                                               "fp16",
                                               "bf16",
                                               "bfloat16",
                                               "optimizer",
                                               "scheduler",
                                               "zero_optimization",
                                               "steps_per_print",
                                               "wall_clock_breakdown",
                                               "aio"};

// Valid DeepSpeed 0.19.8 top-level keys that Finetune Studio accepts but does not act on (yet).
const std::vector<std::string> kIgnoredTopKeys = {"memory_breakdown",
                                                  "flops_profiler",
                                                  "tensorboard",
                                                  "wandb",
                                                  "csv_monitor",
                                                  "comet",
                                                  "comms_logger",
                                                  "activation_checkpointing",
                                                  "zero_allow_untested_optimizer",
                                                  "zero_force_ds_cpu_optimizer",
                                                  "prescale_gradients",
                                                  "gradient_predivide_factor",
                                                  "communication_data_type",
                                                  "seq_parallel_communication_data_type",
                                                  "gradient_allreduce_op",
                                                  "disable_allgather",
                                                  "dump_state",
                                                  "disable_python_gc",
                                                  "vocabulary_size",
                                                  "dataloader_drop_last",
                                                  "checkpoint",
                                                  "data_types",
                                                  "autotuning",
                                                  "compile",
                                                  "timers",
                                                  "tensor_parallel",
                                                  "expert_parallel",
                                                  "hybrid_engine",
                                                  "pipeline",
                                                  "data_efficiency",
                                                  "weight_quantization",
                                                  "torch_autocast",
                                                  "use_data_before_expert_parallelism",
                                                  "log_level",
                                                  "managed_gradient_accumulation",
                                                  "sequence_parallel_size",
                                                  "datastates_ckpt"};

// Keys DeepSpeed 0.19.8 itself rejects (runtime/config.py _REMOVED_TOP_LEVEL_CONFIG_KEYS).
const std::map<std::string, std::string> kRemovedTopKeys = {
    {"nebula", "Nebula checkpointing was removed from DeepSpeed"},
    {"compression_training", "the DeepSpeed compression library was removed"},
    {"amp", "NVIDIA Apex AMP integration was removed; use \"fp16\" or \"bf16\""},
    {"quantize_training", "Mixture-of-Quantization (\"quantize_training\") was removed"},
    {"sparse_gradients", "sparse compression of dense embedding gradients was removed"},
    {"eigenvalue", "eigenvalue-based Mixture-of-Quantization was removed"},
    {"sparse_attention", "DeepSpeed Sparse Attention was removed"},
    {"elasticity",
     "elastic training was removed; set train_batch_size / train_micro_batch_size_per_gpu / "
     "gradient_accumulation_steps directly"},
    {"graph_harvesting", "graph harvesting was removed"},
    {"curriculum_learning",
     "top-level curriculum_learning was removed (DeepSpeed now reads "
     "data_efficiency.data_sampling.curriculum_learning)"},
    {"progressive_layer_drop", "Progressive Layer Dropping was removed"},
};

// DeepSpeedZeroConfig's fields and aliases (zero/config.py, 0.19.8).
const std::vector<std::string> kZeroKeys = {"stage",
                                            "contiguous_gradients",
                                            "reduce_scatter",
                                            "reduce_bucket_size",
                                            "use_multi_rank_bucket_allreduce",
                                            "allgather_partitions",
                                            "allgather_bucket_size",
                                            "overlap_comm",
                                            "compute_grad_norm",
                                            "load_from_fp32_weights",
                                            "elastic_checkpoint",
                                            "offload_param",
                                            "offload_optimizer",
                                            "zenflow",
                                            "sub_group_size",
                                            "cpu_offload_param",
                                            "cpu_offload_use_pin_memory",
                                            "cpu_offload",
                                            "prefetch_bucket_size",
                                            "stage3_prefetch_bucket_size",
                                            "param_persistence_threshold",
                                            "stage3_param_persistence_threshold",
                                            "model_persistence_threshold",
                                            "stage3_model_persistence_threshold",
                                            "max_live_parameters",
                                            "stage3_max_live_parameters",
                                            "max_reuse_distance",
                                            "stage3_max_reuse_distance",
                                            "gather_16bit_weights_on_model_save",
                                            "stage3_gather_16bit_weights_on_model_save",
                                            "module_granularity_threshold",
                                            "stage3_module_granularity_threshold",
                                            "use_all_reduce_for_fetch_params",
                                            "stage3_use_all_reduce_for_fetch_params",
                                            "allgather_sequential",
                                            "stage3_allgather_sequential",
                                            "stage3_gather_fp16_weights_on_model_save",
                                            "ignore_unused_parameters",
                                            "legacy_stage1",
                                            "round_robin_gradients",
                                            "parameter_alignment",
                                            "zero_hpz_partition_size",
                                            "zero_quantized_weights",
                                            "zero_quantized_nontrainable_weights",
                                            "zero_quantized_gradients",
                                            "memory_efficient_linear",
                                            "pipeline_loading_checkpoint",
                                            "override_module_apply",
                                            "log_trace_cache_warnings",
                                            "enable_sanity_checks",
                                            "save_muon_momentum_buffer_in_memory",
                                            "leaf_module"};
const std::map<std::string, std::string> kRemovedZeroKeys = {
    {"mics_shard_size", "MiCS ZeRO-3 sharding was removed from DeepSpeed"},
    {"mics_hierarchical_params_gather", "MiCS ZeRO-3 sharding was removed from DeepSpeed"},
    {"zeropp_loco_param", "LoCo-Zero++ was removed from DeepSpeed"},
};

const std::string kNotUsedYet = "accepted but not used by Finetune Studio yet";

// A value that leaves a DeepSpeed feature off: false, or an object with "enabled": false.
bool isOffValue(const json& v) {
    if (v.is_boolean()) return !v.get<bool>();
    if (v.is_object()) {
        auto it = v.find("enabled");
        return it != v.end() && it->is_boolean() && !it->get<bool>();
    }
    return false;
}

// Warns "accepted but not used" for keys of `obj` in `ignored` (unless set to an off value).
void warnIgnored(IssueList& issues, const json& obj, const std::string& path, const std::vector<std::string>& ignored) {
    for (const auto& key : ignored) {
        const json* v = findField(obj, key.c_str());
        if (v && !isOffValue(*v) && !v->is_null()) issues.warning(joinKey(path, key), kNotUsedYet);
    }
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// ---- batch triple ------------------------------------------------------------------------------------

void resolveBatch(const json& block, int worldSize, IssueList& issues, DeepSpeedConfig& out) {
    const std::string kTb = "train_batch_size", kMb = "train_micro_batch_size_per_gpu",
                      kGas = "gradient_accumulation_steps";
    // Given values; "auto" and null count as not given (HF fills "auto"; DeepSpeed reads null as None).
    bool typeErrors = false;
    auto read = [&](const std::string& key) -> std::optional<int64_t> {
        const json* v = findField(block, key.c_str(), true);
        if (!v || v->is_null()) return std::nullopt;
        auto n = readInt(issues, *v, joinKey(kDs, key), std::numeric_limits<int64_t>::min(), kMaxInt,
                         "a positive integer or \"auto\"");
        if (!n) typeErrors = true;
        return n;
    };
    std::optional<int64_t> tb = read(kTb), mb = read(kMb), gas = read(kGas);
    if (typeErrors) return;

    const int64_t ws = worldSize;
    const std::string wsText = std::to_string(ws);
    auto zeroDivisor = [&](const std::string& key, const char* label) {
        // DeepSpeed itself would stop with a ZeroDivisionError here.
        issues.error(joinKey(kDs, key), std::string(label) + ": 0 has to be greater than 0");
    };
    std::string derived;  // how the missing values were derived, appended to messages about them
    bool tbDerived = false, mbDerived = false, gasDerived = false;
    // DeepSpeed's _set_batch_related_parameters, case by case (Python // floors).
    if (tb && mb && gas) {
        // all given: nothing to derive
    } else if (tb && mb) {
        if (*mb == 0) return zeroDivisor(kMb, "Micro batch size per gpu");
        gas = floorDiv(floorDiv(*tb, *mb), ws);
        gasDerived = true;
        derived =
            "gradient_accumulation_steps derived as train_batch_size // train_micro_batch_size_per_gpu // "
            "world_size = " +
            std::to_string(*tb) + " // " + std::to_string(*mb) + " // " + wsText + " = " + std::to_string(*gas);
    } else if (tb && gas) {
        if (*gas == 0) return zeroDivisor(kGas, "Gradient accumulation steps");
        mb = floorDiv(floorDiv(*tb, ws), *gas);
        mbDerived = true;
        derived =
            "train_micro_batch_size_per_gpu derived as train_batch_size // world_size // "
            "gradient_accumulation_steps = " +
            std::to_string(*tb) + " // " + wsText + " // " + std::to_string(*gas) + " = " + std::to_string(*mb);
    } else if (mb && gas) {
        tb = checkedProduct(*mb, *gas, ws);
        if (!tb) {
            issues.error(joinKey(kDs, kTb),
                         "train_micro_batch_size_per_gpu * gradient_accumulation_steps * "
                         "world_size does not fit a 64-bit integer");
            return;
        }
        tbDerived = true;
        derived =
            "train_batch_size derived as train_micro_batch_size_per_gpu * gradient_accumulation_steps * "
            "world_size = " +
            std::to_string(*mb) + " * " + std::to_string(*gas) + " * " + wsText;
    } else if (tb) {
        gas = 1;
        mb = floorDiv(*tb, ws);
        mbDerived = gasDerived = true;
        derived = "train_micro_batch_size_per_gpu derived as train_batch_size // world_size = " + std::to_string(*tb) +
                  " // " + wsText + " = " + std::to_string(*mb) + ", gradient_accumulation_steps = 1";
    } else if (mb) {
        tb = checkedProduct(*mb, 1, ws);
        if (!tb) {
            issues.error(joinKey(kDs, kTb),
                         "train_micro_batch_size_per_gpu * world_size does not fit a 64-bit integer");
            return;
        }
        gas = 1;
        tbDerived = gasDerived = true;
        derived = "train_batch_size derived as train_micro_batch_size_per_gpu * world_size = " + std::to_string(*mb) +
                  " * " + wsText + ", gradient_accumulation_steps = 1";
    } else {
        issues.error(joinKey(kDs, kTb),
                     "Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided "
                     "(\"auto\" counts as not provided: Finetune Studio has no Trainer arguments to fill it from)");
        return;
    }
    const std::string note = derived.empty() ? std::string() : " (" + derived + ")";

    // DeepSpeed's _batch_assertion on the resolved values; every failing check is reported (DeepSpeed
    // stops at the first, which is always among them).
    bool ok = true;
    auto positive = [&](int64_t v, bool wasDerived, const std::string& key, const char* label) {
        if (v > 0) return;
        issues.error(joinKey(kDs, key), std::string(label) + ": " + std::to_string(v) + " has to be greater than 0" +
                                            (wasDerived ? note : ""));
        ok = false;
    };
    positive(*tb, tbDerived, kTb, "Train batch size");
    positive(*mb, mbDerived, kMb, "Micro batch size per gpu");
    positive(*gas, gasDerived, kGas, "Gradient accumulation steps");
    if (ok) {
        if (checkedProduct(*mb, *gas, ws) != tb) {
            issues.error(joinKey(kDs, kTb),
                         "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
                         "gradient_acc_step * world_size " +
                             std::to_string(*tb) + " != " + std::to_string(*mb) + " * " + std::to_string(*gas) + " * " +
                             wsText + note);
        }
    }
    out.trainBatchSize = *tb;
    out.microBatchPerGpu = *mb;
    out.gradientAccumulationSteps = *gas;
}

// ---- fp16 / bf16 ----------------------------------------------------------------------------------------

void parseFp16(const json& block, IssueList& issues, Fp16Config& fp) {
    const json* v = findField(block, "fp16");
    if (!v) return;
    const std::string path = joinKey(kDs, "fp16");
    if (!expectObject(issues, *v, path)) return;
    const json& o = *v;
    auto key = [&](const char* k) { return joinKey(path, k); };
    if (auto f = findField(o, "enabled", true))
        if (auto b = readBool(issues, *f, key("enabled"))) fp.enabled = *b;
    if (auto f = findField(o, "loss_scale", true))
        if (auto n = readNumber(issues, *f, key("loss_scale"), 0.0, std::numeric_limits<double>::max(),
                                "a number >= 0 (0 enables dynamic loss scaling)"))
            fp.lossScale = *n;
    if (auto f = findField(o, "initial_scale_power", true))
        if (auto n = readInt(issues, *f, key("initial_scale_power"), 0, 127,
                             "an integer from 0 to 127 (the initial dynamic loss scale is 2^power)"))
            fp.initialScalePower = int(*n);
    std::optional<int64_t> window;
    if (auto f = findField(o, "loss_scale_window", true))
        if ((window = readInt(issues, *f, key("loss_scale_window"), std::numeric_limits<int>::min(),
                              std::numeric_limits<int>::max(), "an integer")))
            fp.lossScaleWindow = int(*window);
    if (auto f = findField(o, "hysteresis", true))
        if (auto n = readInt(issues, *f, key("hysteresis"), 1, std::numeric_limits<int>::max(),
                             "a positive integer (overflows tolerated before the scale shrinks)"))
            fp.hysteresis = int(*n);
    if (auto f = findField(o, "consecutive_hysteresis", true))
        if (auto b = readBool(issues, *f, key("consecutive_hysteresis"))) fp.consecutiveHysteresis = *b;
    std::optional<double> minScale;
    if (auto f = findField(o, "min_loss_scale", true))
        if ((minScale = readNumber(issues, *f, key("min_loss_scale"), std::numeric_limits<double>::lowest(),
                                   std::numeric_limits<double>::max(), "a number")))
            fp.minLossScale = *minScale;
    // precision_config.py: window and floor only matter (and are only checked) with dynamic scaling on.
    if (fp.enabled && fp.lossScale == 0.0) {
        if (window && *window <= 0)
            issues.error(key("loss_scale_window"),
                         "fp16.loss_scale_window must be > 0 when dynamic loss scaling "
                         "is enabled (loss_scale=0), got " +
                             std::to_string(*window));
        if (minScale && *minScale <= 0)
            issues.error(key("min_loss_scale"),
                         "fp16.min_loss_scale must be > 0 when dynamic loss scaling is "
                         "enabled (loss_scale=0), got " +
                             describeValue(o["min_loss_scale"]));
    }
    if (auto f = findField(o, "fp16_master_weights_and_grads"))
        if (auto b = readBool(issues, *f, key("fp16_master_weights_and_grads")); b && *b)
            issues.error(key("fp16_master_weights_and_grads"),
                         "Fp16_master_weights_and_grads is only supported with ZeRO Stage 1, 2, or 3 (this version "
                         "supports stage 0 only); expected false");
    warnIgnored(issues, o, path, {"auto_cast"});
    warnUnknownKeys(issues, o, path,
                    {"enabled", "auto_cast", "loss_scale", "initial_scale_power", "loss_scale_window", "hysteresis",
                     "consecutive_hysteresis", "min_loss_scale", "fp16_master_weights_and_grads"},
                    "DeepSpeed rejects unknown fp16 keys");
}

// Returns the key path of the block that set bf16 (for the fp16+bf16 conflict message).
std::string parseBf16(const json& block, IssueList& issues, bool& enabled) {
    std::string name = "bf16";
    const json* v = findField(block, "bf16");
    if (const json* old = findField(block, "bfloat16")) {
        if (v)
            issues.warning(joinKey(kDs, "bfloat16"),
                           "ignored: \"bf16\" is present (DeepSpeed reads the legacy \"bfloat16\" block only when "
                           "\"bf16\" is absent)");
        else {
            v = old;
            name = "bfloat16";
        }
    }
    const std::string path = joinKey(kDs, name);
    if (!v || !expectObject(issues, *v, path)) return path;
    const json& o = *v;
    if (auto f = findField(o, "enabled", true))
        if (auto b = readBool(issues, *f, joinKey(path, "enabled"))) enabled = *b;
    for (const char* k : {"bf16_master_weights_and_grads", "bf16_optimizer_states"}) {
        if (auto f = findField(o, k))
            if (auto b = readBool(issues, *f, joinKey(path, k)); b && *b)
                issues.error(joinKey(path, k), std::string(k) +
                                                   " is only supported with ZeRO Stage 1, 2, or 3 (this version "
                                                   "supports stage 0 only); expected false");
    }
    warnIgnored(issues, o, path, {"immediate_grad_update", "check_grad_overflow", "check_overflow"});
    warnUnknownKeys(issues, o, path,
                    {"enabled", "immediate_grad_update", "check_grad_overflow", "check_overflow",
                     "bf16_master_weights_and_grads", "bf16_optimizer_states"},
                    "DeepSpeed rejects unknown bf16 keys");
    return path;
}

// ---- optimizer ------------------------------------------------------------------------------------------

void parseOptimizer(const json& block, IssueList& issues, OptimizerConfig& opt) {
    const json* v = findField(block, "optimizer");
    if (!v) return;  // no optimizer block: AdamW with DeepSpeed's FusedAdam defaults
    const std::string path = joinKey(kDs, "optimizer");
    if (!expectObject(issues, *v, path)) return;
    const json& o = *v;
    const std::string typePath = joinKey(path, "type");
    bool typeOk = false;
    if (const json* t = findField(o, "type")) {
        if (auto s = readString(issues, *t, typePath)) {
            const std::string l = lower(*s);
            if (l == "adam") {
                opt.type = "Adam";
                typeOk = true;
            } else if (l == "adamw") {
                opt.type = "AdamW";
                typeOk = true;
            } else {
                issues.error(typePath, "optimizer type \"" + *s +
                                           "\" is not supported by Finetune Studio yet; supported: Adam, AdamW "
                                           "(case-insensitive)");
            }
        }
    } else {
        issues.error(typePath, "missing; expected the optimizer type: Adam or AdamW");
    }

    const std::string pp = joinKey(path, "params");
    const json* params = findField(o, "params");
    json empty = json::object();
    if (params && params->is_null()) params = nullptr;
    if (params && !expectObject(issues, *params, pp)) params = nullptr;
    const json& p = params ? *params : empty;
    auto key = [&](const char* k) { return joinKey(pp, k); };

    if (auto f = findField(p, "lr", true))
        if (auto n = readNumber(issues, *f, key("lr"), 0.0, std::numeric_limits<double>::max(), "a number >= 0"))
            opt.lr = *n;
    if (auto f = findField(p, "betas", true)) {
        const json& b = *f;
        const bool good = b.is_array() && b.size() == 2 && b[0].is_number() && b[1].is_number() &&
                          b[0].get<double>() >= 0.0 && b[0].get<double>() < 1.0 && b[1].get<double>() >= 0.0 &&
                          b[1].get<double>() < 1.0;
        if (good) {
            opt.beta1 = b[0].get<double>();
            opt.beta2 = b[1].get<double>();
        } else {
            issues.error(key("betas"), "expected [beta1, beta2], each a number in [0, 1), got " + describeValue(b));
        }
    }
    if (auto f = findField(p, "eps", true))
        if (auto n = readNumber(issues, *f, key("eps"), 0.0, std::numeric_limits<double>::max(), "a number >= 0"))
            opt.eps = *n;
    std::optional<double> weightDecay;
    if (auto f = findField(p, "weight_decay", true))
        weightDecay =
            readNumber(issues, *f, key("weight_decay"), 0.0, std::numeric_limits<double>::max(), "a number >= 0");
    std::optional<bool> adamWMode;
    if (auto f = findField(p, "adam_w_mode", true)) adamWMode = readBool(issues, *f, key("adam_w_mode"));
    bool torchAdam = false;
    if (auto f = findField(p, "torch_adam"))
        if (auto b = readBool(issues, *f, key("torch_adam")); b && *b) {
            torchAdam = true;
            issues.warning(key("torch_adam"), kNotUsedYet +
                                                  " (Finetune Studio always uses its own Adam; only DeepSpeed's "
                                                  "weight_decay default for torch.optim.AdamW, 0.01, is kept)");
        }
    if (auto f = findField(p, "bias_correction"))
        if (auto b = readBool(issues, *f, key("bias_correction")); b && !*b)
            issues.error(key("bias_correction"),
                         "false is not supported: Finetune Studio's Adam always applies "
                         "bias correction; expected true");
    if (auto f = findField(p, "amsgrad"))
        if (auto b = readBool(issues, *f, key("amsgrad")); b && *b)
            issues.error(key("amsgrad"),
                         "true is not supported (DeepSpeed's FusedAdam rejects the AMSGrad variant "
                         "too); expected false");
    if (findField(p, "max_grad_norm"))
        issues.error(key("max_grad_norm"),
                     "'max_grad_norm' is not supported as an optimizer parameter, please "
                     "switch to using the deepspeed parameter 'gradient_clipping'");
    for (const char* k : {"fp32_optimizer_states", "foreach", "set_grad_none"})
        if (const json* f = findField(p, k); f && !f->is_null()) issues.warning(key(k), kNotUsedYet);
    const std::vector<std::string> known = {
        "lr",         "betas",           "eps",     "weight_decay",  "adam_w_mode",
        "torch_adam", "bias_correction", "amsgrad", "max_grad_norm", "fp32_optimizer_states",
        "foreach",    "set_grad_none"};
    for (auto it = p.begin(); it != p.end(); ++it) {
        if (std::find(known.begin(), known.end(), it.key()) != known.end()) continue;
        issues.error(key(it.key().c_str()),
                     "unknown Adam parameter \"" + it.key() + "\"" + didYouMean(it.key(), known) +
                         " (DeepSpeed passes params to the optimizer's constructor, which would reject it); "
                         "expected one of: lr, betas, eps, weight_decay, adam_w_mode");
    }

    // engine._configure_basic_optimizer: AdamW forces decoupled decay; Adam follows adam_w_mode (default true).
    if (typeOk) {
        opt.adamWMode = opt.type == "AdamW" || adamWMode.value_or(true);
        if (opt.type == "AdamW" && adamWMode && !*adamWMode)
            issues.warning(key("adam_w_mode"),
                           "ignored: type AdamW always uses decoupled weight decay (DeepSpeed: "
                           "AdamW forces adam_w_mode); use type Adam for L2-style decay");
    }
    // Default weight decay: FusedAdam's 0.0; with torch_adam DeepSpeed builds torch.optim.AdamW (0.01) or
    // torch.optim.Adam (0.0).
    opt.weightDecay = weightDecay.value_or(torchAdam && opt.adamWMode ? 0.01 : 0.0);

    if (auto f = findField(o, "legacy_fusion"); f && !isOffValue(*f))
        issues.warning(joinKey(path, "legacy_fusion"), kNotUsedYet);
    warnUnknownKeys(issues, o, path, {"type", "params", "legacy_fusion"});
}

// ---- scheduler ------------------------------------------------------------------------------------------

struct SchedulerSpec {
    SchedulerType type;
    const char* name;
    std::vector<std::string> params;  // the keyword arguments DeepSpeed's class accepts
};

const std::vector<SchedulerSpec>& schedulerSpecs() {
    static const std::vector<SchedulerSpec> specs = {
        {SchedulerType::WarmupLR,
         "WarmupLR",
         {"warmup_min_lr", "warmup_max_lr", "warmup_num_steps", "warmup_type", "last_batch_iteration"}},
        {SchedulerType::WarmupDecayLR,
         "WarmupDecayLR",
         {"total_num_steps", "warmup_min_lr", "warmup_max_lr", "warmup_num_steps", "warmup_type",
          "last_batch_iteration"}},
        {SchedulerType::WarmupCosineLR,
         "WarmupCosineLR",
         {"total_num_steps", "warmup_min_ratio", "warmup_num_steps", "cos_min_ratio", "warmup_type",
          "last_batch_iteration"}},
    };
    return specs;
}

// WarmupLR and WarmupDecayLR set the optimizer's lr every step from warmup_min_lr up to warmup_max_lr: the
// optimizer's own lr is then not the peak. A config that names an optimizer lr other than that peak (or relies
// on WarmupDecayLR's default peak of 0.001) gets a warning at the optimizer's lr, where the form shows "Learning
// rate", so a run labelled lr 0.001 does not silently peak at warmup_max_lr.
void warnOptimizerLrNotThePeak(const json& block, const SchedulerSpec& spec, const json* rawMaxLr, double peak,
                               IssueList& issues) {
    const json* opt = findField(block, "optimizer");
    const json* params = opt && opt->is_object() ? findField(*opt, "params") : nullptr;
    const json* lr = params && params->is_object() ? findField(*params, "lr") : nullptr;
    if (!lr || !lr->is_number() || (rawMaxLr && !rawMaxLr->is_number())) return;
    const double given = lr->get<double>();
    if (given == peak) return;
    const std::string maxKey = joinKey(kDs, "scheduler.params.warmup_max_lr");
    issues.warning(joinKey(kDs, "optimizer.params.lr"),
                   json(given).dump() + " is not the peak learning rate: " + spec.name +
                       " sets the optimizer's lr "
                       "every step and peaks at " +
                       maxKey + " = " + json(peak).dump() + (rawMaxLr ? std::string() : " (DeepSpeed's default)") +
                       "; give both the same value (or \"auto\" for warmup_max_lr)");
}

void parseScheduler(const json& block, int64_t maxSteps, double optimizerLr, IssueList& issues, SchedulerConfig& sch) {
    const json* v = findField(block, "scheduler");
    if (!v || v->is_null()) return;
    const std::string path = joinKey(kDs, "scheduler");
    if (!expectObject(issues, *v, path)) return;
    const json& o = *v;
    warnUnknownKeys(issues, o, path, {"type", "params"});
    const std::string typePath = joinKey(path, "type");
    const std::string supported = "supported: WarmupLR, WarmupDecayLR, WarmupCosineLR";
    const SchedulerSpec* spec = nullptr;
    const json* t = findField(o, "type");
    if (!t) {
        issues.error(typePath, "missing; expected the scheduler type (" + supported + ")");
        return;
    }
    auto name = readString(issues, *t, typePath);
    if (!name) return;
    for (const auto& s : schedulerSpecs())
        if (*name == s.name) spec = &s;
    if (!spec) {
        std::string msg = "scheduler type \"" + *name + "\" is not supported by Finetune Studio yet; " + supported;
        for (const auto& s : schedulerSpecs())
            if (lower(*name) == lower(s.name))
                msg = "unknown scheduler type \"" + *name +
                      "\" (DeepSpeed's names are case-sensitive), did you mean \"" + s.name + "\"? " + supported;
        issues.error(typePath, msg);
        return;
    }
    sch.type = spec->type;

    const std::string pp = joinKey(path, "params");
    const json* params = findField(o, "params");
    json empty = json::object();
    if (params && params->is_null()) params = nullptr;
    if (params && !expectObject(issues, *params, pp)) params = nullptr;
    const json& p = params ? *params : empty;
    auto key = [&](const std::string& k) { return joinKey(pp, k); };

    // Keyword arguments the class does not take make DeepSpeed fail with a TypeError.
    const std::vector<std::string> allParams = {"warmup_min_lr", "warmup_max_lr",       "warmup_num_steps",
                                                "warmup_type",   "total_num_steps",     "warmup_min_ratio",
                                                "cos_min_ratio", "last_batch_iteration"};
    for (auto it = p.begin(); it != p.end(); ++it) {
        if (std::find(spec->params.begin(), spec->params.end(), it.key()) != spec->params.end()) continue;
        const bool otherScheduler = std::find(allParams.begin(), allParams.end(), it.key()) != allParams.end();
        issues.error(key(it.key()), std::string(spec->name) + " does not take \"" + it.key() + "\"" +
                                        (otherScheduler ? "" : didYouMean(it.key(), spec->params)) +
                                        " (DeepSpeed would fail with an unexpected keyword argument); its "
                                        "parameters are: " +
                                        joinNames(spec->params));
    }
    auto takes = [&](const char* k) {
        return std::find(spec->params.begin(), spec->params.end(), k) != spec->params.end();
    };
    const double kMaxD = std::numeric_limits<double>::max();

    if (takes("warmup_min_lr")) {
        sch.warmupMinLr = 0.0;
        if (auto f = findField(p, "warmup_min_lr", true))
            if (auto n = readNumber(issues, *f, key("warmup_min_lr"), 0.0, kMaxD, "a number >= 0"))
                sch.warmupMinLr = *n;
    }
    if (takes("warmup_max_lr")) {
        // DeepSpeed: WarmupLR's default is the optimizer's lr, WarmupDecayLR's is 0.001. "auto" is what HF
        // fills with the learning rate, i.e. the optimizer's lr.
        const json* raw = findField(p, "warmup_max_lr");
        const bool fromOptimizer = spec->type == SchedulerType::WarmupLR || (raw && isAuto(*raw));
        sch.warmupMaxLr = fromOptimizer ? optimizerLr : 0.001;
        if (raw && !isAuto(*raw))
            if (auto n = readNumber(issues, *raw, key("warmup_max_lr"), 0.0, kMaxD, "a number >= 0"))
                sch.warmupMaxLr = *n;
    }
    if (takes("warmup_max_lr"))
        warnOptimizerLrNotThePeak(block, *spec, findField(p, "warmup_max_lr"), sch.warmupMaxLr, issues);
    if (auto f = findField(p, "warmup_num_steps", true))
        if (auto n = readInt(issues, *f, key("warmup_num_steps"), 1, kMaxInt, "a positive integer"))
            sch.warmupNumSteps = *n;
    if (auto f = findField(p, "warmup_type", true)) {
        if (auto s = readString(issues, *f, key("warmup_type"))) {
            if (*s == "log" || *s == "linear") {
                sch.warmupType = *s;
            } else {
                sch.warmupType = "log";
                issues.warning(key("warmup_type"), "unknown warmup_type \"" + *s +
                                                       "\"; DeepSpeed falls back to \"log\" (expected \"log\" or "
                                                       "\"linear\")");
            }
        }
    }
    if (takes("warmup_min_ratio"))
        if (auto f = findField(p, "warmup_min_ratio", true))
            if (auto n = readNumber(issues, *f, key("warmup_min_ratio"), 0.0, kMaxD, "a number >= 0"))
                sch.warmupMinRatio = *n;
    if (takes("cos_min_ratio"))
        if (auto f = findField(p, "cos_min_ratio", true))
            if (auto n = readNumber(issues, *f, key("cos_min_ratio"), 0.0, kMaxD, "a number >= 0"))
                sch.cosMinRatio = *n;
    if (auto f = findField(p, "last_batch_iteration", true)) {
        auto n = readInt(issues, *f, key("last_batch_iteration"), -1, -1,
                         "-1 (starting elsewhere is not supported: resuming restores the schedule position from "
                         "the checkpoint)");
        (void)n;
    }
    if (takes("total_num_steps")) {
        if (auto f = findField(p, "total_num_steps", true)) {
            if (auto n = readInt(issues, *f, key("total_num_steps"), 1, kMaxInt, "a positive integer"))
                sch.totalNumSteps = *n;
        } else {
            sch.totalNumSteps = maxSteps;  // 0 (training by epochs): the run's optimizer steps, known at run start
        }
        if (sch.totalNumSteps > 0 && sch.totalNumSteps < sch.warmupNumSteps)
            issues.warning(key("total_num_steps"), "total_num_steps " + std::to_string(sch.totalNumSteps) +
                                                       " is less than warmup_num_steps " +
                                                       std::to_string(sch.warmupNumSteps));
    }
}

// ---- ZeRO -----------------------------------------------------------------------------------------------

void parseZero(const json& block, const std::filesystem::path& baseDir, IssueList& issues, int& stage,
               ZeroConfig& zero) {
    const json* v = findField(block, "zero_optimization");
    if (!v) return;
    const std::string path = joinKey(kDs, "zero_optimization");
    if (v->is_boolean()) {  // DeepSpeed's deprecated form: true = stage 1, false = stage 0
        stage = v->get<bool>() ? 1 : 0;
        issues.warning(path, std::string("deprecated form (DeepSpeed reads ") + (stage ? "true" : "false") +
                                 " as {\"stage\": " + std::to_string(stage) +
                                 "}); write {\"stage\": " + std::to_string(stage) + "}");
        return;
    }
    if (!expectObject(issues, *v, path)) return;
    const json& o = *v;
    if (auto f = findField(o, "stage", true)) {
        if (auto n = readInt(issues, *f, joinKey(path, "stage"), 0, 3, "a ZeRO stage 0-3")) stage = int(*n);
    }
    const int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
    if (auto f = findField(o, "reduce_bucket_size", true))
        if (auto n = readInt(issues, *f, joinKey(path, "reduce_bucket_size"), 1, kMax, "a number of elements > 0"))
            zero.reduceBucketSize = *n;
    if (auto f = findField(o, "allgather_bucket_size", true))
        if (auto n = readInt(issues, *f, joinKey(path, "allgather_bucket_size"), 0, kMax, "a number of elements >= 0"))
            zero.allgatherBucketSize = std::max<int64_t>(1, *n);
    if (auto f = findField(o, "overlap_comm", true))
        if (auto b = readBool(issues, *f, joinKey(path, "overlap_comm"))) {
            zero.overlapComm = *b;
            if (*b)
                issues.warning(
                    joinKey(path, "overlap_comm"),
                    "no effect in this version: each bucket is reduced when it fills, on the training thread "
                    "(docs/zero.md)");
        }
    if (auto f = findField(o, "contiguous_gradients", true))
        if (auto b = readBool(issues, *f, joinKey(path, "contiguous_gradients"))) zero.contiguousGradients = *b;
    if (auto f = findField(o, "reduce_scatter", true))
        if (auto b = readBool(issues, *f, joinKey(path, "reduce_scatter"))) zero.reduceScatter = *b;
    // Stage 3 keys, under DeepSpeed's alias (stage3_...) or its field name; elements, >= 0 as DeepSpeed's pydantic
    // fields require.
    auto stage3Key = [&](const char* alias, const char* field, int64_t& into) {
        for (const char* k : {alias, field})
            if (auto f = findField(o, k, true))
                if (auto n = readInt(issues, *f, joinKey(path, k), 0, kMax, "a number of elements >= 0")) into = *n;
    };
    stage3Key("stage3_prefetch_bucket_size", "prefetch_bucket_size", zero.prefetchBucketSize);
    stage3Key("stage3_param_persistence_threshold", "param_persistence_threshold", zero.paramPersistenceThreshold);
    stage3Key("stage3_max_live_parameters", "max_live_parameters", zero.maxLiveParameters);
    parseZeroOffload(o, path, stage, baseDir, issues, zero);  // offload_optimizer, offload_param, sub_group_size
    warnUnusedZeroKeys(o, path, issues);
    for (const auto& [k, why] : kRemovedZeroKeys)
        if (o.contains(k)) issues.error(joinKey(path, k), why + "; DeepSpeed 0.19 rejects this key, remove it");
    std::vector<std::string> known = kZeroKeys;
    for (const auto& [k, why] : kRemovedZeroKeys) known.push_back(k);
    warnUnknownKeys(issues, o, path, known, "DeepSpeed rejects unknown zero_optimization keys");
}

}  // namespace

const char* schedulerTypeName(SchedulerType type) {
    switch (type) {
        case SchedulerType::WarmupLR:
            return "WarmupLR";
        case SchedulerType::WarmupDecayLR:
            return "WarmupDecayLR";
        case SchedulerType::WarmupCosineLR:
            return "WarmupCosineLR";
        case SchedulerType::None:
            break;
    }
    return "";
}

DeepSpeedConfig parseDeepSpeedBlock(const json& block, int worldSize, int64_t maxSteps, IssueList& issues,
                                    const std::filesystem::path& baseDir) {
    DeepSpeedConfig out;
    out.worldSize = worldSize;
    if (!expectObject(issues, block, kDs)) return out;

    // Top-level keys: removed from DeepSpeed (error), used, accepted-but-ignored (warning), unknown (warning).
    for (auto it = block.begin(); it != block.end(); ++it) {
        const std::string& k = it.key();
        if (auto r = kRemovedTopKeys.find(k); r != kRemovedTopKeys.end()) {
            issues.error(joinKey(kDs, k), r->second + "; DeepSpeed 0.19 rejects this key, remove it");
            continue;
        }
        if (std::find(kUsedTopKeys.begin(), kUsedTopKeys.end(), k) != kUsedTopKeys.end()) continue;
        if (std::find(kIgnoredTopKeys.begin(), kIgnoredTopKeys.end(), k) != kIgnoredTopKeys.end()) {
            if (!isOffValue(it.value()) && !it->is_null()) issues.warning(joinKey(kDs, k), kNotUsedYet);
            continue;
        }
        issues.warning(joinKey(kDs, k), "unknown DeepSpeed key \"" + k + "\" (ignored)" +
                                            didYouMean(k, concat(kUsedTopKeys, kIgnoredTopKeys)));
    }

    if (worldSize < 1) {
        issues.error(kDs, "the world size must be at least 1, got " + std::to_string(worldSize));
    } else {
        resolveBatch(block, worldSize, issues, out);
    }

    if (auto f = findField(block, "gradient_clipping", true))
        if (auto n = readNumber(issues, *f, joinKey(kDs, "gradient_clipping"), 0.0, std::numeric_limits<double>::max(),
                                "a number >= 0 (0 turns clipping off)"))
            out.gradientClipping = *n;
    if (auto f = findField(block, "steps_per_print", true)) {
        if (f->is_null())
            out.steps_per_print = 0;
        else if (auto n = readInt(issues, *f, joinKey(kDs, "steps_per_print"), 1, std::numeric_limits<int>::max(),
                                  "a positive integer, or null for never"))
            out.steps_per_print = int(*n);
    }
    // Forward, backward and optimizer-step times per step, as metrics at the log interval (core/train/step_timer.h).
    if (auto f = findField(block, "wall_clock_breakdown", true))
        if (auto b = readBool(issues, *f, joinKey(kDs, "wall_clock_breakdown"))) out.wallClockBreakdown = *b;

    parseFp16(block, issues, out.fp16);
    bool bf16 = false;
    const std::string bf16Path = parseBf16(block, issues, bf16);
    out.bf16 = bf16;
    if (out.fp16.enabled && out.bf16)
        issues.error(joinKey(bf16Path, "enabled"),
                     "bfloat16 and fp16 modes cannot be simultaneously enabled; "
                     "expected at most one of fp16.enabled and bf16.enabled");

    parseOptimizer(block, issues, out.optimizer);
    parseScheduler(block, maxSteps, out.optimizer.lr, issues, out.scheduler);
    parseZero(block, baseDir, issues, out.zeroStage, out.zero);
    parseAio(block, issues, out.aio);
    return out;
}

json deepSpeedToJson(const DeepSpeedConfig& ds) {
    json out = json::object();
    out["train_batch_size"] = ds.trainBatchSize;
    out["train_micro_batch_size_per_gpu"] = ds.microBatchPerGpu;
    out["gradient_accumulation_steps"] = ds.gradientAccumulationSteps;
    out["gradient_clipping"] = ds.gradientClipping;
    out["steps_per_print"] = ds.steps_per_print > 0 ? json(ds.steps_per_print) : json(nullptr);
    out["wall_clock_breakdown"] = ds.wallClockBreakdown;
    const Fp16Config& fp = ds.fp16;
    out["fp16"] = {{"enabled", fp.enabled},
                   {"loss_scale", fp.lossScale},
                   {"initial_scale_power", fp.initialScalePower},
                   {"loss_scale_window", fp.lossScaleWindow},
                   {"hysteresis", fp.hysteresis},
                   {"consecutive_hysteresis", fp.consecutiveHysteresis},
                   {"min_loss_scale", fp.minLossScale}};
    out["bf16"] = {{"enabled", ds.bf16Auto ? json("auto") : json(ds.bf16)}};
    const OptimizerConfig& o = ds.optimizer;
    out["optimizer"] = {{"type", o.type},
                        {"params",
                         {{"lr", o.lr},
                          {"betas", {o.beta1, o.beta2}},
                          {"eps", o.eps},
                          {"weight_decay", o.weightDecay},
                          {"adam_w_mode", o.adamWMode}}}};
    const SchedulerConfig& s = ds.scheduler;
    if (s.type != SchedulerType::None && !isTrainerScheduler(s.type)) {  // the Trainer's: in the training section
        json p = json::object();
        if (s.type == SchedulerType::WarmupLR || s.type == SchedulerType::WarmupDecayLR) {
            p["warmup_min_lr"] = s.warmupMinLr;
            p["warmup_max_lr"] = s.warmupMaxLr;
        }
        // "auto" where the run's step count decides (training by epochs, a warm-up fraction)
        p["warmup_num_steps"] = s.warmupRatio >= 0 ? json("auto") : json(s.warmupNumSteps);
        p["warmup_type"] = s.warmupType;
        if (s.type != SchedulerType::WarmupLR)
            p["total_num_steps"] = s.totalNumSteps > 0 ? json(s.totalNumSteps) : json("auto");
        if (s.type == SchedulerType::WarmupCosineLR) {
            p["warmup_min_ratio"] = s.warmupMinRatio;
            p["cos_min_ratio"] = s.cosMinRatio;
        }
        out["scheduler"] = {{"type", schedulerTypeName(s.type)}, {"params", p}};
    }
    out["zero_optimization"] = {{"stage", ds.zeroStage},
                                {"reduce_bucket_size", ds.zero.reduceBucketSize},
                                {"allgather_bucket_size", ds.zero.allgatherBucketSize},
                                {"overlap_comm", ds.zero.overlapComm},
                                {"contiguous_gradients", ds.zero.contiguousGradients},
                                {"reduce_scatter", ds.zero.reduceScatter},
                                {"stage3_prefetch_bucket_size", ds.zero.prefetchBucketSize},
                                {"stage3_param_persistence_threshold", ds.zero.paramPersistenceThreshold},
                                {"stage3_max_live_parameters", ds.zero.maxLiveParameters},
                                {"sub_group_size", ds.zero.subGroupSize}};
    if (ds.zero.offloadOptimizer.enabled())
        out["zero_optimization"]["offload_optimizer"] = offloadOptimizerToJson(ds.zero.offloadOptimizer);
    if (ds.zero.offloadParam.enabled())
        out["zero_optimization"]["offload_param"] = offloadParamToJson(ds.zero.offloadParam);
    out["aio"] = aioToJson(ds.aio);
    return out;
}

}  // namespace fts::config_detail
