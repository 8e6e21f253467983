// Paths a run needs, checked before it starts (see preflight.h).
#include "core/config/preflight.h"

#include "core/config/issue_kinds.h"
#include "core/config/message_templates.h"

#include <unistd.h>

#include <filesystem>
#include <string>

namespace fts {
namespace fs = std::filesystem;
namespace {

void error(std::vector<ConfigIssue>& out, const std::string& key, const std::string& message) {
    out.push_back(ConfigIssue{key, message, true});
}

// As model_factory.cpp's loader reports a folder without weights it can read.
void checkWeights(const fs::path& dir, std::vector<ConfigIssue>& out) {
    std::error_code ec;
    if (fs::exists(dir / "model.safetensors", ec) || fs::exists(dir / "model.safetensors.index.json", ec)) return;
    for (const char* other : {"pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5", "model.ckpt.index"})
        if (fs::exists(dir / other, ec)) {
            error(out, "model.path", fillTemplate(msg::kWeightsNotSafetensors, {dir.string(), other}));
            return;
        }
    error(out, "model.path", fillTemplate(msg::kNoWeights, {dir.string()}));
}

void checkModel(const ModelSection& m, std::vector<ConfigIssue>& out) {
    if (m.path.empty()) return;  // the parser reported it
    std::error_code ec;
    if (!fs::exists(m.path, ec)) {
        error(out, "model.path", notFoundMessage(m.path.string(), "expected a Hugging Face model folder"));
        return;
    }
    if (!fs::is_directory(m.path, ec)) {
        error(out, "model.path", fillTemplate(msg::kModelPathNotDirectory, {m.path.string()}));
        return;
    }
    if (!fs::is_regular_file(m.path / "config.json", ec))
        error(out, "model.path",
              notFoundMessage((m.path / "config.json").string(), "a Hugging Face model folder needs config.json"));
    else if (m.init != "random")
        checkWeights(m.path, out);
    if (!m.tokenizer.empty()) {
        if (fs::is_directory(m.tokenizer, ec))
            error(out, "model.tokenizer",
                  fillTemplate(msg::kTokenizerIsDirectory,
                               {m.tokenizer.string(), (m.tokenizer / "tokenizer.json").string()}));
        else if (!fs::is_regular_file(m.tokenizer, ec))
            error(out, "model.tokenizer", notFoundMessage(m.tokenizer.string(), "expected the model's tokenizer.json"));
    }
    if (m.lora.enabled && !m.lora.initFrom.empty() && !fs::is_regular_file(m.lora.initFrom / "adapter_config.json", ec))
        error(
            out, "model.lora.init_from",
            notFoundMessage((m.lora.initFrom / "adapter_config.json").string(), "expected a PEFT LoRA adapter folder"));
}

void checkDataFile(const fs::path& file, const std::string& key, std::vector<ConfigIssue>& out) {
    if (file.empty()) return;
    std::error_code ec;
    if (!fs::exists(file, ec))
        error(out, key, notFoundMessage(file.string(), ""));
    else if (fs::is_directory(file, ec))
        error(out, key, fillTemplate(msg::kDataIsDirectory, {file.string()}));
    else if (::access(file.c_str(), R_OK) != 0)
        error(out, key, fillTemplate(msg::kDataUnreadable, {file.string()}));
}

// The output folder exists as a writable folder, or its nearest existing ancestor is one (it is created).
void checkOutputDir(const fs::path& dir, std::vector<ConfigIssue>& out) {
    if (dir.empty()) return;
    std::error_code ec;
    fs::path at = fs::absolute(dir, ec);
    while (!at.empty() && !fs::exists(at, ec) && at.has_parent_path() && at.parent_path() != at) at = at.parent_path();
    if (!fs::is_directory(at, ec)) {
        error(out, "training.output_dir", fillTemplate(msg::kOutputUnderFile, {at.string(), dir.string()}));
        return;
    }
    if (::access(at.c_str(), W_OK | X_OK) != 0)
        error(out, "training.output_dir",
              at == fs::absolute(dir, ec) ? fillTemplate(msg::kOutputNotWritable, {dir.string()})
                                          : fillTemplate(msg::kOutputCannotCreate, {dir.string(), at.string()}));
}

}  // namespace

std::vector<ConfigIssue> preflightPaths(const TrainConfig& cfg) {
    std::vector<ConfigIssue> out;
    checkModel(cfg.model, out);
    checkDataFile(cfg.data.train, "data.train", out);
    checkDataFile(cfg.data.eval, "data.eval", out);
    checkOutputDir(cfg.training.outputDir, out);
    return out;
}

}  // namespace fts
