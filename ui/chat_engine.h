// ChatEngine: one model behind `fts chat --json` in a child process (generation never runs in the studio's
// process or its GUI thread). The model loads once; each send() writes a request line and the reply streams back
// as pieces; stop() sends SIGINT, which ends the reply in progress (the process stays for the next turn).
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

class QProcess;

namespace fts {

struct ChatReplyStats {
    QString finishReason;  // eos, stop_string, length, context, cancelled
    int newTokens = 0;
    double seconds = 0;  // from send() to the end
};

class ChatEngine : public QObject {
    Q_OBJECT
public:
    ChatEngine(QString cliPath, QObject* parent = nullptr);
    ~ChatEngine() override;

    // Starts `fts chat --json --model FOLDER` (stopping a previous process); ready() or failed() follows.
    void start(const QString& modelFolder, const QStringList& extraArgs = {});
    bool isReady() const { return m_ready; }
    bool isBusy() const { return m_busy; }
    QString modelFolder() const { return m_folder; }
    QString description() const { return m_description; }
    // The model has a chat template (fts chose one); false when the conversation goes in as plain text.
    bool hasChatTemplate() const { return m_hasTemplate; }
    // A request: {"messages": [...], sampling fields}. Only when ready and not busy.
    void send(const nlohmann::json& request);
    void stop();  // ends the reply in progress (SIGINT)
    void shutdown();

signals:
    void ready(const QString& description);
    void piece(const QString& text);
    void finished(const fts::ChatReplyStats& stats);
    void failed(const QString& message);  // the model could not be loaded, a request was refused, or fts died

private:
    void onLine(const QByteArray& line);
    bool m_hasTemplate = true;
    QString m_cli;
    QString m_folder;
    QString m_description;
    QProcess* m_process = nullptr;
    QByteArray m_buffer;
    QString m_stderr;
    bool m_ready = false, m_busy = false, m_shuttingDown = false;
    QElapsedTimer m_clock;
};

}  // namespace fts
