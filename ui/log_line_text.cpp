// logLineText (see log_line_text.h): a table of the run-lifecycle messages the core writes, each a pattern and its
// catalogue text with the captured values in order.
#include "ui/log_line_text.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringList>

#include <vector>

namespace fts {

namespace {

struct LogPattern {
    QRegularExpression pattern;
    const char* text;  // QT_TRANSLATE_NOOP("fts::LogLineText", ...), %1.. the captures in order
};

const std::vector<LogPattern>& patterns() {
    static const std::vector<LogPattern> table = [] {
        const auto p = [](const char* re, const char* text) {
            return LogPattern{QRegularExpression(QString::fromLatin1(re)), text};
        };
        return std::vector<LogPattern>{
            p("^host (\\S+) \\((.*)\\): node started, pid (\\d+)$",
              QT_TRANSLATE_NOOP("fts::LogLineText", "host %1 (%2): node started, pid %3")),
            p("^worker rank (\\d+) of (\\d+) started on (\\S+) \\(pid (\\d+)\\)$",
              QT_TRANSLATE_NOOP("fts::LogLineText", "worker rank %1 of %2 started on %3 (pid %4)")),
            p("^rank (\\d+) model states, ZeRO stage (\\d+), (\\S+) parameters:$",
              QT_TRANSLATE_NOOP("fts::LogLineText", "rank %1 model states, ZeRO stage %2, %3 parameters:")),
            p("^training on (\\S+): (\\d+) parameters, (\\d+) train / (\\d+) eval sequences, steps (\\d+) -> (\\d+)$",
              QT_TRANSLATE_NOOP("fts::LogLineText",
                                "training on %1: %2 parameters, %3 train / %4 eval sequences, steps %5 → %6")),
            p("^checkpoint at step (\\d+): (.*)$", QT_TRANSLATE_NOOP("fts::LogLineText", "checkpoint at step %1: %2")),
            p("^first step ([0-9.]+) s after the start$",
              QT_TRANSLATE_NOOP("fts::LogLineText", "first step %1 s after the start")),
            p("^resumed from (.*) at step (\\d+)$",
              QT_TRANSLATE_NOOP("fts::LogLineText", "resumed from %1 at step %2")),
            p("^stop requested: saving a checkpoint at step (\\d+)$",
              QT_TRANSLATE_NOOP("fts::LogLineText", "stop requested: saving a checkpoint at step %1")),
            p("^stop requested before the ranks started: nothing to checkpoint$",
              QT_TRANSLATE_NOOP("fts::LogLineText", "stop requested before the ranks started: nothing to checkpoint")),
            p("^step (\\d+): fp16 gradients overflowed, step skipped; loss scale (\\S+) -> (\\S+)$",
              QT_TRANSLATE_NOOP("fts::LogLineText",
                                "step %1: fp16 gradients overflowed, step skipped; loss scale %2 → %3")),
            p("^rendezvous store on (\\S+)$", QT_TRANSLATE_NOOP("fts::LogLineText", "rendezvous store on %1")),
            // the model states table under its heading: its rows and column names
            p("^(\\s*)float32(\\s+)total$", QT_TRANSLATE_NOOP("fts::LogLineText", "%1float32%2total")),
            p("^(\\s*)parameters(\\s+.*)$", QT_TRANSLATE_NOOP("fts::LogLineText", "%1parameters%2")),
            p("^(\\s*)gradients(\\s+.*)$", QT_TRANSLATE_NOOP("fts::LogLineText", "%1gradients%2")),
            p("^(\\s*)optimizer(\\s+.*)$", QT_TRANSLATE_NOOP("fts::LogLineText", "%1optimizer%2")),
            p("^(\\s*)on device(\\s+.*)$", QT_TRANSLATE_NOOP("fts::LogLineText", "%1on device%2")),
        };
    }();
    return table;
}

// The level as fts wrote it (in English the line reads as the store holds it).
QString levelText(const QString& level) {
    if (level == QLatin1String("info")) return QCoreApplication::translate("fts::LogLineText", "info");
    if (level == QLatin1String("warn")) return QCoreApplication::translate("fts::LogLineText", "warn");
    if (level == QLatin1String("warning")) return QCoreApplication::translate("fts::LogLineText", "warning");
    if (level == QLatin1String("error")) return QCoreApplication::translate("fts::LogLineText", "error");
    return level;
}

QString oneLine(const QString& line) {
    for (const LogPattern& p : patterns()) {
        const QRegularExpressionMatch m = p.pattern.match(line);
        if (!m.hasMatch()) continue;
        QString text = QCoreApplication::translate("fts::LogLineText", p.text);
        for (int i = 1; i <= m.lastCapturedIndex(); ++i) text = text.arg(m.captured(i));
        return text;
    }
    return line;
}

}  // namespace

QString logMessageText(const QString& message) {
    if (!message.contains(QLatin1Char('\n'))) return oneLine(message);
    QStringList lines = message.split(QLatin1Char('\n'));
    for (QString& l : lines) l = oneLine(l);
    return lines.join(QLatin1Char('\n'));
}

QString logLineText(const QString& when, int rank, const QString& level, const QString& message) {
    const QString who = rank < 0 ? QCoreApplication::translate("fts::LogLineText", "supervisor")
                                 : QCoreApplication::translate("fts::LogLineText", "rank %1").arg(rank);
    return QStringLiteral("%1 %2 %3: %4").arg(when, who, levelText(level), logMessageText(message));
}

}  // namespace fts
