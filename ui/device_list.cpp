// nvidia-smi query and parser (see device_list.h).
#include "ui/device_list.h"

#include <QCoreApplication>
#include <QProcess>
#include <optional>

namespace fts {
namespace {

// "81920", "81920 MiB", "35 %" -> the number; "[N/A]", "[Not Supported]", "" -> -1; other text -> nullopt.
std::optional<qint64> numberField(QString field) {
    field = field.trimmed();
    if (field.isEmpty() || field.startsWith(QLatin1Char('[')) || field == QLatin1String("N/A")) return -1;
    for (const char* unit : {"MiB", "%"})
        if (field.endsWith(QLatin1String(unit))) field = field.chopped(int(qstrlen(unit))).trimmed();
    bool ok = false;
    const qint64 value = field.toLongLong(&ok);
    if (!ok || value < 0) return std::nullopt;
    return value;
}

}  // namespace

QStringList nvidiaSmiGpuArguments() {
    return {QStringLiteral("--query-gpu=index,name,memory.total,memory.used,utilization.gpu"),
            QStringLiteral("--format=csv,noheader,nounits")};
}

QString defaultNvidiaSmiProgram() {
    const QString env = qEnvironmentVariable("FTS_NVIDIA_SMI");
    return env.isEmpty() ? QStringLiteral("nvidia-smi") : env;
}

std::vector<GpuInfo> parseNvidiaSmiGpuCsv(const QByteArray& output, int* skippedLines) {
    std::vector<GpuInfo> gpus;
    int skipped = 0;
    for (const QByteArray& rawLine : output.split('\n')) {
        const QString line = QString::fromUtf8(rawLine).trimmed();  // also drops a CR
        if (line.isEmpty()) continue;
        const QStringList fields = line.split(QLatin1Char(','));
        bool indexOk = false;
        const int index = fields.value(0).trimmed().toInt(&indexOk);
        if (fields.size() < 5 || !indexOk || index < 0) {
            ++skipped;
            continue;
        }
        const qsizetype n = fields.size();
        const auto total = numberField(fields[n - 3]), used = numberField(fields[n - 2]),
                   util = numberField(fields[n - 1]);
        if (!total || !used || !util) {
            ++skipped;
            continue;
        }
        GpuInfo g;
        g.index = index;
        g.name = fields.mid(1, n - 4).join(QLatin1Char(',')).trimmed();
        g.memoryTotalMiB = *total;
        g.memoryUsedMiB = *used;
        g.utilizationPercent = int(*util);
        gpus.push_back(g);
    }
    if (skippedLines) *skippedLines = skipped;
    return gpus;
}

GpuQueryResult queryGpus(const QString& program, int timeoutMs) {
    GpuQueryResult result;
    QProcess process;
    process.setProgram(program);
    process.setArguments(nvidiaSmiGpuArguments());
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start();
    if (!process.waitForStarted(timeoutMs)) {
        result.message =
            QCoreApplication::translate("fts::DevicePanel", "No NVIDIA GPU found (%1 could not be started: %2).")
                .arg(program, process.errorString());
        return result;
    }
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(1000);
        result.message =
            QCoreApplication::translate("fts::DevicePanel", "No NVIDIA GPU found (%1 did not answer within %2 s).")
                .arg(program)
                .arg(timeoutMs / 1000.0);
        return result;
    }
    const QByteArray out = process.readAll();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        QString first = QString::fromUtf8(out).trimmed().section(QLatin1Char('\n'), 0, 0).trimmed();
        if (first.isEmpty())
            first = QCoreApplication::translate("fts::DevicePanel", "exit code %1").arg(process.exitCode());
        result.message =
            QCoreApplication::translate("fts::DevicePanel", "No NVIDIA GPU found (%1: %2).").arg(program, first);
        return result;
    }
    result.gpus = parseNvidiaSmiGpuCsv(out, &result.skippedLines);
    result.found = !result.gpus.empty();
    if (!result.found)
        result.message =
            QCoreApplication::translate("fts::DevicePanel", "No NVIDIA GPU found (%1 listed none).").arg(program);
    return result;
}

QStringList placementArguments(int nproc, const QList<int>& gpus) {
    if (!gpus.isEmpty()) {
        QStringList ids;
        for (int id : gpus) ids << QString::number(id);
        return {QStringLiteral("--include"), QStringLiteral("localhost:") + ids.join(QLatin1Char(','))};
    }
    if (nproc > 1) return {QStringLiteral("--nproc"), QString::number(nproc)};
    return {};
}

}  // namespace fts
