// The studio's panels that run the `fts` command line (doctor, hosts check, probe, export, chat) share one rule for a
// program that cannot start at all: one message, said once, and the panel's own clean-up; and the reading of its
// stderr line by line.
#pragma once
#include <QProcess>
#include <QByteArray>
#include <QString>

#include <functional>

namespace fts {

// When `process` fails to start `program` (missing, not executable), calls `failed` once with "Cannot start
// <program>: <reason>" (translated). Crashes and non-zero exits are left to the process's finished signal.
void whenCliFailsToStart(QProcess* process, const QString& program, std::function<void(const QString& message)> failed);

// Calls onLine with each complete line of the process's stderr as it arrives (without the newline); `tail` keeps the
// last 4000 bytes for messages, `partial` the unfinished line (the owner hands it to onLine at the end if it wants).
void onStderrLines(QProcess* process, QObject* context, QByteArray* partial, QByteArray* tail,
                   std::function<void(const QByteArray& line)> onLine);

}  // namespace fts
