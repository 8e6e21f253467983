// Export and verification of a checkpoint folder (see checkpoint.h): its kind (full weights, a LoRA adapter, the
// ranks' ZeRO stage 3 shards) read from its files, then the weights written as an HF model folder.
#include <torch/torch.h>

#include <optional>

#include "core/arch/hf_config.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/checkpoint_folder.h"
#include "core/config/train_config.h"
#include "core/model/language_model.h"
#include "core/model/lora.h"
#include "core/util/atomic_file.h"
#include "core/util/checkpoint_checksums.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/util/run_token.h"
#include "core/zero/zero3_export.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

void copyTokenizerFiles(const fs::path& from, const fs::path& to) {
    for (const char* f : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
        if (fs::exists(from / f)) writeFileAtomic(to / f, readFile(from / f));
}

// The run's training config as stored in a checkpoint's trainer_state.json (null when absent).
nlohmann::json storedTrainConfig(const fs::path& checkpointDir) {
    std::error_code ec;
    if (!fs::is_regular_file(checkpointDir / "trainer_state.json", ec)) return nullptr;
    try {
        auto st = parseJson(readFile(checkpointDir / "trainer_state.json"));
        return st.contains("train_config") ? st["train_config"] : nlohmann::json(nullptr);
    } catch (const nlohmann::json::exception&) {
        return nullptr;
    }
}

// The run's model.quantization (QLoRA) as load options, so that the merged export starts from the same 4-bit base
// the adapter was trained over (dequantized + the adapter's delta). nullopt without one.
std::optional<Quant4LoadOptions> storedQuantization(const nlohmann::json& tc) {
    if (!tc.is_object() || !tc.contains("model")) return std::nullopt;
    const std::optional<QuantizationSection> q = readQuantizationSection(tc["model"]);
    if (!q) return std::nullopt;
    return quant4LoadOptions(q->quantType, q->doubleQuant, q->computeDtype, q->skipModules);
}

// A LoRA checkpoint as an export: merged into its base (outDir, `dtype`) with the PEFT adapter in outDir/adapter/,
// or, when the run's model.lora.merge_on_export is false, the PEFT adapter folder itself in outDir (mergeRequested,
// when set, decides instead).
void exportLoraCheckpoint(const fs::path& checkpointDir, const fs::path& outDir, torch::Dtype dtype,
                          std::optional<bool> mergeRequested) {
    readLoraAdapterConfig(checkpointDir);  // validates the adapter before anything is written
    const nlohmann::json cfg = parseJson(readFile(checkpointDir / "adapter_config.json"));
    const std::string base = cfg.value("base_model_name_or_path", nlohmann::json(nullptr)).is_string()
                                 ? cfg["base_model_name_or_path"].get<std::string>()
                                 : std::string();
    const nlohmann::json tc = storedTrainConfig(checkpointDir);
    // The default as the config resolves it: merged, but the adapter alone over a 4-bit base (quantized as it loaded,
    // or a folder saved quantized).
    bool merge = !storedQuantization(tc);
    if (merge && !base.empty()) try {
            const nlohmann::json bc = parseJson(readFile(fs::path(base) / "config.json"));
            merge = !savedFourBit(bc);
        } catch (const std::exception&) {  // no readable config.json: the merge below says what is missing
        }
    if (tc.is_object() && tc.contains("model") && tc["model"].is_object() && tc["model"].contains("lora") &&
        tc["model"]["lora"].is_object() && tc["model"]["lora"].contains("merge_on_export") &&
        tc["model"]["lora"]["merge_on_export"].is_boolean())
        merge = tc["model"]["lora"]["merge_on_export"].get<bool>();
    if (mergeRequested) merge = *mergeRequested;
    std::error_code ec;
    fs::create_directories(outDir, ec);
    const fs::path adapterOut = merge ? outDir / "adapter" : outDir;
    fs::create_directories(adapterOut, ec);
    for (const char* f : {"adapter_config.json", "adapter_model.safetensors"})
        writeFileAtomic(adapterOut / f, readFile(checkpointDir / f));
    copyTokenizerFiles(checkpointDir, adapterOut);
    if (!merge) return;
    // A folder with adapter_config.json at its top is taken for an adapter by transformers: drop one a previous
    // adapter-only export left here.
    for (const char* f : {"adapter_config.json", "adapter_model.safetensors"}) fs::remove(outDir / f, ec);
    if (base.empty() || !fs::is_directory(base, ec))
        throw IoError((checkpointDir / "adapter_config.json").string() + ": base_model_name_or_path \"" + base +
                      "\" is not a model folder; the merged export needs the base model the adapter was trained on");
    ModelLoadOptions o;
    o.quantize4bit = storedQuantization(tc);
    auto model = loadPretrainedModel(base, o);
    loadLoraAdapter(*model, checkpointDir);
    mergeLora(*model);
    saveHfModel(*model, outDir, dtype);
    copyTokenizerFiles(checkpointDir, outDir);
}

}  // namespace

bool isLoraCheckpoint(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "adapter_config.json", ec) && !fs::exists(dir / "model.safetensors", ec);
}

