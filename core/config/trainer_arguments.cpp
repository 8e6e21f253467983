// The Hugging Face Trainer's arguments in the training section and the "auto" values they fill (see
// trainer_arguments.h). transformers 5.23's HfTrainerDeepSpeedConfig is the reference; the test
// tests/core/config/test_trainer_auto.cpp runs it side by side.
#include "core/config/trainer_arguments.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fts::config_detail {
namespace {

const std::string kDs = "deepspeed";
constexpr double kMaxD = std::numeric_limits<double>::max();
constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();

// The Trainer's defaults (TrainingArguments, transformers 5.23).
constexpr int64_t kDefaultMicroBatch = 8;
constexpr double kDefaultLr = 5e-5, kDefaultBeta1 = 0.9, kDefaultBeta2 = 0.999, kDefaultEps = 1e-8;
constexpr double kDefaultMaxGradNorm = 1.0;

struct SchedulerName {
    const char* name;
    SchedulerType type;
    std::vector<std::string> kwargs;  // lr_scheduler_kwargs the Trainer passes on
};

const std::vector<SchedulerName>& trainerSchedulers() {
    static const std::vector<SchedulerName> names = {
        {"linear", SchedulerType::HfLinear, {}},
        {"cosine", SchedulerType::HfCosine, {"num_cycles"}},
        {"cosine_with_restarts", SchedulerType::HfCosineWithRestarts, {"num_cycles"}},
        {"polynomial", SchedulerType::HfPolynomial, {"lr_end", "power"}},
        {"constant", SchedulerType::HfConstant, {}},
        {"constant_with_warmup", SchedulerType::HfConstantWithWarmup, {}},
        {"inverse_sqrt", SchedulerType::HfInverseSqrt, {"timescale"}},
        {"cosine_with_min_lr", SchedulerType::HfCosineWithMinLr, {"num_cycles", "min_lr", "min_lr_rate"}},
    };
    return names;
}

// The node holding the last part of a dotted path inside `block`, or nullptr where a parent is missing
// (HfDeepSpeedConfig.find_config_node: nothing is filled or compared then).
json* parentNode(json& block, const std::vector<std::string>& parts) {
    json* node = &block;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        if (!node->is_object()) return nullptr;
        auto it = node->find(parts[i]);
        if (it == node->end()) return nullptr;
        node = &*it;
    }
    return node->is_object() ? node : nullptr;
}

std::vector<std::string> splitKey(const std::string& dotted) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t dot; (dot = dotted.find('.', start)) != std::string::npos; start = dot + 1)
        parts.push_back(dotted.substr(start, dot - start));
    parts.push_back(dotted.substr(start));
    return parts;
}

// What fill_match / fill_only do for one key of the block.
class Filler {
public:
    Filler(json& block, IssueList& issues) : m_block(block), m_issues(issues) {}

    bool isAuto(const std::string& dsKey) const {
        const auto parts = splitKey(dsKey);
        json* parent = parentNode(m_block, parts);
        if (!parent) return false;
        auto it = parent->find(parts.back());
        return it != parent->end() && config_detail::isAuto(*it);
    }

    // Replaces "auto" with `value`. Otherwise, when the training section names the value (trainerKey non-empty)
    // and the block gives another, records the Trainer's mismatch error under both names. With insert, a value
    // the training section names is also added where the block's section lacks the key (the Trainer would leave
    // DeepSpeed's default in place without a word).
    void fill(const std::string& dsKey, const json& value, const std::string& trainerKey = {}, bool insert = false) {
        const auto parts = splitKey(dsKey);
        json* parent = parentNode(m_block, parts);
        if (!parent) return;
        auto it = parent->find(parts.back());
        if (it == parent->end() && insert && !trainerKey.empty()) {
            (*parent)[parts.back()] = value;
            return;
        }
        if (it == parent->end() || it->is_null()) return;
        if (config_detail::isAuto(*it)) {
            *it = value;
            return;
        }
        if (trainerKey.empty() || *it == value) return;
        m_issues.error(joinKey(kDs, dsKey), describeValue(*it) + " differs from " + trainerKey + " = " +
                                                describeValue(value) +
                                                "; set this key to \"auto\" or give both the same value (the Hugging "
                                                "Face Trainer refuses the mismatch too)");
    }

private:
    json& m_block;
    IssueList& m_issues;
};

