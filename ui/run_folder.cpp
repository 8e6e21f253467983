// A run's own folder: its name and output folder, the launch files in it, and resume (see run_folder.h).
#include "ui/run_folder.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include "core/util/checkpoint_dir.h"
#include "core/util/process.h"
#include "core/util/json_parse.h"

namespace fts {
namespace {

bool fail(QString* error, const QString& message) {
    if (error) *error = message;
    return false;
}

bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) < 0 || !file.commit())
        return fail(error, QCoreApplication::translate("fts::RunFolder", "Cannot write %1: %2")
                               .arg(QDir::toNativeSeparators(path), file.errorString()));
    return true;
}

QString stringAt(const nlohmann::json& config, const char* section, const char* key) {
    const auto s = config.find(section);
    if (s == config.end() || !s->is_object()) return {};
    const auto v = s->find(key);
    return v != s->end() && v->is_string() ? QString::fromStdString(v->get<std::string>()) : QString();
}

}  // namespace

TakenRuns TakenRuns::fromRuns(const std::vector<RunRecord>& runs) {
    TakenRuns taken;
    for (const RunRecord& r : runs) {
        const QString name = QString::fromStdString(r.name);
        taken.names.insert(name);
        if (!r.outputDir.empty())
            taken.dirs.insert(QDir::cleanPath(QString::fromStdString(r.outputDir)),
                              QStringLiteral("run %1 (\"%2\")").arg(r.id).arg(name));
    }
    return taken;
}

QString configOutputDirText(const QString& configText) {
    const auto doc = parseJsonOrDiscarded(configText.toStdString());
    return doc.is_object() ? stringAt(doc, "training", "output_dir") : QString();
}

QString absoluteUserPath(const QString& path, const QString& baseDir) {
    if (path == QLatin1String("~")) return QDir::homePath();
    if (path.startsWith(QLatin1String("~/"))) return QDir::cleanPath(QDir::homePath() + path.mid(1));
    return QDir::cleanPath(QDir(baseDir).absoluteFilePath(path));
}

QString outputDirHolder(const QString& dir, const TakenRuns& taken) {
    const QString clean = QDir::cleanPath(dir);
    const auto it = taken.dirs.constFind(clean);
    if (it != taken.dirs.constEnd()) return *it;
    const auto held = listCheckpoints(clean.toStdString());
    if (held.empty()) return {};
    const int64_t owner = checkpointRunId(held.back());
    return owner > 0 ? QStringLiteral("run %1").arg(owner)
                     : QCoreApplication::translate("fts::RunFolder", "another run");
}

std::optional<NewRunFolder> pickRunFolder(const nlohmann::json& config, const QString& defaultName,
                                          const TakenRuns& taken, bool mayDerive, QString* error) {
    const QString written = stringAt(config, "training", "output_dir");
    if (written.isEmpty()) {
        fail(error,
             QCoreApplication::translate(
                 "fts::RunFolder", "training.output_dir is not set: the run needs a folder for its checkpoints."));
        return std::nullopt;
    }
    NewRunFolder folder;
    folder.outputDir = absoluteUserPath(written, QDir::currentPath());
    folder.runName = stringAt(config, "training", "run_name");
    if (folder.runName.isEmpty()) folder.runName = defaultName.isEmpty() ? QStringLiteral("run") : defaultName;
    const QString holder = outputDirHolder(folder.outputDir, taken);
    if (holder.isEmpty()) return folder;
    if (!mayDerive) {
        fail(error, QCoreApplication::translate(
                        "fts::RunFolder",
                        "training.output_dir: %1 already holds the checkpoints of %2. A new run there would mix its "
                        "checkpoints with them; choose another folder, or resume that run.")
                        .arg(QDir::toNativeSeparators(folder.outputDir), holder));
        return std::nullopt;
    }
    for (int k = 2;; ++k) {
        const QString dir = QStringLiteral("%1-%2").arg(folder.outputDir).arg(k);
        const QString name = QStringLiteral("%1-%2").arg(folder.runName).arg(k);
        if (!taken.names.contains(name) && outputDirHolder(dir, taken).isEmpty() && !QFileInfo::exists(dir))
            return NewRunFolder{name, dir, true};
    }
}

