// The local GPUs as nvidia-smi reports them (index, name, memory total/used, utilisation): the argv of the
// query, a tolerant parser of its CSV, and a blocking query meant for a worker thread. Invariant: a line that
// does not parse is skipped (and counted), never guessed at; an unknown value ("[N/A]") is -1.
#pragma once
#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

namespace fts {

struct GpuInfo {
    int index = -1;  // nvidia-smi's index (what --include localhost:i names)
    QString name;
    qint64 memoryTotalMiB = -1;  // -1: not reported
    qint64 memoryUsedMiB = -1;
    int utilizationPercent = -1;
};

struct GpuQueryResult {
    bool found = false;  // nvidia-smi ran, exited 0 and listed at least one GPU
    QString message;     // why none were found (empty when found)
    std::vector<GpuInfo> gpus;
    int skippedLines = 0;  // lines that did not parse
};

// nvidia-smi --query-gpu=index,name,memory.total,memory.used,utilization.gpu --format=csv,noheader,nounits
QStringList nvidiaSmiGpuArguments();
// The program to run: $FTS_NVIDIA_SMI when set (tests, unusual installs), else "nvidia-smi" from PATH.
QString defaultNvidiaSmiProgram();
// Parses that CSV: one GPU per line "index, name, total, used, util". Accepts CRLF, blank lines, units
// ("81920 MiB", "35 %", as with --format=csv,noheader), "[N/A]"/"[Not Supported]" values and commas inside
// the name (the last three fields are the numbers). Warning lines and malformed lines are skipped.
std::vector<GpuInfo> parseNvidiaSmiGpuCsv(const QByteArray& output, int* skippedLines = nullptr);
// Runs the query (blocking, at most timeoutMs) and parses it. Never throws; "no GPU" states carry a message:
// the program is missing, it failed (its first output line, e.g. the driver message), or it listed nothing.
GpuQueryResult queryGpus(const QString& program, int timeoutMs = 5000);
// The launch options for a selection: --include localhost:i,j for GPUs, else --nproc N when N > 1.
QStringList placementArguments(int nproc, const QList<int>& gpus);

}  // namespace fts