bool isZero3Checkpoint(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_regular_file(dir / "trainer_state.json", ec) || fs::exists(dir / "model.safetensors", ec)) return false;
    try {
        return parseJson(readFile(dir / "trainer_state.json")).contains("zero3_partition");
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

void verifyCheckpoint(const fs::path& dir) {
    const std::vector<std::string> damage = checkpointDamage(dir);
    if (damage.empty()) return;
    std::string text;
    for (const std::string& d : damage) text += "\n  - " + d;
    throw FormatError(dir.string() + ": the checkpoint is damaged (its files do not match checksums.json):" + text);
}

void exportCheckpoint(const fs::path& checkpointDir, const fs::path& outDir, const std::string& dtype,
                      std::optional<bool> merge) {
    const bool lora = !checkpointDir.empty() && isLoraCheckpoint(checkpointDir);
    const bool zero3 = !checkpointDir.empty() && isZero3Checkpoint(checkpointDir);
    if (checkpointDir.empty() || (!lora && !zero3 && !fs::exists(checkpointDir / "model.safetensors")))
        throw IoError(checkpointDir.string() +
                      ": not a checkpoint folder (model.safetensors, or adapter_config.json of a "
                      "LoRA run, is missing)");
    torch::Dtype dt = dtype == "float32" || dtype == "fp32"    ? torch::kFloat32
                      : dtype == "bfloat16" || dtype == "bf16" ? torch::kBFloat16
                      : dtype == "float16" || dtype == "fp16"
                          ? torch::kFloat16
                          : throw ConfigError("--dtype: \"" + dtype + "\"; expected float32, bfloat16 or float16");
    verifyCheckpoint(checkpointDir);
    if (lora) return exportLoraCheckpoint(checkpointDir, outDir, dt, merge);
    if (zero3) return exportZero3Checkpoint(readTrainerState(checkpointDir), checkpointDir, outDir, dt);
    ModelLoadOptions o;
    auto model = loadPretrainedModel(checkpointDir, o);
    fs::create_directories(outDir);
    saveHfModel(*model, outDir, dt);
    copyTokenizerFiles(checkpointDir, outDir);
}

namespace {

// The chat template a run trained with, from its stored config: a chat-shaped data.format (alpaca, sharegpt,
// messages) or an explicit data.template. nullopt for plain-text runs and folders without a stored config.
std::optional<ChatTemplateKind> trainedChatTemplate(const nlohmann::json& tc, const fs::path& modelDir) {
    if (!tc.is_object() || !tc.contains("data") || !tc["data"].is_object()) return std::nullopt;
    const nlohmann::json& d = tc["data"];
    const std::string format = d.value("format", std::string("lm"));
    const std::string name = d.value("template", std::string("auto"));
    const bool chatFormat = format == "alpaca" || format == "sharegpt" || format == "messages";
    if (!chatFormat && name == "auto") return std::nullopt;
    fs::path base = modelDir;
    if (tc.contains("model") && tc["model"].is_object() && tc["model"].contains("path") &&
        tc["model"]["path"].is_string())
        base = tc["model"]["path"].get<std::string>();
    try {
        return resolveChatTemplate(name, base);
    } catch (const Error&) {
        return std::nullopt;
    }
}

}  // namespace

gguf::GgufExportResult exportCheckpointGguf(const fs::path& checkpointDir, const fs::path& outFile,
                                            gguf::GgufExportOptions options) {
    const bool lora = isLoraCheckpoint(checkpointDir);
    const bool zero3 = isZero3Checkpoint(checkpointDir);
    std::error_code ec;
    if (!lora && !zero3 && !fs::exists(checkpointDir / "model.safetensors", ec) &&
        !fs::exists(checkpointDir / "model.safetensors.index.json", ec))
        throw IoError(checkpointDir.string() +
                      ": not a checkpoint or model folder (model.safetensors, or adapter_config.json of a LoRA run, "
                      "is missing)");
    const nlohmann::json tc = storedTrainConfig(checkpointDir);
    if (!options.chat) options.chat = trainedChatTemplate(tc, checkpointDir);
    if (options.modelfileContext == 0 && tc.is_object() && tc.contains("data") && tc["data"].is_object() &&
        tc["data"].contains("max_length") && tc["data"]["max_length"].is_number_integer())
        options.modelfileContext = tc["data"]["max_length"].get<int64_t>();
    if (!lora && !zero3) {
        verifyCheckpoint(checkpointDir);
        return gguf::exportGguf(checkpointDir, outFile, options);
    }
    // A merged LoRA or consolidated stage 3 model: an HF folder in float32 first, in a scratch folder beside the
    // output (same file system, removed whatever happens).
    fs::create_directories(outFile.parent_path().empty() ? fs::path(".") : outFile.parent_path());
    const fs::path scratch = (outFile.parent_path().empty() ? fs::path(".") : outFile.parent_path()) /
                             (".fts-gguf-" + newRunToken().substr(0, 12));
    struct RemoveScratch {
        fs::path dir;
        ~RemoveScratch() {
            std::error_code ignored;
            fs::remove_all(dir, ignored);
        }
    } cleanup{scratch};
    exportCheckpoint(checkpointDir, scratch, "float32", /*merge=*/true);  // a GGUF holds the whole model
    if (options.name.empty()) options.name = gguf::folderName(checkpointDir);
    return gguf::exportGguf(scratch, outFile, options);
}

}  // namespace fts
