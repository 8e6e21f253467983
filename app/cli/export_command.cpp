// `fts export PATH --out DIR [--format hf|gguf] [--dtype float32|bfloat16|float16] [--merge|--adapter-only] [--quant PRESET]`: a checkpoint
// (or the latest checkpoint of an output dir, or an HF model folder) as a Hugging Face model folder, or as one GGUF
// file for llama.cpp / Ollama / LM Studio with an Ollama Modelfile beside it.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "app/cli/commands.h"
#include "core/checkpoint/checkpoint.h"
#include "core/config/memory_estimate.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "core/util/stop_signal_watcher.h"

namespace fts::cli {

namespace {

// The names of an export from `source`: the model's (general.name: a run's checkpoint, <output_dir>/checkpoints/
// step-00000200 or <output_dir>/final, is its run's folder name; another folder its own name) and the file's
// (<out>/<model>[-step-N]-<quant>.gguf, or --out itself when it ends in .gguf).
struct ExportNames {
    std::string model;
    std::filesystem::path file;
};

ExportNames exportNames(const std::filesystem::path& out, const std::filesystem::path& source,
                        const std::string& quant) {
    const std::string own = gguf::folderName(source);
    std::filesystem::path folder = std::filesystem::absolute(source).lexically_normal();
    if (folder.filename().empty()) folder = folder.parent_path();
    ExportNames n{own, {}};
    std::string stem = own;
    if (own == "final" || own.rfind("checkpoint-", 0) == 0 || own.rfind("step-", 0) == 0) {
        std::filesystem::path run = folder.parent_path();
        if (run.filename() == "checkpoints") run = run.parent_path();
        n.model = run.filename().string();
        stem = own == "final" ? n.model : n.model + "-" + own;
    }
    n.file = out.extension() == ".gguf" ? out : out / (stem + "-" + quant + ".gguf");
    return n;
}

}  // namespace

void addExportCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "export", "Export a checkpoint as a Hugging Face model folder, or as a GGUF file (llama.cpp, Ollama)");
    auto src = std::make_shared<std::filesystem::path>();
    auto out = std::make_shared<std::filesystem::path>();
    auto dtype = std::make_shared<std::string>("float32");
    auto format = std::make_shared<std::string>("hf");
    auto quant = std::make_shared<std::string>("f16");
    auto name = std::make_shared<std::string>();
    auto chat = std::make_shared<std::string>();
    auto threads = std::make_shared<int>(0);
    auto noModelfile = std::make_shared<bool>(false);
    auto merge = std::make_shared<bool>(false), adapterOnly = std::make_shared<bool>(false);
    cmd->add_option("checkpoint", *src,
                    "Checkpoint folder, a training output_dir (its latest checkpoint), or an HF model folder")
        ->required();
    cmd->add_option("--out", *out, "Destination folder (for GGUF also a file name ending in .gguf)")->required();
    cmd->add_option("--format", *format, "hf (a Hugging Face model folder) or gguf (one file for llama.cpp/Ollama)")
        ->capture_default_str();
    cmd->add_option("--dtype", *dtype, "hf: float32, bfloat16 or float16")->capture_default_str();
    cmd->add_option("--quant", *quant, "gguf: " + gguf::presetNames())->capture_default_str();
    cmd->add_option("--name", *name, "gguf: the model's name in the file (general.name)");
    cmd->add_option(
        "--chat-template", *chat,
        "gguf: the chat template of the Modelfile (chatml, qwen3, qwen2.5, llama3, mistral, gemma, phi3, phi4-mini, alpaca, none; "
        "default: the one the run trained with)");
    cmd->add_option("--threads", *threads, "gguf: quantization threads (0: every core)")->capture_default_str();
    cmd->add_flag("--no-modelfile", *noModelfile, "gguf: do not write the Ollama Modelfile");
    cmd->add_flag("--merge", *merge,
                  "hf, a LoRA run: the base with the adapter merged in (+ the adapter in adapter/), whatever the run's "
                  "merge_on_export says (a QLoRA run's default is the adapter alone)");
    cmd->add_flag("--adapter-only", *adapterOnly, "hf, a LoRA run: the PEFT adapter folder alone");
    cmd->callback([=] {
        std::filesystem::path ckpt = *src;
        // A checkpoint folder: model weights, a LoRA adapter, or (ZeRO stage 3) only the ranks' shards + trainer state.
        if (!std::filesystem::exists(ckpt / "model.safetensors") &&
            !std::filesystem::exists(ckpt / "model.safetensors.index.json") &&
            !std::filesystem::exists(ckpt / "adapter_config.json") &&
            !std::filesystem::exists(ckpt / "trainer_state.json")) {
            ckpt = latestCheckpoint(*src);
            if (ckpt.empty())
                throw IoError(src->string() + ": neither a checkpoint folder nor an output dir with checkpoints");
        }
        if (*merge && *adapterOnly) throw ConfigError("--merge and --adapter-only exclude each other");
        if ((*merge || *adapterOnly) && *format != "hf")
            throw ConfigError(std::string(*merge ? "--merge" : "--adapter-only") +
                              ": only for --format hf (a GGUF file always holds the merged model)");
        if ((*merge || *adapterOnly) && !isLoraCheckpoint(ckpt))
            throw ConfigError(std::string(*merge ? "--merge" : "--adapter-only") + ": " + ckpt.string() +
                              " is not a LoRA checkpoint (it holds the whole model)");
        if (*format == "hf") {
            exportCheckpoint(ckpt, *out, *dtype,
                             *merge         ? std::optional<bool>(true)
                             : *adapterOnly ? std::optional<bool>(false)
                                            : std::nullopt);
            std::cout << "exported " << ckpt.string() << " to " << out->string() << "\n";
            return;
        }
        if (*format != "gguf") throw ConfigError("--format: \"" + *format + "\"; expected hf or gguf");
        // A stop (SIGINT, SIGTERM: the studio's Cancel) ends the export after the current tensor; the partial file
        // (and a merge's scratch folder) are removed on the way out, so nothing half-written stays.
        static std::atomic<int> stopSignal{0};
        StopSignalWatcher watcher([](int sig) { stopSignal = sig; });
        const std::optional<gguf::QuantPreset> preset = gguf::parseQuantPreset(*quant);
        if (!preset) throw ConfigError("--quant: \"" + *quant + "\"; expected one of " + gguf::presetNames());
        gguf::GgufExportOptions options;
        options.preset = *preset;
        options.name = *name;
        options.threads = *threads;
        options.writeModelfile = !*noModelfile;
        if (!chat->empty()) options.chat = chatTemplateFromName(*chat);
        // Progress on stderr, one line per whole percent: "gguf: 42% (1.2 GiB of 2.9 GiB)" (the studio reads it).
        int lastPercent = -1;
        options.progress = [&lastPercent](uint64_t done, uint64_t total) {
            if (stopSignal)
                throw Error("export stopped (signal " + std::to_string(stopSignal.load()) + "): nothing written");
            const int percent = total ? static_cast<int>(done * 100 / total) : 100;
            if (percent == lastPercent) return;
            lastPercent = percent;
            std::fprintf(stderr, "gguf: %d%% (%.1f MiB of %.1f MiB)\n", percent, done / 1048576.0, total / 1048576.0);
        };
        const ExportNames names = exportNames(*out, ckpt, gguf::presetName(*preset));
        const std::filesystem::path& target = names.file;
        if (options.name.empty()) options.name = names.model;
        if (isLoraCheckpoint(ckpt)) std::fprintf(stderr, "gguf: merging the LoRA adapter into its base model\n");
        if (isZero3Checkpoint(ckpt)) std::fprintf(stderr, "gguf: consolidating the ZeRO stage 3 shards\n");
        std::fprintf(stderr, "gguf: writing %s\n", target.string().c_str());
        const gguf::GgufExportResult r = exportCheckpointGguf(ckpt, target, options);
        for (const std::string& w : r.warnings) std::cerr << "warning: " << w << "\n";
        std::string types;
        for (const auto& [type, count] : r.tensorTypes)
            types += (types.empty() ? "" : ", ") + std::to_string(count) + " " + type;
        std::cout << "exported " << ckpt.string() << " to " << r.file.string() << " (" << gguf::presetName(*preset)
                  << ", " << formatBytes(static_cast<int64_t>(r.fileBytes)) << "; tensors: " << types << ")\n";
        if (!r.modelfile.empty())
            std::cout << "Ollama: ollama create NAME -f " << r.modelfile.string() << "  (chat template: "
                      << (r.chat ? chatTemplateName(*r.chat) : std::string("none, plain completion")) << ")\n";
    });
}

}  // namespace fts::cli
