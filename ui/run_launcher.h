// Starting runs from the GUI: where the CLI, resources and data folders are, where the config to launch
// is written (each launch gets its own immutable file, so the stored config_path shows what ran), and the
// detached `fts train` start (the run outlives the window). Relative config paths resolve against the
// config file's folder; a config written elsewhere has them rewritten to absolute paths via the JSON.
#pragma once
#include "core/util/process.h"  // processAlive(pid)
#include <QList>
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
// Picks the config file to launch: the unmodified origin itself; else a new sibling
// "<stem>.<yyyyMMdd-HHmmss>.json" next to the origin when that folder is writable (text unchanged, same
// base dir); else <dataDir>/configs/<stem>.<time>.json with relative paths made absolute.
// Writes the file when needed. Returns its absolute path, or nullopt + error.
std::optional<QString> prepareLaunchConfig(const LaunchConfigRequest& request, QString* error = nullptr);

struct StartedProcess {
    qint64 pid = 0;
    QString logPath;
};
// `cli train <configPath> --store <storePath>` plus placementArguments(nproc, gpus) (--include localhost:i,j
// for GPUs, else --nproc N when N > 1), detached, working directory = the config's folder, stdout+stderr
// appended to logPath. With GPUs, CUDA_DEVICE_ORDER=PCI_BUS_ID (unless set) so CUDA's ids are nvidia-smi's.
// With a hostfile (the hosts panel's choice): --hostfile FILE --include SPEC instead of the local placement.
// Returns the supervisor pid.
std::optional<StartedProcess> startTrainDetached(const QString& cliPath, const QString& configPath,
                                                 const QString& storePath, const QString& logPath,
                                                 QString* error = nullptr, int nproc = 1,
                                                 const QList<int>& gpus = {}, const QString& hostfile = {},
                                                 const QString& include = {});


}  // namespace fts
