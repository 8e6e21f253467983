// fts: the command-line front end (train, worker, node, hosts, runs, export, tokenize, debug, estimate, probe,
// generate, chat, doctor). Parses arguments and calls into core; errors print one clear line and give a non-zero exit code.
#include <iostream>

#include "app/cli/commands.h"
#include "core/train/runtime_versions.h"
#include "core/util/error.h"

int main(int argc, char** argv) {
    CLI::App app{"Finetune Studio command line: fine-tune Hugging Face models with DeepSpeed-style configs", "fts"};
    app.set_version_flag(
        "--version", [] { return fts::runtimeVersionText(); }, "fts, LibTorch, CUDA, cuDNN and NCCL versions");
    app.require_subcommand(1);
    fts::cli::addTrainCommand(app);
    fts::cli::addWorkerCommand(app);
    fts::cli::addNodeCommand(app);
    fts::cli::addHostsCommand(app);
    fts::cli::addRunsCommand(app);
    fts::cli::addExportCommand(app);
    fts::cli::addTokenizeCommand(app);
    fts::cli::addDebugCommand(app);
    fts::cli::addEstimateCommand(app);
    fts::cli::addProbeCommand(app);
    fts::cli::addPlanCommand(app);
    fts::cli::addQueueCommand(app);
    fts::cli::addGenerateCommand(app);
    fts::cli::addChatCommand(app);
    fts::cli::addDoctorCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const fts::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return fts::cli::exitCode();
}
