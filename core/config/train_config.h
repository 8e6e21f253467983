// The training config: one JSON file with a verbatim DeepSpeed block plus Finetune Studio's own
// sections (model, data, training). Parsing resolves defaults and "auto" values and validates every
// field, reporting all problems at once, each naming its key path. Key reference: docs/config.md.
// "auto" (as Hugging Face's DeepSpeed integration writes it) anywhere in the deepspeed block means "not
// given": the DeepSpeed default or the resolution rule applies.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fts {

struct ConfigIssue {
    std::string keyPath;  // e.g. "deepspeed.optimizer.params.lr"
    std::string message;  // what was found and what was expected
    bool isError = true;  // false: a warning (unknown key, ignored value)
};

// DeepSpeed's fp16 block (dynamic loss scaling when loss_scale == 0).
struct Fp16Config {
    bool enabled = false;
    double lossScale = 0.0;      // 0 = dynamic
    int initialScalePower = 16;  // initial dynamic scale 2^power
    int lossScaleWindow = 1000;  // steps without overflow before the scale doubles
    int hysteresis = 2;          // overflows tolerated before the scale shrinks
    bool consecutiveHysteresis = false;
    double minLossScale = 1.0;
};

struct OptimizerConfig {
    std::string type = "AdamW";  // "Adam" or "AdamW" (DeepSpeed names, case-insensitive on input)
    double lr = 1e-3;
    double beta1 = 0.9, beta2 = 0.999;
    double eps = 1e-8;
    double weightDecay = 0.0;
    bool adamWMode = true;  // DeepSpeed: Adam with adam_w_mode=true is AdamW (decoupled decay)
};

// DeepSpeed's schedulers (the deepspeed.scheduler block), and the Hugging Face Trainer's (training.lr_scheduler_type,
// used when the deepspeed block has no scheduler: transformers' get_scheduler names in the comments).
enum class SchedulerType {
    None,
    WarmupLR,
    WarmupDecayLR,
    WarmupCosineLR,
    HfLinear,              // "linear"
    HfCosine,              // "cosine"
    HfCosineWithRestarts,  // "cosine_with_restarts"
    HfPolynomial,          // "polynomial"
    HfConstant,            // "constant"
    HfConstantWithWarmup,  // "constant_with_warmup"
    HfInverseSqrt,         // "inverse_sqrt"
    HfCosineWithMinLr,     // "cosine_with_min_lr"
};
bool isTrainerScheduler(SchedulerType t);  // one of the Hf* types

struct SchedulerConfig {
    SchedulerType type = SchedulerType::None;
    // WarmupLR / WarmupDecayLR
    double warmupMinLr = 0.0;
    double warmupMaxLr = 1e-3;
    int64_t warmupNumSteps = 1000;
    std::string warmupType = "log";  // "log" or "linear"
    int64_t totalNumSteps = 0;       // WarmupDecayLR, WarmupCosineLR (resolved from max_steps if absent)
    // WarmupCosineLR (ratios of the optimizer's lr)
    double warmupMinRatio = 0.0;
    double cosMinRatio = 0.0001;
    // Resolved when the run's optimizer steps are known (resolveScheduleForRun): totalNumSteps 0 = the run's
    // total; warmupRatio >= 0 = warmup_num_steps is max(1, ceil(ratio * total)) (the Trainer's warmup_ratio).
    double warmupRatio = -1.0;
    // The Trainer's schedulers (lr_scheduler_kwargs): cosine cycles (0.5 = half a wave; restarts: whole cycles),
    // polynomial lr_end and power, cosine_with_min_lr's floor (min_lr, or min_lr_rate of the peak), inverse_sqrt's
    // timescale (0 = the warm-up steps, or 10000 without warm-up).
    double numCycles = 0.5;
    double lrEnd = 1e-7;
    double power = 1.0;
    double minLr = -1.0;  // < 0: use minLrRate
    double minLrRate = 0.0;
    int64_t timescale = 0;
};

// Fills what waited for the run's optimizer step count: totalNumSteps 0 becomes totalSteps, and a warm-up
// fraction (warmupRatio >= 0) becomes warmupNumSteps = ceil(ratio * totalSteps) (the Trainer's get_warmup_steps;
// at least 1 for DeepSpeed's schedulers, as the Trainer fills "auto").
SchedulerConfig resolveScheduleForRun(SchedulerConfig s, int64_t totalSteps);

