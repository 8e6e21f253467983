// The studio's panels that run the `fts` command line (doctor, hosts check, probe, chat) share one rule for a program
// that cannot start at all: one message, said once, and the panel's own clean-up.
#pragma once
#include <QProcess>
#include <QString>

#include <functional>

namespace fts {

// When `process` fails to start `program` (missing, not executable), calls `failed` once with "Cannot start
// <program>: <reason>" (translated). Crashes and non-zero exits are left to the process's finished signal.
void whenCliFailsToStart(QProcess* process, const QString& program, std::function<void(const QString& message)> failed);

}  // namespace fts
