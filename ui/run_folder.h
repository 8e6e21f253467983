// Where a run started from the studio keeps its files, and what resuming one needs. Every new run gets an
// output folder no other run uses (a second run from the quick-start must not rotate away the first one's
// checkpoints); the config it ran with, its supervisor log, its hostfile and its launch arguments go into that
// folder (never next to the file the config was opened from). Resume reads them back.
#pragma once
#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/store/run_store.h"

namespace fts {

// Output folders and names of the runs in the store, to keep a new run off them.
struct TakenRuns {
    QHash<QString, QString> dirs;  // cleaned absolute output folder -> "run 3 ("name")"
    QSet<QString> names;
    static TakenRuns fromRuns(const std::vector<RunRecord>& runs);
};

// training.output_dir as written in a config text ("" when absent or the text is not a JSON object).
QString configOutputDirText(const QString& configText);

// "~/x" and relative paths (against baseDir) as a cleaned absolute path.
QString absoluteUserPath(const QString& path, const QString& baseDir);

// Who holds `dir`: a run of `taken` recorded with that output folder, else the run id in the newest checkpoint
// under dir/checkpoints. Empty when the folder is free.
QString outputDirHolder(const QString& dir, const TakenRuns& taken);

struct NewRunFolder {
    QString runName;
    QString outputDir;     // absolute
    bool derived = false;  // the config's folder was taken: "<name>-k" in "<output_dir>-k" instead
};
// The new run's name and folder. `config` has absolute paths (absolutizeConfigPaths). The config's own
// training.output_dir and run_name (defaultName without one) when that folder is free. When it is taken and
// mayDerive (the folder came with the config: the quick-start, "Start from this run", an opened file), the
// first k >= 2 with "<output_dir>-k" free and "<name>-k" unused; when taken and not mayDerive (the user chose
// that folder), nullopt and a message naming the run that holds it.
std::optional<NewRunFolder> pickRunFolder(const nlohmann::json& config, const QString& defaultName,
                                          const TakenRuns& taken, bool mayDerive, QString* error = nullptr);

// The files of a launch inside the run's folder.
struct RunLaunchFiles {
    QString configPath;    // <dir>/train_config.json: the config as launched, absolute paths
    QString logPath;       // <dir>/train.log: the supervisor's stdout and stderr
    QString hostfilePath;  // <dir>/hostfile, written only for SSH hosts
    QString launchPath;    // <dir>/launch.json: {"placement": [the rank arguments]} for resume
};
RunLaunchFiles runLaunchFiles(const QString& outputDir);
// Creates the folder and writes train_config.json (config with run_name and output_dir set to `folder`'s),
// launch.json (placement) and, when hostfileText is not empty, the hostfile. False + why on failure.
bool writeRunLaunch(const NewRunFolder& folder, nlohmann::json config, const QStringList& placement,
                    const QString& hostfileText, RunLaunchFiles* files, QString* error = nullptr);

// What `fts train CONFIG --resume` needs to continue `run`: a stopped or failed run (or a running one whose
// supervisor is gone: supervisorAlive false) with a checkpoint and its config file. The placement is the one it
// was launched with (launch.json in its folder; else --nproc of its world size).
struct ResumeLaunch {
    QString configPath;
    QString logPath;
    QStringList placement;
};
bool runIsResumable(const RunRecord& run, bool supervisorAlive);
std::optional<ResumeLaunch> planResume(const RunRecord& run, bool supervisorAlive, QString* error = nullptr);

}  // namespace fts
