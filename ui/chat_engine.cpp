// `fts chat --json` in a QProcess; see chat_engine.h.
#include "ui/chat_engine.h"
#include "ui/cli_process.h"

#include <QCoreApplication>
#include <QProcess>

#include <signal.h>

#include "core/util/json_parse.h"

namespace fts {

namespace {

// The "ready" line's model, in the studio's language: "GPT2LMHeadModel, 0.9M parameters, float32 on cpu".
QString describeModel(const nlohmann::json& ready) {
    if (!ready.contains("architecture") || !ready["parameters"].is_number())  // an fts older than the studio
        return QString::fromStdString(ready.value("model", ""));
    const double n = ready["parameters"].get<double>();
    const QString count = n >= 1e9   ? QString::number(n / 1e9, 'f', 1) + QLatin1Char('B')
                          : n >= 1e6 ? QString::number(n / 1e6, 'f', 1) + QLatin1Char('M')
                                     : QString::number(n / 1e3, 'f', 1) + QLatin1Char('K');
    QString model = QString::fromStdString(ready.value("architecture", ""));
    const std::string adapter = ready.value("adapter", "");
    if (!adapter.empty())
        model = QCoreApplication::translate("fts::ChatEngine", "%1 with the LoRA adapter %2")
                    .arg(model, QString::fromStdString(adapter));
    return QCoreApplication::translate("fts::ChatEngine", "%1, %2 parameters, %3 on %4")
        .arg(model, count, QString::fromStdString(ready.value("dtype", "")),
             QString::fromStdString(ready.value("device", "")));
}

}  // namespace

ChatEngine::ChatEngine(QString cliPath, QObject* parent) : QObject(parent), m_cli(std::move(cliPath)) {}

ChatEngine::~ChatEngine() { shutdown(); }

void ChatEngine::shutdown() {
    if (!m_process) return;
    m_shuttingDown = true;
    m_process->disconnect(this);
    m_process->closeWriteChannel();  // end of input: fts chat ends
    if (!m_process->waitForFinished(2000)) {
        m_process->kill();
        m_process->waitForFinished(2000);
    }
    m_process->deleteLater();
    m_process = nullptr;
    m_ready = m_busy = false;
    m_shuttingDown = false;
}

void ChatEngine::start(const QString& modelFolder, const QStringList& extraArgs) {
    shutdown();
    m_folder = modelFolder;
    m_description.clear();
    m_buffer.clear();
    m_stderr.clear();
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] {
        m_buffer += m_process->readAllStandardOutput();
        for (int nl; (nl = m_buffer.indexOf('\n')) >= 0;) {
            const QByteArray line = m_buffer.left(nl);
            m_buffer.remove(0, nl + 1);
            onLine(line);
        }
    });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        m_stderr += QString::fromUtf8(m_process->readAllStandardError());
        if (m_stderr.size() > 8000) m_stderr = m_stderr.right(8000);
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
        if (m_shuttingDown) return;
        const bool wasReady = m_ready;
        m_ready = m_busy = false;
        // fts prints "error: ..." as its last line when it cannot load the model.
        QString why = m_stderr.trimmed().section('\n', -1);
        if (why.isEmpty()) why = tr("fts chat ended (exit code %1)").arg(code);
        emit failed(wasReady ? tr("The model process ended: %1").arg(why) : why);
    });
    whenCliFailsToStart(m_process, m_cli, [this](const QString& message) { emit failed(message); });
    m_process->start(m_cli, QStringList{"chat", "--json", "--model", modelFolder} + extraArgs);
}

void ChatEngine::send(const nlohmann::json& request) {
    if (!m_process || !m_ready || m_busy) return;
    m_busy = true;
    m_clock.start();
    m_process->write(QByteArray::fromStdString(request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
                     '\n');
}

void ChatEngine::stop() {
    if (m_process && m_busy && m_process->processId() > 0) ::kill(pid_t(m_process->processId()), SIGINT);
}

void ChatEngine::onLine(const QByteArray& line) {
    const nlohmann::json j = parseJsonOrDiscarded(line.toStdString());
    if (!j.is_object()) return;
    if (j.contains("ready")) {
        m_ready = true;
        m_description = describeModel(j);
        m_hasTemplate = !j.contains("note");
        if (j.contains("note"))  // fts chose the "none" template: say it in the studio's language
            m_description += QStringLiteral("\n") +
                             tr("This model has no chat template: the conversation goes in as plain text and the "
                                "model continues it.");
        emit ready(m_description);
    } else if (j.contains("text") && j["text"].is_string()) {
        emit piece(QString::fromStdString(j["text"].get<std::string>()));
    } else if (j.contains("done")) {
        m_busy = false;
        ChatReplyStats s;
        s.finishReason = QString::fromStdString(j.value("finish_reason", ""));
        s.newTokens = j.value("new_tokens", 0);
        s.seconds = double(m_clock.nsecsElapsed()) / 1e9;
        emit finished(s);
    } else if (j.contains("error")) {
        m_busy = false;
        emit failed(QString::fromStdString(j.value("error", "")));
    }
}

}  // namespace fts
