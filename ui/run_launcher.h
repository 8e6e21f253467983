// Starting runs from the GUI: where the CLI, resources and data folders are, where a probe's config is
// written (each launch gets its own immutable file, so the stored config_path shows what ran), and the
// detached `fts train` start (the run outlives the window). Relative config paths resolve against the
// config file's folder; a config written elsewhere has them rewritten to absolute paths via the JSON.
#pragma once
#include "core/util/process.h"  // processAlive(pid)
#include <QList>
#include <QStringList>
#include <QString>
#include <optional>

namespace fts {

// Resources folder (holds quickstart/): <exe>/../share/finetune-studio/resources when present (installed),
// else the source tree's resources/ (compile-time FTS_RESOURCES_DIR). Env FTS_RESOURCES overrides.
QString defaultResourcesDir();
QString quickStartConfigPath(const QString& resourcesDir);
// The CLI: env FTS_CLI, else the `fts` next to this executable.
QString defaultCliPath();
// The run store: env FTS_STORE, else fts::RunStore::defaultPath().
QString defaultStorePath();
// Per-user data folder for launched configs (configs/) and supervisor logs (logs/):
// $XDG_DATA_HOME/finetune-studio.
QString defaultDataDir();

// The config keys holding file system paths that resolve against the config file's folder.
QStringList configPathKeys();
// Returns the config text with every relative path value (configPathKeys(); "~/..." stays as is) made
// absolute against baseDir. model.path is rewritten only when baseDir/<value> exists (otherwise it may be a
// model id). The JSON is re-serialised (2-space indent). Throws nothing; nullopt + error on invalid JSON.
std::optional<QString> absolutizeConfigPaths(const QString& text, const QString& baseDir, QString* error = nullptr);

struct LaunchConfigRequest {
    QString text;           // the editor's text (validated)
    QString originPath;     // the file it was loaded from or saved to ("" if none)
    bool modified = false;  // text differs from originPath's content
    QString baseDir;        // folder relative paths resolve against (originPath's folder, if any)
    QString dataDir;        // fallback: <dataDir>/configs/
    QString stem;           // file name stem when originPath is empty
};
// The config file a probe (or any launch outside a run folder) reads: the unmodified origin itself; else
// <dataDir>/configs/<stem>.<yyyyMMdd-HHmmss>.json with relative paths made absolute, never a file next to the
// origin (the source tree, a read-only install). Runs started from the studio write theirs into their own
// folder instead (run_folder.h). Writes the file when needed. Returns its absolute path, or nullopt + error.
std::optional<QString> prepareLaunchConfig(const LaunchConfigRequest& request, QString* error = nullptr);

struct StartedProcess {
    qint64 pid = 0;
    QString logPath;
};
struct TrainLaunch {
    QString cliPath;
    QString configPath;
    QString storePath;
    QString logPath;        // stdout and stderr appended here ("" = discarded)
    QStringList placement;  // placementArguments(nproc, gpus), or --hostfile FILE --include SPEC
    bool resume = false;    // --resume: continue the run of the newest checkpoint in the config's output_dir
    bool force = false;     // --force: start although the memory estimate exceeds the devices' free memory
};
// `cli train <configPath> --store <storePath> <placement...> [--resume]`, detached (the run outlives the
// window), working directory = the config's folder, stdout+stderr appended to logPath.
// CUDA_DEVICE_ORDER=PCI_BUS_ID (unless set), so CUDA's GPU ids are nvidia-smi's, which the device panel shows.
// Returns the supervisor pid.
std::optional<StartedProcess> startTrainDetached(const TrainLaunch& launch, QString* error = nullptr);

}  // namespace fts
