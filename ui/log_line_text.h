// A run's log line in the studio's language: the level ("info", "warn", "error") and the messages of a run's
// life (a node and its workers starting, the model states table, the data and steps, checkpoints, resume, stop, the
// first step) follow the catalogue; any other message is shown as fts wrote it. The store keeps the English text
// (`fts runs show` and the log files read the same), so this is presentation only.
#pragma once
#include <QString>

namespace fts {

// "HH:mm:ss WHO LEVEL: MESSAGE" of one line; rank < 0 is the supervisor. A message of several lines (the model
// states table) is translated line by line.
QString logLineText(const QString& when, int rank, const QString& level, const QString& message);
// The message alone, translated where it follows a known pattern.
QString logMessageText(const QString& message);

}  // namespace fts