// An explicit integer the block gives for `key` (not "auto", not null), for the batch values the Trainer derives.
std::optional<int64_t> explicitInt(const json& block, const char* key) {
    auto it = block.find(key);
    if (it == block.end() || !it->is_number()) return std::nullopt;
    const double d = it->get<double>();
    if (d != std::floor(d) || d < 1 || d > 1e15) return std::nullopt;
    return int64_t(d);
}

bool isZero3(const json& block) {
    auto z = block.find("zero_optimization");
    if (z == block.end() || !z->is_object()) return false;
    auto s = z->find("stage");
    return s != z->end() && s->is_number() && s->get<double>() == 3.0;
}

// The Trainer's get_warmup_steps: a value >= 1 is a count, a fraction below 1 a share of the total steps.
std::optional<int64_t> warmupStepsFor(const TrainerArguments& a, int64_t total) {
    if (a.warmupSteps && *a.warmupSteps >= 1.0) return int64_t(*a.warmupSteps);
    const double ratio = a.warmupSteps && *a.warmupSteps > 0.0 ? *a.warmupSteps : a.warmupRatio.value_or(0.0);
    if (ratio <= 0.0) return 0;
    if (total <= 0) return std::nullopt;  // known at run start
    return int64_t(std::ceil(ratio * double(total)));
}

std::optional<double> warmupFraction(const TrainerArguments& a) {
    if (a.warmupSteps && *a.warmupSteps >= 1.0) return std::nullopt;
    const double ratio = a.warmupSteps && *a.warmupSteps > 0.0 ? *a.warmupSteps : a.warmupRatio.value_or(0.0);
    if (ratio <= 0.0) return std::nullopt;
    return ratio;
}

std::string trainingKey(const char* k) { return joinKey("training", k); }

// training.lr_scheduler_kwargs for the chosen Trainer scheduler.
void parseSchedulerKwargs(const json& kwargs, const SchedulerName& spec, double lr, IssueList& issues,
                          SchedulerConfig& s) {
    const std::string path = trainingKey("lr_scheduler_kwargs");
    s.numCycles = spec.type == SchedulerType::HfCosineWithRestarts ? 1.0 : 0.5;
    std::optional<double> minLr, minLrRate;
    for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
        const std::string key = joinKey(path, it.key());
        if (std::find(spec.kwargs.begin(), spec.kwargs.end(), it.key()) == spec.kwargs.end()) {
            issues.error(key, std::string("\"") + spec.name + "\" does not take \"" + it.key() + "\"" +
                                  (spec.kwargs.empty() ? std::string(" (it takes no arguments)")
                                                       : "; it takes: " + joinNames(spec.kwargs)));
            continue;
        }
        if (it.key() == "num_cycles") {
            if (spec.type == SchedulerType::HfCosineWithRestarts) {
                if (auto n = readInt(issues, *it, key, 1, kMaxInt, "a whole number of cycles >= 1"))
                    s.numCycles = double(*n);
            } else if (auto n = readNumber(issues, *it, key, 0.0, kMaxD, "a number of waves > 0")) {
                s.numCycles = *n;
            }
        } else if (it.key() == "lr_end") {
            if (auto n = readNumber(issues, *it, key, 0.0, kMaxD, "a learning rate >= 0")) s.lrEnd = *n;
        } else if (it.key() == "power") {
            if (auto n = readNumber(issues, *it, key, 0.0, kMaxD, "a number >= 0")) s.power = *n;
        } else if (it.key() == "timescale") {
            if (auto n = readInt(issues, *it, key, 1, kMaxInt, "a positive number of steps")) s.timescale = *n;
        } else if (it.key() == "min_lr") {
            minLr = readNumber(issues, *it, key, 0.0, kMaxD, "a learning rate >= 0");
        } else if (it.key() == "min_lr_rate") {
            minLrRate = readNumber(issues, *it, key, 0.0, 1.0, "a fraction of the peak learning rate in [0, 1]");
        }
    }
    if (spec.type == SchedulerType::HfPolynomial && !(lr > s.lrEnd))
        issues.error(joinKey(path, "lr_end"), "lr_end (" + std::to_string(s.lrEnd) +
                                                  ") must be smaller than the "
                                                  "learning rate (" +
                                                  std::to_string(lr) + ")");
    if (spec.type == SchedulerType::HfCosineWithMinLr) {
        if (minLr && minLrRate)
            issues.error(path, "give only one of min_lr and min_lr_rate");
        else if (minLr)
            s.minLr = *minLr;
        else if (minLrRate)
            s.minLrRate = *minLrRate;
        else
            issues.error(path, "\"cosine_with_min_lr\" needs min_lr or min_lr_rate here");
    }
}

}  // namespace

