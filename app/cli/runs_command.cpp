// `fts runs list [--json]` and `fts runs show ID [--json]`: read the run store.
#include <iostream>

#include "app/cli/commands.h"
#include "core/store/run_json.h"
#include "core/store/run_store.h"
#include "core/util/error.h"

namespace fts::cli {

void addRunsCommand(CLI::App& app) {
    auto* runs = app.add_subcommand("runs", "List and inspect recorded runs");
    runs->require_subcommand(1);
    auto storePath = std::make_shared<std::filesystem::path>();
    runs->add_option("--store", *storePath, "Run store file (default: $XDG_DATA_HOME/finetune-studio/runs.sqlite)");

    auto* list = runs->add_subcommand("list", "All runs, newest first");
    list->fallthrough();  // --store may follow the subcommand
    auto listJson = std::make_shared<bool>(false);
    list->add_flag("--json", *listJson, "JSON array instead of a table");
    list->callback([storePath, listJson] {
        RunStore store(storePath->empty() ? RunStore::defaultPath() : *storePath, /*readOnly=*/true);
        auto all = store.listRuns(100000);
        if (*listJson) {
            nlohmann::json arr = nlohmann::json::array();
            for (const auto& r : all) arr.push_back(runToJson(r));
            std::cout << arr.dump(2) << "\n";
        } else {
            std::cout << formatRunTable(all);
        }
    });

    auto* show = runs->add_subcommand(
        "show", "One run: config, status, final metrics, latest metrics, and its warnings and errors");
    show->fallthrough();
    auto id = std::make_shared<int64_t>(0);
    auto showJson = std::make_shared<bool>(false);
    auto allLogs = std::make_shared<bool>(false);
    show->add_option("id", *id, "Run id")->required();
    show->add_flag("--json", *showJson, "JSON output");
    show->add_flag("--logs", *allLogs, "Every log line of the run, not only its warnings and errors");
    show->callback([storePath, id, showJson, allLogs] {
        RunStore store(storePath->empty() ? RunStore::defaultPath() : *storePath, /*readOnly=*/true);
        auto run = store.getRun(*id);
        if (!run) throw Error(store.path().string() + ": no run with id " + std::to_string(*id));
        // The run's warnings and errors (a damaged checkpoint skipped, bad data rows, a failure), or every line.
        std::vector<LogLine> lines;
        for (LogLine& l : store.logs(*id, 0))
            if (*allLogs || l.level != "info") lines.push_back(std::move(l));
        if (*showJson) {
            auto metrics = store.metrics(*id);
            nlohmann::json j = runToJson(*run);
            nlohmann::json series = nlohmann::json::object();
            for (const auto& m : metrics) series[m.name].push_back({m.step, m.value});
            j["metrics"] = series;
            nlohmann::json logs = nlohmann::json::array();
            for (const LogLine& l : lines)
                logs.push_back({{"time", l.time}, {"rank", l.rank}, {"level", l.level}, {"message", l.message}});
            j[*allLogs ? "logs" : "warnings_and_errors"] = logs;
            std::cout << j.dump(2) << "\n";
        } else {
            std::cout << formatRunDetails(*run, store.latestMetrics(*id));
            std::cout << (*allLogs ? "\nlog:\n" : "\nwarnings and errors:")
                      << (lines.empty() && !*allLogs ? " none\n" : "\n");
            for (const LogLine& l : lines)
                std::cout << "  " << (l.rank < 0 ? std::string("supervisor") : "rank " + std::to_string(l.rank)) << " "
                          << l.level << ": " << l.message << "\n";
        }
    });
}

}  // namespace fts::cli
