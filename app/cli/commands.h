// The `fts` subcommands; each file in app/cli registers one with CLI11 and calls into core.
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace fts::cli {

// Every command records its exit code here; main returns it.
int& exitCode();
std::filesystem::path selfExecutable();  // /proc/self/exe
// Hosts a run's rendezvous store in this process (core/dist/store_server.h), for the launcher options'
// hostStore: `fts train` and `fts hosts check`.
std::shared_ptr<void> hostRendezvousStore(int listenFd, const std::string& host, int port, const std::string& token);

void addTrainCommand(CLI::App& app);
void addWorkerCommand(CLI::App& app);
void addNodeCommand(CLI::App& app);
void addHostsCommand(CLI::App& app);
void addRunsCommand(CLI::App& app);
void addExportCommand(CLI::App& app);
void addTokenizeCommand(CLI::App& app);
void addDebugCommand(CLI::App& app);
void addEstimateCommand(CLI::App& app);
void addProbeCommand(CLI::App& app);
void addPlanCommand(CLI::App& app);
void addQueueCommand(CLI::App& app);
void addGenerateCommand(CLI::App& app);
void addChatCommand(CLI::App& app);
void addDoctorCommand(CLI::App& app);

}  // namespace fts::cli
