// Run launching helpers (see run_launcher.h).
#include "ui/run_launcher.h"

#include <sys/types.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSaveFile>
#include <QStandardPaths>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/store/run_store.h"
#include "core/util/json_parse.h"

#ifndef FTS_RESOURCES_DIR
#define FTS_RESOURCES_DIR ""
#endif

namespace fts {
namespace {

bool setError(QString* error, const QString& message) {
    if (error) *error = message;
    return false;
}

QString timestamp() { return QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")); }

// A path in `dir` named <stem>.<time>.json that does not exist yet.
QString freshConfigPath(const QDir& dir, const QString& stem) {
    const QString base = stem + QLatin1Char('.') + timestamp();
    QString candidate = dir.absoluteFilePath(base + QStringLiteral(".json"));
    for (int k = 2; QFileInfo::exists(candidate); ++k)
        candidate = dir.absoluteFilePath(QStringLiteral("%1-%2.json").arg(base).arg(k));
    return candidate;
}

bool writeText(const QString& path, const QString& text, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return setError(
            error,
            QCoreApplication::translate("fts::RunLauncher", "Cannot write %1: %2").arg(path, file.errorString()));
    file.write(text.toUtf8());
    if (!file.commit())
        return setError(
            error,
            QCoreApplication::translate("fts::RunLauncher", "Cannot write %1: %2").arg(path, file.errorString()));
    return true;
}

}  // namespace

QString defaultResourcesDir() {
    const QString env = qEnvironmentVariable("FTS_RESOURCES");
    if (!env.isEmpty()) return QDir(env).absolutePath();
    const QString installed = QDir(QCoreApplication::applicationDirPath())
                                  .absoluteFilePath(QStringLiteral("../share/finetune-studio/resources"));
    if (QFileInfo::exists(installed + QStringLiteral("/quickstart"))) return QDir::cleanPath(installed);
    return QDir::cleanPath(QStringLiteral(FTS_RESOURCES_DIR));
}

QString quickStartConfigPath(const QString& resourcesDir) {
    return QDir(resourcesDir).absoluteFilePath(QStringLiteral("quickstart/quickstart.json"));
}

QString defaultCliPath() {
    const QString env = qEnvironmentVariable("FTS_CLI");
    if (!env.isEmpty()) return env;
    return QDir(QCoreApplication::applicationDirPath()).absoluteFilePath(QStringLiteral(FTS_CLI_NAME));
}

QString defaultStorePath() {
    const QString env = qEnvironmentVariable("FTS_STORE");
    if (!env.isEmpty()) return env;
    return QString::fromStdString(RunStore::defaultPath().string());
}

QString defaultDataDir() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .absoluteFilePath(QStringLiteral("finetune-studio"));
}

QStringList configPathKeys() {
    return {QStringLiteral("model.path"), QStringLiteral("model.tokenizer"), QStringLiteral("data.train"),
            QStringLiteral("data.eval"), QStringLiteral("training.output_dir")};
}

std::optional<QString> absolutizeConfigPaths(const QString& text, const QString& baseDir, QString* error) {
    nlohmann::json doc = parseJsonOrDiscarded(text.toStdString());
    if (doc.is_discarded() || !doc.is_object()) {
        setError(error, QCoreApplication::translate("fts::RunLauncher", "The config is not a JSON object."));
        return std::nullopt;
    }
    const QDir base(baseDir);
    for (const QString& key : configPathKeys()) {
        const QStringList parts = key.split(QLatin1Char('.'));
        nlohmann::json* node = &doc;
        for (const QString& part : parts) {
            if (!node->is_object() || !node->contains(part.toStdString())) {
                node = nullptr;
                break;
            }
            node = &(*node)[part.toStdString()];
        }
        if (!node || !node->is_string()) continue;
        const QString value = QString::fromStdString(node->get<std::string>());
        if (value.isEmpty() || QDir::isAbsolutePath(value) || value == QLatin1String("~") ||
            value.startsWith(QLatin1String("~/")))
            continue;
        const QString absolute = QDir::cleanPath(base.absoluteFilePath(value));
        if (key == QLatin1String("model.path") && !QFileInfo::exists(absolute))
            continue;  // not a folder next to the config: a model id, kept as written
        *node = absolute.toStdString();
    }
    return QString::fromStdString(doc.dump(2)) + QLatin1Char('\n');
}

std::optional<QString> prepareLaunchConfig(const LaunchConfigRequest& request, QString* error) {
    const QFileInfo origin(request.originPath);
    if (!request.originPath.isEmpty() && !request.modified && origin.isFile()) return origin.absoluteFilePath();

    const QString stem = !request.originPath.isEmpty()
                             ? origin.completeBaseName()
                             : (request.stem.isEmpty() ? QStringLiteral("config") : request.stem);
    // Never next to the origin: that may be the source tree or a read-only install folder.
    const auto relocated = absolutizeConfigPaths(request.text, request.baseDir, error);
    if (!relocated) return std::nullopt;
    const QDir configs(QDir(request.dataDir).absoluteFilePath(QStringLiteral("configs")));
    if (!configs.mkpath(QStringLiteral("."))) {
        setError(
            error,
            QCoreApplication::translate("fts::RunLauncher", "Cannot create the folder %1").arg(configs.absolutePath()));
        return std::nullopt;
    }
    const QString path = freshConfigPath(configs, stem);
    if (!writeText(path, *relocated, error)) return std::nullopt;
    return path;
}

std::optional<StartedProcess> startTrainDetached(const TrainLaunch& launch, QString* error) {
    const QFileInfo cli(launch.cliPath);
    if (!cli.isFile() || !cli.isExecutable()) {
        setError(error, QCoreApplication::translate(
                            "fts::RunLauncher", "The command-line tool was not found at %1 (set FTS_CLI to its path).")
                            .arg(launch.cliPath));
        return std::nullopt;
    }
    if (!launch.logPath.isEmpty()) QDir().mkpath(QFileInfo(launch.logPath).absolutePath());
    QProcess process;
    process.setProgram(cli.absoluteFilePath());
    QStringList args{QStringLiteral("train"), launch.configPath, QStringLiteral("--store"), launch.storePath};
    args << launch.placement;
    if (launch.resume) args << QStringLiteral("--resume");
    if (launch.force) args << QStringLiteral("--force");
    process.setArguments(args);
    process.setWorkingDirectory(QFileInfo(launch.configPath).absolutePath());
    // The GPU ids are nvidia-smi's (PCI bus order); make CUDA count them the same way (its default order is
    // fastest first, which differs on machines with mixed GPUs). A value the user set wins.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!env.contains(QStringLiteral("CUDA_DEVICE_ORDER")))
        env.insert(QStringLiteral("CUDA_DEVICE_ORDER"), QStringLiteral("PCI_BUS_ID"));
    process.setProcessEnvironment(env);
    if (!launch.logPath.isEmpty()) {
        process.setStandardOutputFile(launch.logPath, QIODevice::Append);
        process.setStandardErrorFile(launch.logPath, QIODevice::Append);
    }
    qint64 pid = 0;
    if (!process.startDetached(&pid)) {
        setError(error, QCoreApplication::translate("fts::RunLauncher", "Cannot start %1: %2")
                            .arg(launch.cliPath, process.errorString()));
        return std::nullopt;
    }
    return StartedProcess{pid, launch.logPath};
}

}  // namespace fts