RunLaunchFiles runLaunchFiles(const QString& outputDir) {
    const QDir dir(outputDir);
    return {dir.absoluteFilePath(QStringLiteral("train_config.json")),
            dir.absoluteFilePath(QStringLiteral("train.log")), dir.absoluteFilePath(QStringLiteral("hostfile")),
            dir.absoluteFilePath(QStringLiteral("launch.json"))};
}

bool writeRunLaunch(const NewRunFolder& folder, nlohmann::json config, const QStringList& placement,
                    const QString& hostfileText, RunLaunchFiles* files, QString* error) {
    if (!QDir().mkpath(folder.outputDir))
        return fail(error, QCoreApplication::translate("fts::RunFolder", "Cannot create the run's folder %1")
                               .arg(QDir::toNativeSeparators(folder.outputDir)));
    const RunLaunchFiles f = runLaunchFiles(folder.outputDir);
    if (!config["training"].is_object()) config["training"] = nlohmann::json::object();
    config["training"]["run_name"] = folder.runName.toStdString();
    config["training"]["output_dir"] = folder.outputDir.toStdString();
    nlohmann::json launch = {{"placement", nlohmann::json::array()}};
    for (const QString& a : placement) launch["placement"].push_back(a.toStdString());
    if (!writeFile(f.configPath, QByteArray::fromStdString(config.dump(2) + "\n"), error)) return false;
    if (!writeFile(f.launchPath, QByteArray::fromStdString(launch.dump(2) + "\n"), error)) return false;
    if (!hostfileText.isEmpty() && !writeFile(f.hostfilePath, hostfileText.toUtf8(), error)) return false;
    if (files) *files = f;
    return true;
}

bool runIsResumable(const RunRecord& run, bool supervisorAlive) {
    const bool ended = run.status == RunStatus::Stopped || run.status == RunStatus::Failed;
    const bool crashed = run.status == RunStatus::Running && !supervisorAlive;
    return (ended || crashed) && !run.outputDir.empty();
}

std::optional<ResumeLaunch> planResume(const RunRecord& run, bool supervisorAlive, QString* error) {
    const QString name = QString::fromStdString(run.name);
    if (!runIsResumable(run, supervisorAlive)) {
        fail(error,
             QCoreApplication::translate("fts::RunFolder",
                                         "Run \"%1\" cannot be resumed: only a stopped, failed or interrupted run can.")
                 .arg(name));
        return std::nullopt;
    }
    const QString outputDir = QString::fromStdString(run.outputDir);
    if (latestCheckpoint(outputDir.toStdString()).empty()) {
        fail(error, QCoreApplication::translate(
                        "fts::RunFolder",
                        "Run \"%1\" has no checkpoint in %2 to resume from; use \"Start from this run\" to start it "
                        "again.")
                        .arg(name, QDir::toNativeSeparators(outputDir)));
        return std::nullopt;
    }
    ResumeLaunch launch;
    launch.configPath = QString::fromStdString(run.configPath);
    if (launch.configPath.isEmpty() || !QFileInfo(launch.configPath).isFile()) {
        fail(error,
             QCoreApplication::translate(
                 "fts::RunFolder", "The config file of run \"%1\" is gone (%2); use \"Start from this run\" instead.")
                 .arg(name, QDir::toNativeSeparators(launch.configPath)));
        return std::nullopt;
    }
    const RunLaunchFiles files = runLaunchFiles(outputDir);
    launch.logPath = files.logPath;
    QFile saved(files.launchPath);
    if (saved.open(QIODevice::ReadOnly)) {
        const auto doc = parseJsonOrDiscarded(saved.readAll().toStdString());
        if (doc.is_object() && doc.contains("placement") && doc["placement"].is_array())
            for (const auto& a : doc["placement"])
                if (a.is_string()) launch.placement << QString::fromStdString(a.get<std::string>());
    } else if (run.worldSize > 1) {
        launch.placement << QStringLiteral("--nproc") << QString::number(run.worldSize);
    }
    return launch;
}

}  // namespace fts
