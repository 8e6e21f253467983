// The core's sentences that the studio says in its own language: fixed English templates with %1..%9 for what
// varies (paths, keys, numbers, nested messages). The core fills them (fillTemplate) and writes English as
// before; issue_kinds.cpp finds a message's template again, and the studio's catalogue (ui/core_text.cpp)
// translates each template listed in messageTemplates(). The template is the message id: one sentence, one place.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace fts {

// `tmpl` with %1..%9 replaced by args[0..8] (a % not followed by a digit stays as written).
std::string fillTemplate(std::string_view tmpl, std::initializer_list<std::string_view> args);

// Every template below, the more specific before the more general (the first whose shape matches wins).
const std::vector<std::string_view>& messageTemplates();

namespace msg {

// fts doctor: details and fixes.
inline constexpr std::string_view kStoreMissing = "%1: no store yet (the first run creates it)";
inline constexpr std::string_view kStoreHealth = "%1: schema %2, %3 run(s), quick_check %4";
inline constexpr std::string_view kStoreDamagedFix =
    "the store is damaged: copy it aside (runs.sqlite, -wal, -shm) and let the next run create a new one, or repair "
    "it with sqlite3's .recover";
inline constexpr std::string_view kStoreOldSchemaFix =
    "it is brought up to date the next time a run starts or the studio opens it";
inline constexpr std::string_view kStoreUnreadableFix =
    "move the file aside (a new store is created by the next run), or point --store at another file";
inline constexpr std::string_view kDiskUnknown = "%1: free space unknown";
inline constexpr std::string_view kDiskFree = "%1 free on %2";
inline constexpr std::string_view kDiskFullFix = "free space there: checkpoints, the token cache and the store need it";
inline constexpr std::string_view kDiskLowFix =
    "a checkpoint of a 1B-parameter model takes about 16 GB with its optimizer state: free space there";
inline constexpr std::string_view kMemInfoUnreadable = "/proc/meminfo could not be read";
inline constexpr std::string_view kMemoryAvailable = "%1 available of %2";
inline constexpr std::string_view kMemoryLowFix =
    "little host memory is free: close other programs, or lower the batch size (fts estimate CONFIG)";
inline constexpr std::string_view kHfCacheModels = "%1: %2 model(s)";
inline constexpr std::string_view kHfCacheNone = "no Hugging Face cache (searched %1); model folders work without one";
inline constexpr std::string_view kHostFix =
    "check `ssh %1` works without a password (BatchMode) and fts is installed there";
inline constexpr std::string_view kHostReachable = "reachable (%1), fts %2, %3 GPU(s)";
inline constexpr std::string_view kHostNameFix = "give an ssh host name or address";
inline constexpr std::string_view kNcclMissingFix =
    "multi-GPU training needs NCCL: reinstall the torch wheel of packaging/requirements-run.txt";
inline constexpr std::string_view kCudaRuntime = "CUDA runtime %1";  // parts of the runtime line
inline constexpr std::string_view kBuiltWithoutCuda = "built without CUDA";
inline constexpr std::string_view kNcclNotLoaded = "NCCL not loaded";
inline constexpr std::string_view kNoCudaDevice = "no CUDA device visible to LibTorch: training runs on the CPU";
inline constexpr std::string_view kNoCudaDeviceFix =
    "install the NVIDIA driver (nvidia-smi must list the GPUs) and check CUDA_VISIBLE_DEVICES";

// Config errors that relate keys or files.
inline constexpr std::string_view kLoraKeyWithInitFrom =
    "given together with model.lora.init_from, whose adapter_config.json defines it; remove one of them";
inline constexpr std::string_view kLoraInitFromNotAdapter =
    "%1 has no adapter_config.json; expected a PEFT LoRA adapter folder (adapter_config.json + "
    "adapter_model.safetensors)";
inline constexpr std::string_view kBadRegex = "\"%1\" is not a valid regular expression (%2)";
inline constexpr std::string_view kLoraBiasUnsupported =
    "only \"none\" is supported (PEFT's \"all\" and \"lora_only\" train biases too; not available here), got %1";
inline constexpr std::string_view kLoraOverRandomInit =
    "LoRA adapts pretrained weights, but model.init is \"random\"; use \"pretrained\"";
inline constexpr std::string_view kModelPathNeither = "\"%1\" is not a folder (%2 does not exist) and %3";
inline constexpr std::string_view kClassificationPacking =
    "a classification row is one sequence with one label; set \"packing\": false";
inline constexpr std::string_view kTextFieldIgnored = "ignored: data.columns.text names the text column";
inline constexpr std::string_view kColumnTwoRoles = "names the column '%1', which is already data.columns.%2";
inline constexpr std::string_view kNothingToTrain =
    "max_steps is 0 and epochs is 0: nothing to train; expected max_steps > 0 or epochs > 0";
inline constexpr std::string_view kSectionMissing = "missing; expected an object with %1";
inline constexpr std::string_view kKeyMissing = "missing; expected %1";
inline constexpr std::string_view kOneOf = "one of %1";
inline constexpr std::string_view kPositiveUpTo = "a positive integer up to %1";

// Model folders, weights, data files and the output folder, checked before a run starts.
inline constexpr std::string_view kWeightsNotSafetensors =
    "%1: has %2 but only safetensors weights are supported (model.safetensors or model.safetensors.index.json); "
    "convert the checkpoint to safetensors first";
inline constexpr std::string_view kNoWeights =
    "%1: no model.safetensors or model.safetensors.index.json found (or set model.init to \"random\" to train from a "
    "fresh initialisation)";
inline constexpr std::string_view kModelPathNotDirectory = "%1: not a directory (expected a Hugging Face model folder)";
inline constexpr std::string_view kTokenizerIsDirectory = "%1: is a directory; expected a tokenizer.json file (%2?)";
inline constexpr std::string_view kDataIsDirectory =
    "%1: is a directory; expected a data file (.jsonl, .json, .csv, .tsv or .txt)";
inline constexpr std::string_view kDataUnreadable = "%1: cannot open data file (not readable)";
inline constexpr std::string_view kOutputUnderFile =
    "%1: not a directory; the output folder %2 cannot be created there";
inline constexpr std::string_view kOutputNotWritable = "%1: not writable (checkpoints and the export go here)";
inline constexpr std::string_view kOutputCannotCreate = "%1: cannot be created (%2 is not writable)";

// A model's config.json (the memory estimate's reasons).
inline constexpr std::string_view kModelConfigKey = "%1: key \"%2\": %3";
inline constexpr std::string_view kModelConfigUnreadable = "%1: cannot read the model's config.json";
inline constexpr std::string_view kModelConfigNotObject = "%1: expected a JSON object (a Hugging Face config.json)";
inline constexpr std::string_view kNotValidJson = "%1: not valid JSON (%2)";
inline constexpr std::string_view kModelTypeMissing = "missing (supported: %1)";
inline constexpr std::string_view kModelTypeUnsupported = "unsupported model type \"%1\" (supported: %2)";
inline constexpr std::string_view kNullNotAllowed = "null is not allowed; expected %1";
inline constexpr std::string_view kHeadsDivide = "hidden size %1 must be divisible by %2 heads";
inline constexpr std::string_view kKvHeadsDivide = "num_attention_heads (%1) must be a multiple of %2";

}  // namespace msg
}  // namespace fts