const std::vector<std::string>& trainerArgumentKeys() {
    static const std::vector<std::string> keys = {"per_device_train_batch_size",
                                                  "gradient_accumulation_steps",
                                                  "learning_rate",
                                                  "weight_decay",
                                                  "adam_beta1",
                                                  "adam_beta2",
                                                  "adam_epsilon",
                                                  "max_grad_norm",
                                                  "warmup_steps",
                                                  "warmup_ratio",
                                                  "lr_scheduler_type",
                                                  "lr_scheduler_kwargs",
                                                  "bf16",
                                                  "fp16"};
    return keys;
}

void parseTrainerArguments(const json& o, IssueList& issues, TrainerArguments& a) {
    auto positiveInt = [&](const char* k, std::optional<int64_t>& out) {
        if (const json* v = findField(o, k))
            out = readInt(issues, *v, trainingKey(k), 1, kMaxInt, "a positive integer");
    };
    auto number = [&](const char* k, double lo, double hi, const char* what, std::optional<double>& out) {
        if (const json* v = findField(o, k)) out = readNumber(issues, *v, trainingKey(k), lo, hi, what);
    };
    positiveInt("per_device_train_batch_size", a.perDeviceTrainBatchSize);
    positiveInt("gradient_accumulation_steps", a.gradientAccumulationSteps);
    number("learning_rate", 0.0, kMaxD, "a number >= 0", a.learningRate);
    number("weight_decay", 0.0, kMaxD, "a number >= 0", a.weightDecay);
    number("adam_beta1", 0.0, 0.999999999, "a number in [0, 1)", a.adamBeta1);
    number("adam_beta2", 0.0, 0.999999999, "a number in [0, 1)", a.adamBeta2);
    number("adam_epsilon", 0.0, kMaxD, "a number >= 0", a.adamEpsilon);
    number("max_grad_norm", 0.0, kMaxD, "a number >= 0 (0 turns clipping off)", a.maxGradNorm);
    number("warmup_steps", 0.0, kMaxD, "a number of steps >= 1, or a fraction of the total steps below 1",
           a.warmupSteps);
    if (a.warmupSteps && *a.warmupSteps >= 1.0 && *a.warmupSteps != std::floor(*a.warmupSteps))
        issues.error(trainingKey("warmup_steps"),
                     "expected a whole number of steps (>= 1) or a fraction below 1, got " +
                         describeValue(o.at("warmup_steps")));
    number("warmup_ratio", 0.0, 1.0, "a fraction of the total steps in [0, 1]", a.warmupRatio);
    if (a.warmupRatio && a.warmupSteps && *a.warmupSteps > 0)
        issues.error(trainingKey("warmup_ratio"), "given together with training.warmup_steps; keep one of them");
    if (const json* v = findField(o, "lr_scheduler_type"))
        if (auto s = readString(issues, *v, trainingKey("lr_scheduler_type"))) {
            const auto& names = trainerSchedulers();
            if (std::none_of(names.begin(), names.end(), [&](const SchedulerName& n) { return *s == n.name; })) {
                std::vector<std::string> known;
                for (const auto& n : names) known.push_back(n.name);
                issues.error(trainingKey("lr_scheduler_type"), "\"" + *s + "\" is not supported" +
                                                                   didYouMean(*s, known) + "; expected one of " +
                                                                   joinNames(known) + " (the Trainer's names)");
            } else {
                a.lrSchedulerType = *s;
            }
        }
    if (const json* v = findField(o, "lr_scheduler_kwargs"); v && !v->is_null())
        if (expectObject(issues, *v, trainingKey("lr_scheduler_kwargs"))) a.lrSchedulerKwargs = *v;
    if (const json* v = findField(o, "bf16")) {
        if (isAuto(*v))
            a.bf16 = "auto";
        else if (v->is_boolean())
            a.bf16 = v->get<bool>() ? "true" : "false";
        else
            issues.error(trainingKey("bf16"),
                         "expected true, false or \"auto\" (bf16 where the device supports it), "
                         "got " +
                             describeValue(*v));
    }
    if (const json* v = findField(o, "fp16")) a.fp16 = readBool(issues, *v, trainingKey("fp16"));
    if (a.fp16 && *a.fp16 && a.bf16 == std::optional<std::string>("true"))
        issues.error(trainingKey("fp16"), "fp16 and bf16 are both true; expected at most one");
}

