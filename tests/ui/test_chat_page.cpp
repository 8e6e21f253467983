// The Chat page through the real `fts chat --json` (offscreen): a reply streams into the conversation and equals
// `fts generate --chat` on the same model; the conversation is kept across turns; two models side by side; Stop ends
// a long reply within 0.5 s and the GUI stays responsive meanwhile; a folder that is not a model says why.
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QCheckBox>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "ui/app_translations.h"
#include "ui/chat_engine.h"
#include "ui/chat_page.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

const QString kData = QString::fromUtf8(FTS_TEST_DATA_DIR);

bool makeModel(const QString& out, int positions, int seed) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON),
            {kData + "/generate/make_chat_model.py", out, QString::number(positions), QString::number(seed)});
    return p.waitForFinished(300000) && p.exitCode() == 0;
}

// `fts generate --json` on a conversation: the reply text.
QString generateReply(const QString& model, const nlohmann::json& messages, int maxNewTokens, const QString& dir) {
    const QString file = dir + "/conversation.jsonl";
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly)) return "cannot write";
    f.write(QByteArray::fromStdString(nlohmann::json{{"messages", messages}}.dump()) + "\n");
    f.close();
    QProcess p;
    p.start(QString::fromUtf8(FTS_CLI_PATH), {"generate", "--model", model, "--prompts", file, "--max_new_tokens",
                                              QString::number(maxNewTokens), "--json"});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) return "generate failed: " + p.readAllStandardError();
    return QString::fromStdString(
        nlohmann::json::parse(p.readAllStandardOutput().toStdString()).at("text").get<std::string>());
}

// Shows the page on the golden GPT-2 (no chat template), sends `text` with max_new_tokens = `maxNewTokens`, and waits
// for the reply: its finish reason, empty when none came within a minute.
QString replyFromGoldenGpt2(ChatPage& page, int maxNewTokens, const QString& text) {
    page.show();
    page.setModelFolder(kData + "/models/gpt2");
    page.findChild<QSpinBox*>()->setValue(maxNewTokens);
    QSignalSpy done(&page, &ChatPage::replyFinished);
    page.send(text);
    return done.wait(60000) ? done.at(0).at(1).toString() : QString();
}

}  // namespace

class TestChatPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        m_model = m_tmp.path() + "/model";
        m_other = m_tmp.path() + "/other";
        m_long = m_tmp.path() + "/long";
        QVERIFY(makeModel(m_model, 256, 1));
        QVERIFY(makeModel(m_other, 256, 2));
        QVERIFY(makeModel(m_long, 8192, 3));
    }

    void replyStreamsAndEqualsGenerate() {
        ChatPage page(QString::fromUtf8(FTS_CLI_PATH));
        page.resize(900, 600);
        page.show();
        page.setModelFolder(m_model);
        page.findChild<QSpinBox*>()->setValue(40);  // two turns fit the model's 256 positions
        QSignalSpy done(&page, &ChatPage::replyFinished);
        page.findChild<QLineEdit*>("chatSystem")->setText("Be brief.");
        page.send("Hello there");
        QVERIFY(page.isBusy());
        QVERIFY(done.wait(120000));
        QVERIFY2(done.at(0).at(1).toString() != QStringLiteral("error"), qPrintable(page.statusLabel(0)->text()));
        const QString first = page.replyText(0);
        QVERIFY(!first.isEmpty());
        QVERIFY(page.conversation(0)->toPlainText().contains("Hello there"));
        QVERIFY2(page.statusLabel(0)->text().contains("first token after"), qPrintable(page.statusLabel(0)->text()));
        qInfo("first reply: %s", qPrintable(page.statusLabel(0)->text().replace('\n', " | ")));
        nlohmann::json messages = {{{"role", "system"}, {"content", "Be brief."}},
                                   {{"role", "user"}, {"content", "Hello there"}}};
        QCOMPARE(first, generateReply(m_model, messages, 40, m_tmp.path()));
        // A second turn sees the first: it equals generate on the whole conversation.
        page.send("And again");
        QVERIFY(done.wait(120000));
        messages.push_back({{"role", "assistant"}, {"content", first.toStdString()}});
        messages.push_back({{"role", "user"}, {"content", "And again"}});
        QCOMPARE(page.replyText(0), generateReply(m_model, messages, 40, m_tmp.path()));
    }

    void sideBySide() {
        ChatPage page(QString::fromUtf8(FTS_CLI_PATH));
        page.show();
        page.setModelFolder(m_model);
        page.setCompareFolder(m_other);
        QSignalSpy done(&page, &ChatPage::replyFinished);
        page.send("Which one are you?");
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 120000);
        const nlohmann::json messages = {{{"role", "user"}, {"content", "Which one are you?"}}};
        QCOMPARE(page.replyText(0), generateReply(m_model, messages, 256, m_tmp.path()));
        QCOMPARE(page.replyText(1), generateReply(m_other, messages, 256, m_tmp.path()));
        QVERIFY(page.replyText(0) != page.replyText(1));
    }

    // 8000 new tokens would take many seconds: Stop ends the reply within 0.5 s of the click, and the event loop
    // keeps running (the timer below fires) while the reply streams.
    void stopIsImmediate() {
        ChatPage page(QString::fromUtf8(FTS_CLI_PATH));
        page.show();
        page.setModelFolder(m_long);
        page.findChild<QSpinBox*>()->setValue(8000);
        QSignalSpy done(&page, &ChatPage::replyFinished);
        int ticks = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, this, [&] { ++ticks; });
        tick.start(20);
        page.send("Tell me a long story");
        QTRY_VERIFY_WITH_TIMEOUT(page.replyText(0).size() > 20, 120000);
        QVERIFY(page.stopButton()->isEnabled());
        QElapsedTimer clock;
        clock.start();
        page.stopButton()->click();
        QVERIFY(done.wait(5000));
        const qint64 ms = clock.elapsed();
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY2(ms <= 500, qPrintable(QString("Stop took %1 ms").arg(ms)));
        qInfo("Stop to the end of the reply: %lld ms; %d GUI timer ticks (20 ms) while it streamed", ms, ticks);
        QVERIFY2(ticks > 5, qPrintable(QString("the GUI thread ran %1 timer ticks").arg(ticks)));
        QVERIFY(page.sendButton()->isEnabled() || page.input()->toPlainText().isEmpty());
        QVERIFY(page.statusLabel(0)->text().contains("stopped"));
    }

    // A model without a chat template (the golden GPT-2: an LM) gets the "none" template, and the page says so.
    void modelWithoutTemplateContinuesText() {
        ChatPage page(QString::fromUtf8(FTS_CLI_PATH));
        QCOMPARE(replyFromGoldenGpt2(page, 8, QStringLiteral("Hello world, this is")), QStringLiteral("length"));
        QVERIFY2(page.statusLabel(0)->text().contains("no chat template"), qPrintable(page.statusLabel(0)->text()));
        QVERIFY2(page.statusLabel(0)->text().contains("GPT2LMHeadModel, ") &&
                     page.statusLabel(0)->text().contains(" parameters, float32 on cpu"),
                 qPrintable(page.statusLabel(0)->text()));
        QVERIFY(!page.replyText(0).isEmpty());
    }

    // A model without a chat template offers "Complete the text alone": the next message is then continued on its
    // own (the reply equals fts generate on that text alone), not after the conversation before it.
    void completeTheTextAlone() {
        ChatPage page(QString::fromUtf8(FTS_CLI_PATH));
        QVERIFY(!page.completeTextBox()->isVisible());
        QCOMPARE(replyFromGoldenGpt2(page, 6, QStringLiteral("Hello world, this is")), QStringLiteral("length"));
        QTRY_VERIFY(page.completeTextBox()->isVisible());
        page.completeTextBox()->setChecked(true);
        QSignalSpy done(&page, &ChatPage::replyFinished);
        const QString second = QStringLiteral("She opened the door and saw");
        page.send(second);
        QVERIFY(done.wait(60000));
        QProcess generate;  // the text alone, as a prompt
        generate.start(QString::fromUtf8(FTS_CLI_PATH), {"generate", "--model", kData + "/models/gpt2", "--prompt",
                                                         second, "--max_new_tokens", "6", "--json"});
        QVERIFY(generate.waitForFinished(60000) && generate.exitCode() == 0);
        const std::string want =
            nlohmann::json::parse(generate.readAllStandardOutput().toStdString()).at("text").get<std::string>();
        QVERIFY(!want.empty());
        QCOMPARE(page.replyText(0), QString::fromStdString(want));
    }

    // A reply the model ended at once says so, and for a model without a chat template points at the mode above.
    void anEmptyReplySaysWhy() {
        ChatReplyStats s;
        s.finishReason = QStringLiteral("eos");
        s.newTokens = 1;
        const QString plain = ChatPage::replyStatusLine(s, 0.1, true, false);
        QVERIFY2(plain.contains(QLatin1String("ended its reply at once")) &&
                     plain.contains(QLatin1String("Complete the text alone")),
                 qPrintable(plain));
        QVERIFY(!ChatPage::replyStatusLine(s, 0.1, true, true).contains(QLatin1String("Complete the text alone")));
        QVERIFY(!ChatPage::replyStatusLine(s, 0.1, false, false).contains(QLatin1String("at once")));
    }

    // In Chinese the status line is Chinese too: the model's description as well as the notes.
    void statusInChinese() {
        QVERIFY(installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        ChatPage page(QString::fromUtf8(FTS_CLI_PATH));
        const bool finished = !replyFromGoldenGpt2(page, 4, QStringLiteral("Hello world")).isEmpty();
        const QString status = page.statusLabel(0)->text();
        installStudioTranslations(QStringLiteral("en"));
        QVERIFY(finished);
        QVERIFY2(status.contains(QStringLiteral("GPT2LMHeadModel，")) &&
                     status.contains(QStringLiteral("参数，float32，运行于 cpu")),
                 qPrintable(status));
        QVERIFY2(!status.contains(QStringLiteral("parameters")) && !status.contains(QStringLiteral("no chat template")),
                 qPrintable(status));
    }

    void notAModelSaysWhy() {
        ChatPage page(QString::fromUtf8(FTS_CLI_PATH));
        page.show();
        page.setModelFolder(m_tmp.path() + "/missing");
        QSignalSpy done(&page, &ChatPage::replyFinished);
        page.send("Hello");
        QVERIFY(done.wait(60000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("error"));
        QVERIFY2(page.statusLabel(0)->text().contains("not a folder"), qPrintable(page.statusLabel(0)->text()));
        QVERIFY(!page.isBusy());
    }

private:
    QTemporaryDir m_tmp;
    QString m_model, m_other, m_long;
};

QTEST_MAIN(TestChatPage)
#include "test_chat_page.moc"
