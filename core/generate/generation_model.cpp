// Opens a model, adapter or checkpoint folder for generation; see generation_model.h.
#include "core/generate/generation_model.h"

#include "core/model/lora.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts {

namespace fs = std::filesystem;

namespace {

bool isAdapterFolder(const fs::path& dir) {
    std::error_code ec;
    return fs::exists(dir / "adapter_config.json", ec) && !fs::exists(dir / "config.json", ec);
}

// The base model of a PEFT adapter: adapter_config.json's base_model_name_or_path, relative paths taken from the
// adapter folder. A hub name (not a folder here) cannot be followed offline: the error says to pass the base.
fs::path adapterBase(const fs::path& adapterDir) {
    const fs::path file = adapterDir / "adapter_config.json";
    nlohmann::json j;
    try {
        j = parseJson(readFile(file));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(file.string() + ": not valid JSON: " + e.what());
    }
    const auto base = j.is_object() ? j.value("base_model_name_or_path", nlohmann::json()) : nlohmann::json();
    if (!base.is_string() || base.get<std::string>().empty())
        throw FormatError(file.string() +
                          ": base_model_name_or_path is missing; pass the base model folder as the model and this "
                          "folder as the adapter");
    fs::path p = base.get<std::string>();
    if (p.is_relative()) p = adapterDir / p;
    std::error_code ec;
    if (!fs::exists(p / "config.json", ec))
        throw Error(file.string() + ": the base model \"" + base.get<std::string>() +
                    "\" is not a model folder here (no config.json); pass the base model folder as the model and "
                    "this folder as the adapter");
    return p;
}

}  // namespace

GenerationModel openGenerationModel(const fs::path& dir, const GenerationModelOptions& options) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw IoError(dir.string() + ": not a folder");
    GenerationModel g;
    g.adapterDir = options.adapter;
    g.modelDir = dir;
    if (isAdapterFolder(dir)) {
        if (!options.adapter.empty())
            throw Error(dir.string() +
                        " is an adapter folder (adapter_config.json, no config.json); give its base "
                        "model as the model to use --adapter");
        g.adapterDir = dir;
        g.modelDir = adapterBase(dir);
    }
    if (!fs::exists(g.modelDir / "config.json", ec))
        throw IoError(g.modelDir.string() + ": no config.json (not a model folder, an export or a checkpoint)");

    ModelLoadOptions load;
    load.dtype = options.dtype;
    load.device = options.device;
    load.quantize4bit = options.quantize4bit;
    g.model = loadPretrainedModel(g.modelDir, load);
    if (!g.adapterDir.empty()) {
        loadLoraAdapter(*g.model, g.adapterDir, 0.0);
        if (options.mergeAdapter) mergeLora(*g.model);
    }
    g.model->setTraining(false);

    // The tokenizer: given, else the folder's (an adapter or checkpoint folder may carry one), else the base's.
    fs::path tok = options.tokenizer;
    if (tok.empty())
        for (const fs::path& d : {dir, g.modelDir})
            if (fs::exists(d / "tokenizer.json", ec)) {
                tok = d / "tokenizer.json";
                break;
            }
    if (tok.empty())
        throw IoError(dir.string() + ": no tokenizer.json here" +
                      (g.modelDir != dir ? " nor in the base model " + g.modelDir.string() : std::string()) +
                      "; give the tokenizer.json to use (fts generate --tokenizer FILE)");
    g.tokenizer = Tokenizer::fromFile(tok);
    g.generation = readModelGenerationConfig(g.modelDir);
    g.chatTemplate = detectChatTemplate(tok.parent_path());
    if (!g.chatTemplate) g.chatTemplate = detectChatTemplate(g.modelDir);
    return g;
}

}  // namespace fts
