// See cli_process.h.
#include "ui/cli_process.h"

#include <QCoreApplication>

namespace fts {

void whenCliFailsToStart(QProcess* process, const QString& program, std::function<void(const QString&)> failed) {
    QObject::connect(process, &QProcess::errorOccurred, process,
                     [process, program, failed = std::move(failed)](QProcess::ProcessError e) {
                         if (e != QProcess::FailedToStart) return;
                         failed(QCoreApplication::translate("fts::CliProcess", "Cannot start %1: %2")
                                    .arg(program, process->errorString()));
                     });
}

}  // namespace fts
