// The core's message templates (core/config/message_templates.h) for lupdate: each one's text exactly as the core
// writes it, so the studio's catalogue has a translation keyed by it (ui_test_app_translations checks that every
// template the core lists is here and translated with the same %N).
#include <QtGlobal>

namespace fts {
namespace {

[[maybe_unused]] const char* const kCoreTemplates[] = {
    // kStoreMissing
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: no store yet (the first run creates it)"),
    // kStoreHealth
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: schema %2, %3 run(s), quick_check %4"),
    // kStoreDamagedFix
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "the store is damaged: copy it aside (runs.sqlite, -wal, -shm) and let the next run create a new "
                      "one, or repair it with sqlite3's .recover"),
    // kStoreOldSchemaFix
    QT_TRANSLATE_NOOP("fts::IssueText", "it is brought up to date the next time a run starts or the studio opens it"),
    // kStoreUnreadableFix
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "move the file aside (a new store is created by the next run), or point --store at another file"),
    // kDiskUnknown
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: free space unknown"),
    // kDiskFree
    QT_TRANSLATE_NOOP("fts::IssueText", "%1 free on %2"),
    // kDiskFullFix
    QT_TRANSLATE_NOOP("fts::IssueText", "free space there: checkpoints, the token cache and the store need it"),
    // kDiskLowFix
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "a checkpoint of a 1B-parameter model takes about 16 GB with its optimizer state: free space "
                      "there"),
    // kMemInfoUnreadable
    QT_TRANSLATE_NOOP("fts::IssueText", "/proc/meminfo could not be read"),
    // kMemoryAvailable
    QT_TRANSLATE_NOOP("fts::IssueText", "%1 available of %2"),
    // kMemoryLowFix
    QT_TRANSLATE_NOOP(
        "fts::IssueText",
        "little host memory is free: close other programs, or lower the batch size (fts estimate CONFIG)"),
    // kHfCacheModels
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: %2 model(s)"),
    // kHfCacheNone
    QT_TRANSLATE_NOOP("fts::IssueText", "no Hugging Face cache (searched %1); model folders work without one"),
    // kHostFix
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "check `ssh %1` works without a password (BatchMode) and fts is installed there"),
    // kHostReachable
    QT_TRANSLATE_NOOP("fts::IssueText", "reachable (%1), fts %2, %3 GPU(s)"),
    // kHostNameFix
    QT_TRANSLATE_NOOP("fts::IssueText", "give an ssh host name or address"),
    // kNcclMissingFix
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "multi-GPU training needs NCCL: reinstall the torch wheel of packaging/requirements-run.txt"),
    // kCudaRuntime
    QT_TRANSLATE_NOOP("fts::IssueText", "CUDA runtime %1"),
    // kBuiltWithoutCuda
    QT_TRANSLATE_NOOP("fts::IssueText", "built without CUDA"),
    // kNcclNotLoaded
    QT_TRANSLATE_NOOP("fts::IssueText", "NCCL not loaded"),
    // kNoCudaDevice
    QT_TRANSLATE_NOOP("fts::IssueText", "no CUDA device visible to LibTorch: training runs on the CPU"),
    // kNoCudaDeviceFix
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "install the NVIDIA driver (nvidia-smi must list the GPUs) and check CUDA_VISIBLE_DEVICES"),
    // kLoraKeyWithInitFrom
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "given together with model.lora.init_from, whose adapter_config.json defines it; remove one of "
                      "them"),
    // kLoraInitFromNotAdapter
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "%1 has no adapter_config.json; expected a PEFT LoRA adapter folder (adapter_config.json + "
                      "adapter_model.safetensors)"),
    // kBadRegex
    QT_TRANSLATE_NOOP("fts::IssueText", "\"%1\" is not a valid regular expression (%2)"),
    // kLoraBiasUnsupported
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "only \"none\" is supported (PEFT's \"all\" and \"lora_only\" train biases too; not available "
                      "here), got %1"),
    // kLoraOverRandomInit
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "LoRA adapts pretrained weights, but model.init is \"random\"; use \"pretrained\""),
    // kModelPathNeither
    QT_TRANSLATE_NOOP("fts::IssueText", "\"%1\" is not a folder (%2 does not exist) and %3"),
    // kClassificationPacking
    QT_TRANSLATE_NOOP("fts::IssueText", "a classification row is one sequence with one label; set \"packing\": false"),
    // kTextFieldIgnored
    QT_TRANSLATE_NOOP("fts::IssueText", "ignored: data.columns.text names the text column"),
    // kColumnTwoRoles
    QT_TRANSLATE_NOOP("fts::IssueText", "names the column '%1', which is already data.columns.%2"),
    // kNothingToTrain
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "max_steps is 0 and epochs is 0: nothing to train; expected max_steps > 0 or epochs > 0"),
    // kSectionMissing
    QT_TRANSLATE_NOOP("fts::IssueText", "missing; expected an object with %1"),
    // kKeyMissing
    QT_TRANSLATE_NOOP("fts::IssueText", "missing; expected %1"),
    // kOneOf
    QT_TRANSLATE_NOOP("fts::IssueText", "one of %1"),
    // kPositiveUpTo
    QT_TRANSLATE_NOOP("fts::IssueText", "a positive integer up to %1"),
    // kWeightsNotSafetensors
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "%1: has %2 but only safetensors weights are supported (model.safetensors or "
                      "model.safetensors.index.json); convert the checkpoint to safetensors first"),
    // kNoWeights
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "%1: no model.safetensors or model.safetensors.index.json found (or set model.init to \"random\" "
                      "to train from a fresh initialisation)"),
    // kModelPathNotDirectory
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: not a directory (expected a Hugging Face model folder)"),
    // kTokenizerIsDirectory
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: is a directory; expected a tokenizer.json file (%2?)"),
    // kDataIsDirectory
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: is a directory; expected a data file (.jsonl, .json, .csv, .tsv or .txt)"),
    // kDataUnreadable
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: cannot open data file (not readable)"),
    // kOutputUnderFile
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: not a directory; the output folder %2 cannot be created there"),
    // kOutputNotWritable
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: not writable (checkpoints and the export go here)"),
    // kOutputCannotCreate
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: cannot be created (%2 is not writable)"),
    // kModelConfigKey
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: key \"%2\": %3"),
    // kModelConfigUnreadable
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: cannot read the model's config.json"),
    // kModelConfigNotObject
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: expected a JSON object (a Hugging Face config.json)"),
    // kNotValidJson
    QT_TRANSLATE_NOOP("fts::IssueText", "%1: not valid JSON (%2)"),
    // kModelTypeMissing
    QT_TRANSLATE_NOOP("fts::IssueText", "missing (supported: %1)"),
    // kModelTypeUnsupported
    QT_TRANSLATE_NOOP("fts::IssueText", "unsupported model type \"%1\" (supported: %2)"),
    // kNullNotAllowed
    QT_TRANSLATE_NOOP("fts::IssueText", "null is not allowed; expected %1"),
    // kHeadsDivide
    QT_TRANSLATE_NOOP("fts::IssueText", "hidden size %1 must be divisible by %2 heads"),
    // kKvHeadsDivide
    QT_TRANSLATE_NOOP("fts::IssueText", "num_attention_heads (%1) must be a multiple of %2"),
};

}  // namespace
}  // namespace fts
