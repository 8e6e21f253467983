// The Chat page; see chat_page.h.
#include "ui/chat_page.h"
#include "ui/file_dialogs.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "ui/chat_engine.h"

namespace fts {

ChatPage::ChatPage(QString cliPath, QWidget* parent) : QWidget(parent), m_cli(std::move(cliPath)) {
    auto* grid = new QGridLayout;
    m_modelLabel = new QLabel(this);
    m_compare = new QCheckBox(this);
    m_compare->setObjectName(QStringLiteral("chatCompare"));
    for (int side = 0; side < 2; ++side) {
        m_model[side] = new QLineEdit(this);
        m_model[side]->setObjectName(side == 0 ? QStringLiteral("chatModel") : QStringLiteral("chatCompareModel"));
        m_browse[side] = new QPushButton(this);
        connect(m_browse[side], &QPushButton::clicked, this, [this, side] { browse(side); });
        connect(m_model[side], &QLineEdit::textChanged, this, [this] { updateButtons(); });
    }
    grid->addWidget(m_modelLabel, 0, 0);
    grid->addWidget(m_model[0], 0, 1);
    grid->addWidget(m_browse[0], 0, 2);
    grid->addWidget(m_compare, 1, 0);
    grid->addWidget(m_model[1], 1, 1);
    grid->addWidget(m_browse[1], 1, 2);
    m_systemLabel = new QLabel(this);
    m_system = new QLineEdit(this);
    m_system->setObjectName(QStringLiteral("chatSystem"));
    grid->addWidget(m_systemLabel, 2, 0);
    grid->addWidget(m_system, 2, 1, 1, 2);
    grid->setColumnStretch(1, 1);

    auto* settings = new QHBoxLayout;
    m_maxLabel = new QLabel(this);
    m_maxNewTokens = new QSpinBox(this);
    m_maxNewTokens->setRange(1, 8192);
    m_maxNewTokens->setValue(256);
    m_sample = new QCheckBox(this);
    m_completeText = new QCheckBox(this);
    m_completeText->setObjectName(QStringLiteral("chatCompleteText"));
    m_completeText->hide();  // shown once a model without a chat template is loaded
    m_temperatureLabel = new QLabel(this);
    m_temperature = new QDoubleSpinBox(this);
    m_temperature->setRange(0.01, 5.0);
    m_temperature->setSingleStep(0.05);
    m_temperature->setValue(0.7);
    m_topPLabel = new QLabel(this);
    m_topP = new QDoubleSpinBox(this);
    m_topP->setRange(0.01, 1.0);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(0.9);
    for (QWidget* w : std::initializer_list<QWidget*>{m_maxNewTokens, m_temperature, m_topP})
        w->setFocusPolicy(Qt::StrongFocus);  // a wheel turn over an unfocused box does not change it
    for (QWidget* w : std::initializer_list<QWidget*>{m_maxLabel, m_maxNewTokens, m_sample, m_temperatureLabel,
                                                      m_temperature, m_topPLabel, m_topP, m_completeText})
        settings->addWidget(w);
    settings->addStretch(1);
    connect(m_sample, &QCheckBox::toggled, this, [this] { updateButtons(); });

    auto* split = new QSplitter(Qt::Horizontal, this);
    for (int side = 0; side < 2; ++side) {
        auto* column = new QWidget(split);
        auto* v = new QVBoxLayout(column);
        v->setContentsMargins(0, 0, 0, 0);
        m_view[side] = new QTextBrowser(column);
        m_view[side]->setObjectName(side == 0 ? QStringLiteral("chatView") : QStringLiteral("chatCompareView"));
        m_view[side]->setOpenLinks(false);
        m_status[side] = new QLabel(column);
        m_status[side]->setWordWrap(true);
        m_status[side]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->addWidget(m_view[side], 1);
        v->addWidget(m_status[side]);
        split->addWidget(column);
        m_engine[side] = new ChatEngine(m_cli, this);
        ChatEngine* e = m_engine[side];
        connect(e, &ChatEngine::ready, this, [this, side](const QString& description) {
            m_status[side]->setText(description);
            if (side == 0) m_completeText->setVisible(!m_engine[0]->hasChatTemplate());
            if (m_pending[side]) dispatch(side);
            updateButtons();
        });
        connect(e, &ChatEngine::piece, this, [this, side](const QString& text) {
            if (m_firstPiece[side] < 0) m_firstPiece[side] = double(m_sentAt[side].nsecsElapsed()) / 1e9;
            m_turns[side].back().text += text;
            QTextCursor c(m_view[side]->document());
            c.movePosition(QTextCursor::End);
            c.insertText(text, QTextCharFormat());
            m_view[side]->verticalScrollBar()->setValue(m_view[side]->verticalScrollBar()->maximum());
        });
        connect(e, &ChatEngine::finished, this, [this, side](const ChatReplyStats& s) {
            const bool empty = m_turns[side].empty() || m_turns[side].back().text.trimmed().isEmpty();
            const QString line = replyStatusLine(s, m_firstPiece[side], empty, m_engine[side]->hasChatTemplate());
            m_status[side]->setText(m_engine[side]->description() + QStringLiteral("\n") + line);
            updateButtons();
            emit replyFinished(side, s.finishReason);
        });
        connect(e, &ChatEngine::failed, this, [this, side](const QString& message) {
            m_pending[side] = false;
            m_status[side]->setText(tr("Error: %1").arg(message));
            if (!m_turns[side].empty() && m_turns[side].back().role == QLatin1String("assistant") &&
                m_turns[side].back().text.isEmpty()) {
                m_turns[side].pop_back();  // the reply that never came, and the message it answered
                if (!m_turns[side].empty()) m_turns[side].pop_back();
            }
            updateButtons();
            emit replyFinished(side, QStringLiteral("error"));
        });
    }
    split->widget(1)->setVisible(false);
    connect(m_compare, &QCheckBox::toggled, this, [this, split](bool on) {
        split->widget(1)->setVisible(on);
        updateButtons();
    });

    m_input = new QPlainTextEdit(this);
    m_input->setObjectName(QStringLiteral("chatInput"));
    m_input->setMaximumHeight(90);
    m_send = new QPushButton(this);
    m_send->setObjectName(QStringLiteral("chatSend"));
    m_send->setDefault(true);
    m_stop = new QPushButton(this);
    m_stop->setObjectName(QStringLiteral("chatStop"));
    m_clear = new QPushButton(this);
    connect(m_send, &QPushButton::clicked, this, [this] { submit(); });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        for (ChatEngine* e : m_engine) e->stop();
    });
    connect(m_clear, &QPushButton::clicked, this, [this] { clearConversation(); });
    auto* sendShortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_input);
    connect(sendShortcut, &QShortcut::activated, this, [this] { submit(); });
    connect(m_input, &QPlainTextEdit::textChanged, this, [this] { updateButtons(); });
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(m_send);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_clear);
    buttons->addStretch(1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_input, 1);
    bottom->addLayout(buttons);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(grid);
    layout->addLayout(settings);
    layout->addWidget(split, 1);
    layout->addLayout(bottom);
    retranslate();
    updateButtons();
}