TrainerFill fillTrainerAutos(const json& block, const TrainerArguments& a, int worldSize, int64_t maxSteps,
                             const HiddenSizeSource& hiddenSize, IssueList& issues) {
    TrainerFill out;
    out.block = block;
    if (!block.is_object()) return out;
    json& b = out.block;
    Filler f(b, issues);

    // Precision: the blocks the training section asks for are added (the Trainer leaves a config without them in
    // fp32 silently; here training.bf16 true means bf16).
    const bool bf16Asked = a.bf16 == std::optional<std::string>("true");
    const bool bf16Auto = a.bf16 == std::optional<std::string>("auto");
    const bool hasBf16Block = b.contains("bf16") || b.contains("bfloat16");
    if (bf16Asked && !hasBf16Block) b["bf16"] = {{"enabled", true}};
    if (a.fp16 && *a.fp16 && !b.contains("fp16")) b["fp16"] = {{"enabled", true}};

    // Batch sizes (trainer_config_process). Without the Trainer's batch keys in the training section, "auto" keeps
    // meaning "not given" while the block has an explicit train_batch_size or micro batch (DeepSpeed derives the
    // rest); with neither, the Trainer's default micro batch (8) applies.
    const bool batchNamed = a.perDeviceTrainBatchSize || a.gradientAccumulationSteps;
    const auto tbGiven = explicitInt(b, "train_batch_size"),
               microGiven = explicitInt(b, "train_micro_batch_size_per_gpu");
    if (batchNamed || (!tbGiven && !microGiven)) {
        const int64_t micro = a.perDeviceTrainBatchSize.value_or(microGiven.value_or(kDefaultMicroBatch));
        const int64_t gas =
            a.gradientAccumulationSteps.value_or(explicitInt(b, "gradient_accumulation_steps").value_or(1));
        f.fill("train_micro_batch_size_per_gpu", micro,
               a.perDeviceTrainBatchSize ? trainingKey("per_device_train_batch_size") : "", true);
        f.fill("gradient_accumulation_steps", gas,
               a.gradientAccumulationSteps ? trainingKey("gradient_accumulation_steps") : "", true);
        f.fill("train_batch_size", int64_t(worldSize) * micro * gas,
               batchNamed ? "world size * training.per_device_train_batch_size * training.gradient_accumulation_steps"
                          : "");
    }
    auto named = [](const auto& opt, const char* k) { return opt ? trainingKey(k) : std::string(); };
    f.fill("gradient_clipping", a.maxGradNorm.value_or(kDefaultMaxGradNorm), named(a.maxGradNorm, "max_grad_norm"),
           true);

    // The learning rate warmup_max_lr "auto" takes: training.learning_rate, else the block's explicit optimizer lr
    // (the Trainer would call that a mismatch with its default), else the Trainer's default.
    std::optional<double> blockLr;
    if (auto o = b.find("optimizer"); o != b.end() && o->is_object())
        if (auto p = o->find("params"); p != o->end() && p->is_object())
            if (auto l = p->find("lr"); l != p->end() && l->is_number()) blockLr = l->get<double>();
    const double lr = a.learningRate.value_or(blockLr.value_or(kDefaultLr));
    if (auto o = b.find("optimizer"); o != b.end() && o->is_object() && !o->contains("params"))
        (*o)["params"] = json::object();
    f.fill("optimizer.params.lr", lr, named(a.learningRate, "learning_rate"), true);
    f.fill("optimizer.params.betas",
           json::array({a.adamBeta1.value_or(kDefaultBeta1), a.adamBeta2.value_or(kDefaultBeta2)}),
           (a.adamBeta1 || a.adamBeta2) ? "[training.adam_beta1, training.adam_beta2]" : "", true);
    f.fill("optimizer.params.eps", a.adamEpsilon.value_or(kDefaultEps), named(a.adamEpsilon, "adam_epsilon"), true);
    f.fill("optimizer.params.weight_decay", a.weightDecay.value_or(0.0), named(a.weightDecay, "weight_decay"), true);
    f.fill("scheduler.params.warmup_min_lr", 0);
    f.fill("scheduler.params.warmup_max_lr", lr, named(a.learningRate, "learning_rate"));

    f.fill("fp16.enabled", a.fp16.value_or(false), named(a.fp16, "fp16"));
    if (bf16Auto) {
        for (const char* k : {"bf16.enabled", "bfloat16.enabled"})
            if (f.isAuto(k)) {
                f.fill(k, false);
                out.bf16AtRunStart = true;
            }
        if (!hasBf16Block) out.bf16AtRunStart = true;
    } else {
        for (const char* k : {"bf16.enabled", "bfloat16.enabled"}) f.fill(k, bf16Asked, named(a.bf16, "bf16"));
    }

    // trainer_config_finalize: bucket sizes from the hidden size, then the step counts.
    const char* hiddenKeys[] = {"zero_optimization.reduce_bucket_size", "zero_optimization.stage3_prefetch_bucket_size",
                                "zero_optimization.stage3_param_persistence_threshold"};
    std::vector<std::string> autoKeys;
    for (const char* k : hiddenKeys)
        if (f.isAuto(k)) autoKeys.push_back(joinKey(kDs, k));
    if (!autoKeys.empty()) {
        std::string why;
        if (auto h = hiddenSize(why)) {
            f.fill("zero_optimization.reduce_bucket_size", *h * *h);
            if (isZero3(b)) {
                f.fill("zero_optimization.stage3_prefetch_bucket_size", int64_t(0.9 * double(*h) * double(*h)));
                f.fill("zero_optimization.stage3_param_persistence_threshold", 10 * *h);
            }
        } else {
            issues.error(autoKeys.front(), "\"auto\" takes the model's hidden_size (as the Trainer does for " +
                                               joinNames(autoKeys) + "), but " + why +
                                               "; give the sizes as numbers of elements instead");
        }
    }
    if (maxSteps > 0) f.fill("scheduler.params.total_num_steps", maxSteps);
    const auto warmup = warmupStepsFor(a, maxSteps);
    const std::string warmupKey = a.warmupSteps ? trainingKey("warmup_steps") : named(a.warmupRatio, "warmup_ratio");
    if (warmup) {
        f.fill("scheduler.params.warmup_num_steps", std::max<int64_t>(1, *warmup), warmupKey);
    } else if (f.isAuto("scheduler.params.warmup_num_steps")) {  // a fraction of a total known at run start
        f.fill("scheduler.params.warmup_num_steps", 1);
        out.warmupRatio = warmupFraction(a);
    }
    return out;
}

