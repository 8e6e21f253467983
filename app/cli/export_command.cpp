// `fts export PATH --out DIR [--dtype float32|bfloat16|float16]`: a checkpoint (or the latest checkpoint of
// an output dir) as a Hugging Face model folder.
#include <iostream>

#include "app/cli/commands.h"
#include "core/checkpoint/checkpoint.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"

namespace fts::cli {

void addExportCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("export", "Export a checkpoint as a Hugging Face model folder");
    auto src = std::make_shared<std::filesystem::path>();
    auto out = std::make_shared<std::filesystem::path>();
    auto dtype = std::make_shared<std::string>("float32");
    cmd->add_option("checkpoint", *src, "Checkpoint folder, or a training output_dir (its latest checkpoint)")
        ->required();
    cmd->add_option("--out", *out, "Destination folder")->required();
    cmd->add_option("--dtype", *dtype, "float32, bfloat16 or float16")->capture_default_str();
    cmd->callback([src, out, dtype] {
        std::filesystem::path ckpt = *src;
        // A checkpoint folder: model weights, a LoRA adapter, or (ZeRO stage 3) only the ranks' shards + trainer state.
        if (!std::filesystem::exists(ckpt / "model.safetensors") &&
            !std::filesystem::exists(ckpt / "adapter_config.json") &&
            !std::filesystem::exists(ckpt / "trainer_state.json")) {
            ckpt = latestCheckpoint(*src);
            if (ckpt.empty())
                throw IoError(src->string() + ": neither a checkpoint folder nor an output dir with checkpoints");
        }
        exportCheckpoint(ckpt, *out, *dtype);
        std::cout << "exported " << ckpt.string() << " to " << out->string() << "\n";
    });
}

}  // namespace fts::cli
