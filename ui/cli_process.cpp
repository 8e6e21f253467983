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

void onStderrLines(QProcess* process, QObject* context, QByteArray* partial, QByteArray* tail,
                   std::function<void(const QByteArray&)> onLine) {
    QObject::connect(process, &QProcess::readyReadStandardError, context,
                     [process, partial, tail, onLine = std::move(onLine)] {
                         const QByteArray chunk = process->readAllStandardError();
                         *tail = (*tail + chunk).right(4000);
                         *partial += chunk;
                         for (qsizetype end = partial->indexOf('\n'); end >= 0; end = partial->indexOf('\n')) {
                             onLine(partial->left(end));
                             partial->remove(0, end + 1);
                         }
                     });
}

}  // namespace fts