void applyTrainerArguments(const json& block, const TrainerArguments& a, const TrainerFill& fill, int64_t maxSteps,
                           IssueList& issues, DeepSpeedConfig& ds) {
    if (!block.is_object()) return;
    ds.bf16Auto = fill.bf16AtRunStart && !ds.fp16.enabled;
    if (fill.warmupRatio && ds.scheduler.type != SchedulerType::None) ds.scheduler.warmupRatio = *fill.warmupRatio;

    // No optimizer block: the Trainer's AdamW takes the training section's values (DeepSpeed's defaults otherwise).
    const json* optimizer = findField(block, "optimizer");
    if (!optimizer || optimizer->is_null()) {
        OptimizerConfig& o = ds.optimizer;
        o.lr = a.learningRate.value_or(o.lr);
        o.beta1 = a.adamBeta1.value_or(o.beta1);
        o.beta2 = a.adamBeta2.value_or(o.beta2);
        o.eps = a.adamEpsilon.value_or(o.eps);
        o.weightDecay = a.weightDecay.value_or(o.weightDecay);
        if (o.weightDecay > 0.0 && a.weightDecay)
            issues.warning(trainingKey("weight_decay"),
                           "decays every trainable parameter, biases and norm weights included (DeepSpeed's way); "
                           "the Trainer's own AdamW leaves biases and LayerNorm weights undecayed");
    }

    // No scheduler block: the Trainer's scheduler, when the training section names one or a warm-up.
    const json* scheduler = findField(block, "scheduler");
    const bool hasScheduler = scheduler && !scheduler->is_null();
    const bool warmupNamed = (a.warmupSteps && *a.warmupSteps > 0) || (a.warmupRatio && *a.warmupRatio > 0);
    if (hasScheduler) {
        if (a.lrSchedulerType)
            issues.warning(trainingKey("lr_scheduler_type"),
                           "ignored: deepspeed.scheduler sets the schedule (the "
                           "Trainer also lets DeepSpeed's scheduler win)");
        if (!a.lrSchedulerKwargs.empty())
            issues.warning(trainingKey("lr_scheduler_kwargs"),
                           "ignored: deepspeed.scheduler sets the schedule; give "
                           "its arguments in deepspeed.scheduler.params");
        // The warm-up reaches a DeepSpeed scheduler only through a warmup_num_steps key ("auto" or equal): without
        // one, DeepSpeed's default applies (as in the Trainer, which fills only keys present).
        const json* params = scheduler->is_object() ? findField(*scheduler, "params") : nullptr;
        const json* type = scheduler->is_object() ? findField(*scheduler, "type") : nullptr;
        const bool hasWarmup =
            type && type->is_string() && (*type == "WarmupLR" || *type == "WarmupDecayLR" || *type == "WarmupCosineLR");
        if (warmupNamed && !hasWarmup)
            issues.warning(
                a.warmupSteps && *a.warmupSteps > 0 ? trainingKey("warmup_steps") : trainingKey("warmup_ratio"),
                "ignored: deepspeed.scheduler is not a warm-up schedule (WarmupLR, WarmupDecayLR, WarmupCosineLR)");
        else if (warmupNamed && !(params && params->is_object() && params->contains("warmup_num_steps")))
            issues.warning(
                a.warmupSteps && *a.warmupSteps > 0 ? trainingKey("warmup_steps") : trainingKey("warmup_ratio"),
                "ignored: deepspeed.scheduler.params has no warmup_num_steps, so DeepSpeed's default "
                "warm-up applies; set \"warmup_num_steps\": \"auto\" there to take this value");
        return;
    }
    if (!a.lrSchedulerType && !warmupNamed) {
        if (!a.lrSchedulerKwargs.empty())
            issues.warning(trainingKey("lr_scheduler_kwargs"), "ignored without training.lr_scheduler_type");
        return;
    }
    const std::string name = a.lrSchedulerType.value_or("linear");
    const auto& names = trainerSchedulers();
    auto spec = std::find_if(names.begin(), names.end(), [&](const SchedulerName& n) { return name == n.name; });
    if (spec == names.end()) return;  // reported by parseTrainerArguments
    SchedulerConfig& s = ds.scheduler;
    s = SchedulerConfig();
    s.type = spec->type;
    s.totalNumSteps = maxSteps;  // 0: the run's total, known at run start
    if (auto w = warmupStepsFor(a, maxSteps))
        s.warmupNumSteps = *w;
    else
        s.warmupRatio = *warmupFraction(a);
    parseSchedulerKwargs(a.lrSchedulerKwargs, *spec, ds.optimizer.lr, issues, s);
}

void trainerArgumentsToJson(const TrainerArguments& a, json& t) {
    auto put = [&](const char* k, const auto& v) {
        if (v) t[k] = *v;
    };
    put("per_device_train_batch_size", a.perDeviceTrainBatchSize);
    put("gradient_accumulation_steps", a.gradientAccumulationSteps);
    put("learning_rate", a.learningRate);
    put("weight_decay", a.weightDecay);
    put("adam_beta1", a.adamBeta1);
    put("adam_beta2", a.adamBeta2);
    put("adam_epsilon", a.adamEpsilon);
    put("max_grad_norm", a.maxGradNorm);
    put("warmup_steps", a.warmupSteps);
    put("warmup_ratio", a.warmupRatio);
    put("lr_scheduler_type", a.lrSchedulerType);
    if (!a.lrSchedulerKwargs.empty()) t["lr_scheduler_kwargs"] = a.lrSchedulerKwargs;
    put("fp16", a.fp16);
    if (a.bf16) t["bf16"] = *a.bf16 == "auto" ? json("auto") : json(*a.bf16 == "true");
}

}  // namespace fts::config_detail