ChatPage::~ChatPage() {
    for (ChatEngine* e : m_engine) e->shutdown();
}

void ChatPage::retranslate() {
    m_modelLabel->setText(tr("Model"));
    m_compare->setText(tr("Compare with"));
    m_compare->setToolTip(tr("Send every message to a second model too, e.g. the base model next to the fine-tune"));
    for (int side = 0; side < 2; ++side) {
        m_browse[side]->setText(tr("Browse…"));
        m_model[side]->setPlaceholderText(
            tr("A model folder: a run's export (output_dir/final), a checkpoint, a LoRA adapter or a Hugging Face "
               "download"));
    }
    m_systemLabel->setText(tr("System prompt"));
    m_system->setPlaceholderText(tr("Optional: how the assistant should behave"));
    m_maxLabel->setText(tr("Max new tokens"));
    m_completeText->setText(tr("Complete the text alone"));
    m_completeText->setToolTip(
        tr("This model has no chat template: each message is continued on its own, as fts "
           "generate does, without the conversation before it (a base or LM-trained model "
           "often ends a plain-text conversation at once)."));
    m_sample->setText(tr("Sample"));
    m_sample->setToolTip(
        tr("Off: greedy decoding (the same reply every time). On: sampling with the temperature "
           "and top-p beside it"));
    m_temperatureLabel->setText(tr("Temperature"));
    m_topPLabel->setText(tr("Top-p"));
    m_input->setPlaceholderText(tr("Type a message; Ctrl+Enter sends it"));
    m_send->setText(tr("Send"));
    m_stop->setText(tr("Stop"));
    m_clear->setText(tr("Clear"));
    m_clear->setToolTip(tr("Start a new conversation (the models stay loaded)"));
    for (int side = 0; side < 2; ++side)  // the idle note, in the new language when the language changes
        if (!m_engine[side]->isReady() &&
            (m_status[side]->text().isEmpty() || m_status[side]->text() == m_idleNote[side])) {
            m_idleNote[side] = tr("The model loads when you send the first message.");
            m_status[side]->setText(m_idleNote[side]);
        }
}

void ChatPage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void ChatPage::setModelFolder(const QString& folder) { m_model[0]->setText(folder); }

void ChatPage::setCompareFolder(const QString& folder) {
    m_model[1]->setText(folder);
    m_compare->setChecked(!folder.isEmpty());
}

bool ChatPage::comparing() const { return m_compare->isChecked() && !m_model[1]->text().trimmed().isEmpty(); }

bool ChatPage::isBusy() const { return m_engine[0]->isBusy() || m_engine[1]->isBusy() || m_pending[0] || m_pending[1]; }

QString ChatPage::replyText(int side) const {
    for (auto it = m_turns[side].rbegin(); it != m_turns[side].rend(); ++it)
        if (it->role == QLatin1String("assistant")) return it->text;
    return {};
}

