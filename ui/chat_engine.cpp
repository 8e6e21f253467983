// `fts chat --json` in a QProcess; see chat_engine.h.
#include "ui/chat_engine.h"

#include <QProcess>

#include <signal.h>

#include "core/util/json_parse.h"

namespace fts {

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
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) emit failed(tr("Cannot start %1: %2").arg(m_cli, m_process->errorString()));
    });
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
        m_description = QString::fromStdString(j.value("model", ""));
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