// Where an offloaded part of the model states rests (zero_optimization.offload_*.device).
enum class OffloadDevice { None, Cpu, Nvme };
const char* offloadDeviceName(OffloadDevice d);  // "none", "cpu", "nvme"

// The most elements one NVMe swap unit of the optimizer state (and one CUDA staging piece of a sub-group) holds:
// 64 MiB of float32 per segment. The update is elementwise, so it sets only the host buffers' size
// (core/offload/optimizer_partition.cpp; the estimate counts the same).
inline constexpr int64_t kSwapGroupElements = int64_t(1) << 24;

// zero_optimization.offload_optimizer (DeepSpeed 0.19.8's DeepSpeedZeroOffloadOptimizerConfig): the fp32 master
// and the Adam moments of this rank's partition live in host memory (cpu) or in swap files (nvme), and the
// optimizer step runs on the CPU (CPU-Adam). Stages 1-3.
struct OffloadOptimizerConfig {
    OffloadDevice device = OffloadDevice::None;
    std::filesystem::path nvmePath;  // nvme: swap files go to <nvme_path>/<run>/rank<r>/
    bool pinMemory = true;           // page-locked host buffers (CUDA training; no effect on a CPU device)
    int64_t bufferCount = 4;         // nvme: sub-groups of optimizer state in host buffers at once (>= 1)
    bool pipelineRead = true;        // nvme: read the next sub-group while this one steps (DeepSpeed default: false)
    bool pipelineWrite = true;       // nvme: write a sub-group back while the next one steps (DeepSpeed default: false)
    double ratio = 1.0;              // stage 3 partial offload (only 1.0 runs here: see docs/config.md)
    bool enabled() const { return device != OffloadDevice::None; }
};

// zero_optimization.offload_param (DeepSpeedZeroOffloadParamConfig), stage 3 only.
struct OffloadParamConfig {
    OffloadDevice device = OffloadDevice::None;
    std::filesystem::path nvmePath;
    bool pinMemory = true;
    int64_t bufferCount = 5;
    int64_t bufferSize = 100000000;  // elements per buffer
    int64_t maxInCpu = 1000000000;   // elements kept in host memory with nvme
    bool enabled() const { return device != OffloadDevice::None; }
};

// The top-level "aio" block (DeepSpeed's swap_tensor/aio_config.py): how the NVMe swapper does its I/O.
struct AioConfig {
    int64_t blockSize = 1048576;     // bytes per request
    int64_t queueDepth = 8;          // requests in flight per I/O thread
    int64_t intraOpParallelism = 1;  // I/O threads (older name: thread_count)
    bool singleSubmit = false;       // submit requests one at a time instead of a batch
    bool overlapEvents = true;       // submit new requests while earlier ones complete
};

// DeepSpeed's zero_optimization keys the engine honours (stages 0-3; sizes in elements, DeepSpeed's defaults).
struct ZeroConfig {
    int64_t reduceBucketSize = 500000000;        // reduce_bucket_size
    int64_t allgatherBucketSize = 500000000;     // allgather_bucket_size
    bool overlapComm = false;                    // overlap_comm: no effect here (warned); kept for the resolved config
    bool contiguousGradients = true;             // contiguous_gradients
    bool reduceScatter = true;                   // reduce_scatter (false: all-reduce each bucket)
    int64_t prefetchBucketSize = 50000000;       // stage3_prefetch_bucket_size: parameters gathered ahead of use
    int64_t paramPersistenceThreshold = 100000;  // stage3_param_persistence_threshold: smaller stay whole
    int64_t maxLiveParameters = 1000000000;      // stage3_max_live_parameters: bound on gathered parameters
    int64_t subGroupSize = 1000000000;           // sub_group_size: elements per optimizer step piece (offload, swap)
    OffloadOptimizerConfig offloadOptimizer;     // offload_optimizer
    OffloadParamConfig offloadParam;             // offload_param
};