void ChatPage::updateButtons() {
    const bool busy = isBusy();
    m_send->setEnabled(!busy && !m_model[0]->text().trimmed().isEmpty() && !m_input->toPlainText().trimmed().isEmpty());
    m_stop->setEnabled(busy);
    m_clear->setEnabled(!busy);
    m_temperature->setEnabled(m_sample->isChecked());
    m_topP->setEnabled(m_sample->isChecked());
    m_model[1]->setEnabled(m_compare->isChecked());
    m_browse[1]->setEnabled(m_compare->isChecked());
}

void ChatPage::browse(int side) {
    const QString dir = existingDirectory(this, tr("Model folder"), m_model[side]->text());
    if (!dir.isEmpty()) m_model[side]->setText(dir);
}

void ChatPage::clearConversation() {
    for (int side = 0; side < 2; ++side) {
        m_turns[side].clear();
        m_view[side]->clear();
    }
}

void ChatPage::send(const QString& text) {
    m_input->setPlainText(text);
    submit();
}

void ChatPage::submit() {
    const QString text = m_input->toPlainText().trimmed();
    if (text.isEmpty() || isBusy() || m_model[0]->text().trimmed().isEmpty()) return;
    m_input->clear();
    for (int side = 0; side < (comparing() ? 2 : 1); ++side) {
        const QString folder = m_model[side]->text().trimmed();
        m_turns[side].push_back({QStringLiteral("user"), text});
        appendTurn(side, tr("You"), text);
        m_turns[side].push_back({QStringLiteral("assistant"), QString()});
        appendTurn(side, tr("Model"), QString());
        m_pending[side] = true;
        m_sentAt[side].start();
        m_firstPiece[side] = -1;
        // A new folder (or a process that ended) loads the model first; the message goes when it is ready.
        if (!m_engine[side]->isReady() || m_engine[side]->modelFolder() != folder) {
            m_status[side]->setText(tr("Loading %1 …").arg(folder));
            m_engine[side]->start(folder);
        } else {
            dispatch(side);
        }
    }
    updateButtons();
}

QString ChatPage::replyStatusLine(const ChatReplyStats& s, double firstPieceS, bool replyEmpty, bool hasTemplate) {
    QString line = tr("%n new token(s)", nullptr, s.newTokens);
    if (firstPieceS >= 0) line += tr(" · first token after %1 s").arg(firstPieceS, 0, 'f', 2);
    if (s.seconds > 0 && s.newTokens > 0) line += tr(" · %1 tokens/s").arg(s.newTokens / s.seconds, 0, 'f', 1);
    if (s.finishReason == QLatin1String("cancelled")) line += tr(" · stopped");
    if (s.finishReason == QLatin1String("context")) line += tr(" · the model's context is full: Clear");
    if (replyEmpty && (s.finishReason == QLatin1String("eos") || s.finishReason == QLatin1String("stop_string"))) {
        line += tr(" · the model ended its reply at once (its end-of-text came first)");
        if (!hasTemplate) line += tr(": with no chat template, try \"Complete the text alone\"");
    }
    return line;
}

nlohmann::json ChatPage::requestFor(int side) const {
    nlohmann::json messages = nlohmann::json::array();
    // Completing the text alone (a model without a chat template): only the message just sent, no system prompt.
    const bool alone = m_completeText->isChecked() && !m_engine[side]->hasChatTemplate();
    const QString system = m_system->text().trimmed();
    if (!system.isEmpty() && !alone) messages.push_back({{"role", "system"}, {"content", system.toStdString()}});
    for (size_t i = alone && m_turns[side].size() >= 2 ? m_turns[side].size() - 2 : 0; i + 1 < m_turns[side].size();
         ++i)  // the last turn is the reply being written
        messages.push_back(
            {{"role", m_turns[side][i].role.toStdString()}, {"content", m_turns[side][i].text.toStdString()}});
    nlohmann::json req{
        {"messages", messages}, {"max_new_tokens", m_maxNewTokens->value()}, {"do_sample", m_sample->isChecked()}};
    if (m_sample->isChecked()) {
        req["temperature"] = m_temperature->value();
        req["top_p"] = m_topP->value();
    }
    return req;
}

void ChatPage::dispatch(int side) {
    m_pending[side] = false;
    m_status[side]->setText(m_engine[side]->description() + QStringLiteral("\n") + tr("Generating…"));
    m_engine[side]->send(requestFor(side));
    updateButtons();
}

void ChatPage::appendTurn(int side, const QString& who, const QString& text) {
    QTextCursor c(m_view[side]->document());
    c.movePosition(QTextCursor::End);
    if (!m_view[side]->document()->isEmpty()) c.insertBlock();
    QTextCharFormat bold;
    bold.setFontWeight(QFont::Bold);
    c.insertText(who + QStringLiteral("\n"), bold);
    c.insertText(text, QTextCharFormat());
}

}  // namespace fts
