// The Chat page: talk to a model folder (a run's export, a checkpoint, a PEFT adapter, any HF folder), optionally
// side by side with a second one on the same prompts (e.g. the base and the fine-tune). Each model runs in its own
// `fts chat --json` process (chat_engine.h); replies stream in; Stop ends them at once; the time from Send to the
// first token (loading the model included, on the first message) and the speed of each reply are shown under its
// conversation.
#pragma once
#include <QElapsedTimer>
#include <QWidget>

#include <nlohmann/json.hpp>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace fts {

class ChatEngine;
struct ChatReplyStats;

class ChatPage : public QWidget {
    Q_OBJECT
public:
    explicit ChatPage(QString cliPath, QWidget* parent = nullptr);
    ~ChatPage() override;

    void setModelFolder(const QString& folder);    // the left (or only) model
    void setCompareFolder(const QString& folder);  // the right model; empty: no comparison
    void send(const QString& text);                // as the Send button with this text

    // For tests and the screenshots.
    QTextBrowser* conversation(int side) const { return m_view[side]; }
    QLabel* statusLabel(int side) const { return m_status[side]; }
    QPushButton* sendButton() const { return m_send; }
    QPushButton* stopButton() const { return m_stop; }
    QPlainTextEdit* input() const { return m_input; }
    QString replyText(int side) const;  // the last reply of that side, as generated
    bool isBusy() const;
    // "Complete the text alone": offered for a model without a chat template; each message is then continued on its
    // own, without the conversation before it.
    QCheckBox* completeTextBox() const { return m_completeText; }
    // The status line after a reply: tokens, speed and why it ended (a reply the model ended at once says so, and
    // for a model without a chat template points at "Complete the text alone").
    static QString replyStatusLine(const ChatReplyStats& s, double firstPieceS, bool replyEmpty, bool hasTemplate);

signals:
    void replyFinished(int side, const QString& finishReason);

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Turn {
        QString role, text;
    };
    void retranslate();
    void browse(int side);
    void clearConversation();
    void submit();
    void dispatch(int side);
    nlohmann::json requestFor(int side) const;
    void appendTurn(int side, const QString& who, const QString& text);
    void updateButtons();
    bool comparing() const;

    QString m_cli;
    ChatEngine* m_engine[2] = {};
    std::vector<Turn> m_turns[2];  // the conversation each model has seen (its own replies)
    bool m_pending[2] = {false, false};
    QElapsedTimer m_sentAt[2];          // from the click on Send: what the user waits (the first load included)
    double m_firstPiece[2] = {-1, -1};  // seconds from the click to the first piece of the reply
    QLineEdit* m_model[2] = {};
    QPushButton* m_browse[2] = {};
    QCheckBox* m_compare = nullptr;
    QLabel* m_modelLabel = nullptr;
    QLabel* m_systemLabel = nullptr;
    QLineEdit* m_system = nullptr;
    QLabel* m_maxLabel = nullptr;
    QSpinBox* m_maxNewTokens = nullptr;
    QCheckBox* m_sample = nullptr;
    QCheckBox* m_completeText = nullptr;
    QLabel* m_temperatureLabel = nullptr;
    QDoubleSpinBox* m_temperature = nullptr;
    QLabel* m_topPLabel = nullptr;
    QDoubleSpinBox* m_topP = nullptr;
    QTextBrowser* m_view[2] = {};
    QLabel* m_status[2] = {};
    QString m_idleNote[2];  // the note a status line shows before its model loads, as last said
    QPlainTextEdit* m_input = nullptr;
    QPushButton* m_send = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_clear = nullptr;
};

}  // namespace fts