struct DeepSpeedConfig {
    int64_t trainBatchSize = 0;             // resolved: micro * accumulation * world size
    int64_t microBatchPerGpu = 0;           // resolved
    int64_t gradientAccumulationSteps = 0;  // resolved
    double gradientClipping = 1.0;          // 0 = off; 1.0 is DeepSpeed 0.19.8's default
    Fp16Config fp16;
    bool bf16 = false;
    bool bf16Auto = false;  // training.bf16 "auto": bf16 is decided at run start, where the device
                            // supports it (CUDA, compute capability >= 8.0), else fp32
    OptimizerConfig optimizer;
    SchedulerConfig scheduler;
    int zeroStage = 0;
    ZeroConfig zero;
    AioConfig aio;                    // "aio": the NVMe swapper's I/O
    int steps_per_print = 10;         // 0 = never (null in the file)
    bool wallClockBreakdown = false;  // forward / backward / step times per step as metrics (core/train/step_timer.h)
    int worldSize = 1;                // the data-parallel world size the batch triple was resolved for
};

// model.lora: LoRA adapters with PEFT's LoraConfig semantics (docs/config.md, docs/models.md).
struct LoraSection {
    bool enabled = false;  // the section is present (and not null)
    int64_t r = 8;
    double alpha = 8.0;                      // lora_alpha
    double dropout = 0.0;                    // lora_dropout: on the input of A only
    std::vector<std::string> targetModules;  // exact names or ".name" suffixes; empty and no regex: PEFT's default
    std::string targetRegex;                 // target_modules given as a string: full-match regex, or "all-linear"
    bool targetIsRegex = false;
    bool noTargetModules = false;  // target_modules: [] beside target_parameters: the expert tensors alone
    // PEFT's target_parameters: 3-D expert tensors adapted whole ("mlp.experts.gate_up_proj"), as PEFT's ParamWrapper
    std::vector<std::string> targetParameters;
    std::string bias = "none";       // only "none"
    bool useRslora = false;          // scaling alpha / sqrt(r)
    std::filesystem::path initFrom;  // a PEFT adapter folder to start from (its r/alpha/targets apply)
    bool mergeOnExport = true;       // the final export is the merged model (+ the adapter in adapter/)
};

// model.quantization: the frozen base held 4-bit under LoRA (QLoRA), in transformers' BitsAndBytesConfig names
// (docs/qlora.md). Every Linear layer but the LM head (and llm_int8_skip_modules) is quantized as it loads.
struct QuantizationSection {
    bool enabled = false;                  // load_in_4bit
    std::string quantType = "fp4";         // bnb_4bit_quant_type: "nf4" or "fp4" (BitsAndBytesConfig's default fp4)
    bool doubleQuant = false;              // bnb_4bit_use_double_quant
    std::string computeDtype = "float32";  // bnb_4bit_compute_dtype (BitsAndBytesConfig's default float32)
    std::vector<std::string> skipModules;  // llm_int8_skip_modules: module names (or ".suffix"es) kept unquantized
};

// model.quantization as written in a config's "model" object (a run's stored train_config, an estimate's raw
// config): the section when it turns 4-bit loading on, else nullopt. Values the parser would refuse fall back to
// BitsAndBytesConfig's defaults (the config was checked when the run started).
std::optional<QuantizationSection> readQuantizationSection(const nlohmann::json& modelSection);

struct ModelSection {
    std::filesystem::path path;       // HF model folder (config.json + weights, or config.json only with init=random)
    std::string init = "pretrained";  // "pretrained" (load weights) or "random" (seeded init from config.json)
    std::filesystem::path tokenizer;  // tokenizer.json; default: <path>/tokenizer.json
    bool activationCheckpointing = false;  // model.activation_checkpointing: recompute each block in backward
    // model.chunked_loss: the LM head's projection and cross-entropy run over chunks of tokens, so the
    // (tokens x vocab) logits never exist at once (core/model/chunked_head_loss.h). Same loss and gradients.
    bool chunkedLoss = true;
    LoraSection lora;
    QuantizationSection quantization;
};

