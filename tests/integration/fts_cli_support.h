// Shared by the integration tests: run the real `fts` and build quick-start configs with absolute paths.
#pragma once
#include <QProcess>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "tests/support/test_paths.h"

namespace fts::testing {

inline const std::filesystem::path kQuickstart = std::filesystem::path(FTS_SOURCE_DIR) / "resources" / "quickstart";

struct CliResult {
    int exitCode = -1;  // -1: crashed or timed out
    QString out, err;
};

inline CliResult runFts(const QStringList& args, int timeoutMs = 600000) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_CLI_PATH), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

// The quick-start config with absolute model/data paths and output_dir = dir/<name>-out.
inline nlohmann::json quickstartConfig(const std::filesystem::path& dir, const std::string& name) {
    nlohmann::json cfg = nlohmann::json::parse(readFile(kQuickstart / "quickstart.json"));
    cfg["model"]["path"] = (kQuickstart / "model").string();
    cfg["data"]["train"] = (kQuickstart / "sample_stories.jsonl").string();
    cfg["training"]["output_dir"] = (dir / (name + "-out")).string();
    return cfg;
}

// The quick-start config with absolute paths and the given overrides merged in (JSON merge patch), written to
// dir/<name>.json.
inline std::filesystem::path writeConfig(const std::filesystem::path& dir, const std::string& name,
                                         const nlohmann::json& patch) {
    nlohmann::json cfg = quickstartConfig(dir, name);
    cfg.merge_patch(patch);
    std::filesystem::path file = dir / (name + ".json");
    std::ofstream(file) << cfg.dump(2);
    return file;
}

// Every recorded value of one metric of a run, in step order.
inline std::vector<double> series(const fts::RunStore& store, int64_t run, const std::string& name) {
    std::vector<double> v;
    for (const auto& m : store.metrics(run, name)) v.push_back(m.value);
    return v;
}

}  // namespace fts::testing