struct DataSection {
    std::filesystem::path train;     // "lm": .txt or .jsonl; the other formats also .json, .csv, .tsv
    std::filesystem::path eval;      // optional; when empty, eval_fraction of train is held out
    std::string textField = "text";  // JSONL field holding the text
    double evalFraction = 0.05;
    int64_t maxLength = 128;  // tokens per training sequence
    // "lm": plain-text pre-training blocks (documents concatenated and cut, as HF run_clm); the others
    // select the instruction pipeline (docs/data.md): "auto", "text", "alpaca", "sharegpt", "messages";
    // "classification": text / text_pair / label rows for a sequence-classification model.
    std::string format = "lm";
    // field renames: instruction input output system messages role content; classification: text text_pair label
    std::map<std::string, std::string> columns;
    std::string chatTemplate = "auto";  // key "template": auto chatml qwen llama3 mistral llama2 alpaca none
    bool trainOnPrompt = false;         // false: labels -100 on everything but the responses
    bool packing = false;               // several samples per sequence, attention kept within each sample
    bool shuffle = true;                // seeded shuffle of the training samples before packing / batching
    std::optional<uint64_t> seed;       // split and shuffle; default training.seed
    std::string onBadRow = "skip";      // "skip" (report and go on) or "stop"
    std::filesystem::path cacheDir;     // token cache; default $XDG_CACHE_HOME/finetune-studio/token_cache

    bool classification() const { return format == "classification"; }
    // With a preference objective: "auto" (the layout found in the rows), "trl" (prompt/chosen/rejected, text or
    // messages), "alpaca" / "sharegpt" (LLaMA-Factory's ranking layouts).
    bool instructionFormat() const { return format != "lm" && !classification(); }
};

// The Hugging Face Trainer's TrainingArguments a config may name in its training section (docs/config.md): they
// fill the deepspeed block's "auto" values as transformers' HfTrainerDeepSpeedConfig does, and set the optimizer and
// scheduler when the block has none. Unset: not written in the file (the Trainer's defaults fill "auto").
struct TrainerArguments {
    std::optional<int64_t> perDeviceTrainBatchSize;    // per_device_train_batch_size (Trainer default 8)
    std::optional<int64_t> gradientAccumulationSteps;  // gradient_accumulation_steps (1)
    std::optional<double> learningRate;                // learning_rate (5e-5)
    std::optional<double> weightDecay;                 // weight_decay (0)
    std::optional<double> adamBeta1, adamBeta2;        // adam_beta1, adam_beta2 (0.9, 0.999)
    std::optional<double> adamEpsilon;                 // adam_epsilon (1e-8)
    std::optional<double> maxGradNorm;                 // max_grad_norm (1.0)
    std::optional<double> warmupSteps;                 // warmup_steps: >= 1 steps, or a fraction < 1 of the total
    std::optional<double> warmupRatio;                 // warmup_ratio (older name of the fraction)
    std::optional<std::string> lrSchedulerType;        // lr_scheduler_type ("linear" in the Trainer)
    nlohmann::json lrSchedulerKwargs = nlohmann::json::object();  // lr_scheduler_kwargs
    std::optional<std::string> bf16;                              // bf16: "true", "false" or "auto"
    std::optional<bool> fp16;                                     // fp16
};

// training.profile: a Kineto profile of steps wait+1 .. wait+active (core/train/step_profiler.h). `true` takes the
// defaults; the names are torch.profiler.schedule's (its warmup is part of wait here).
struct ProfileSettings {
    bool enabled = false;
    int64_t wait = 5;  // steps run before the profile starts (allocator, cuBLAS and autotuning settle)
    int64_t active = 3;
};

struct TrainingSection {
    // What is optimised: "sft" (the language-model / instruction loss, or the classifier's), or a preference
    // objective over chosen/rejected pairs, "dpo", "orpo" or "simpo" (their settings: PreferenceSection).
    std::string objective = "sft";
    bool preferenceObjective() const { return objective != "sft"; }
    int64_t maxSteps = 0;  // optimizer steps; 0 = use epochs
    double epochs = 1.0;
    int64_t evalInterval = 0;  // 0 = only at the end
    int64_t evalBatches = 0;   // 0 = whole eval split
    int64_t saveInterval = 0;  // 0 = only at the end
    int64_t logInterval = 1;
    std::filesystem::path outputDir;  // checkpoints/, export/ go here
    uint64_t seed = 42;
    std::string runName;          // default: derived from the config file name
    std::string device = "auto";  // "auto", "cpu", "cuda", "cuda:N"
    int64_t keepCheckpoints = 2;  // most recent checkpoints kept (0 = all)
    TrainerArguments trainer;     // the Trainer's names (per_device_train_batch_size, learning_rate, ...)
    // Texts generated (greedy) from the weights every sample_interval steps (default: eval_interval; 0: at the end),
    // stored with their step: the replies changing as the model trains (docs/generate.md).
    std::vector<std::string> samplePrompts;  // sample_prompts
    std::optional<int64_t> sampleInterval;   // sample_interval
    int64_t sampleMaxNewTokens = 64;         // sample_max_new_tokens
    ProfileSettings profile;                 // profile
    int64_t sampleEvery() const { return sampleInterval.value_or(evalInterval); }
};

// The "preference" section: the settings of training.objective "dpo", "orpo" and "simpo" in TRL 1.16's names and
// with its defaults (DPOConfig, ORPOConfig, CPOConfig; docs/preference.md gives each formula).
struct PreferenceSection {
    double beta = 0.1;
    bool disableDropout = true;  // the policy (and reference) run without dropout, as TRL's disable_dropout
    // dpo: loss_type, one name or a list summed with loss_weights (TRL's; "sft" is RPO's NLL term)
    std::vector<std::string> lossTypes{"sigmoid"};
    std::vector<double> lossWeights;  // empty: 1 for each loss type
    double labelSmoothing = 0.0;      // dpo robust / exo_pair; simpo (CPO's sigmoid smoothing)
    double simpoGamma = 0.5;          // simpo: the target reward margin gamma (CPOConfig.simpo_gamma)
    double cpoAlpha = 1.0;            // simpo: weight of the NLL term on the chosen completions (CPOConfig.cpo_alpha)
    double discopopTau = 0.05;        // dpo discopop
    double desirableWeight = 1.0, undesirableWeight = 1.0;  // kto: the weights of the two labels' losses
    std::string truncationMode = "keep_start";              // dpo: which end of a sequence over data.max_length is kept
    std::optional<int64_t> maxPromptLength;  // older TRL's max_prompt_length: the prompt keeps its last N tokens
    bool precomputeRefLogProbs = false;      // dpo: the reference's log-probs in one pass before training, no copy held
    std::filesystem::path refModel;          // dpo: the reference's folder; empty: adapters off (LoRA) or model.path
};

struct TrainConfig {
    DeepSpeedConfig deepspeed;
    ModelSection model;
    DataSection data;
    TrainingSection training;
    PreferenceSection preference;  // read when training.objective is a preference objective
    nlohmann::json raw;            // the file as written (stored with the run)
    std::filesystem::path sourceFile;
};

struct ConfigParseResult {
    std::optional<TrainConfig> config;  // set when there are no errors
    std::vector<ConfigIssue> issues;    // errors and warnings, in key order
    bool ok() const { return config.has_value(); }
    std::string errorText() const;  // all errors, one per line: "key: message"
};

// Parse and validate. Relative paths resolve against baseDir. worldSize feeds DeepSpeed's batch triple.
ConfigParseResult parseTrainConfig(const nlohmann::json& doc, const std::filesystem::path& baseDir, int worldSize = 1);
// Parse text (JSON syntax errors become one issue naming line and column). overrides: a JSON merge patch (RFC 7386)
// applied to the document before it is read, as `fts train --output_dir/--max_steps/--seed` write it (paths in it
// absolute); cfg.raw is the patched document.
ConfigParseResult parseTrainConfigText(const std::string& text, const std::filesystem::path& baseDir, int worldSize = 1,
                                       const nlohmann::json& overrides = nullptr);
// Read a file and parse it against the file's folder; sets sourceFile and, when training.run_name is
// absent, runName = the file's stem. Throws IoError only when the file cannot be read.
ConfigParseResult parseTrainConfigFile(const std::filesystem::path& file, int worldSize = 1,
                                       const nlohmann::json& overrides = nullptr);
// Read a file and parse; throws ConfigError (message starts with the file path and lists every error)
// on invalid content, IoError when the file cannot be read.
TrainConfig loadTrainConfig(const std::filesystem::path& file, int worldSize = 1,
                            const nlohmann::json& overrides = nullptr);

// The resolved config as JSON in the input's layout (model, data, training, deepspeed), every default
// and "auto" filled in, the batch triple resolved, paths absolute. Parsing it again (same world size)
// yields the same config. The GUI and `fts runs show` display it.
nlohmann::json configToResolvedJson(const TrainConfig& config);

}  // namespace fts
