// MainWindow end to end: a temp store and a temp copy of the quick-start; the quick-start editor opens
// on an empty store; a loaded config shows its inline error; the quick-start runs through the real
// `fts train` (points appear in the loss chart), survives closing the window (a new window re-attaches),
// Stop ends it and Resume continues the same run; a second quick-start run gets a folder of its own. Screenshots of the pages go to <build>/screenshots/.
#include <QAction>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QListWidget>
#include <QPushButton>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <csignal>
#include <memory>
#include <nlohmann/json.hpp>

#include "ui/chart_widget.h"
#include "ui/config_editor.h"
#include "ui/config_form.h"
#include "ui/main_window.h"
#include "ui/run_launcher.h"
#include "ui/run_view.h"
#include "ui/runs_table_model.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

bool copyTree(const QString& from, const QString& to) {
    QDir src(from);
    if (!src.exists() || !QDir().mkpath(to)) return false;
    QDirIterator it(from, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString target = QDir(to).filePath(src.relativeFilePath(path));
        if (it.fileInfo().isDir()) {
            if (!QDir().mkpath(target)) return false;
        } else if (!QFile::copy(path, target)) {
            return false;
        }
    }
    return true;
}

QString screenshotDir() { return (QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")); }

bool saveScreenshot(QWidget* w, const QString& name) {
    QDir().mkpath(screenshotDir());
    const QString path = QDir(screenshotDir()).filePath(name + QStringLiteral(".png"));
    const QPixmap shot = w->grab();
    return !shot.isNull() && shot.save(path) && QFileInfo(path).size() > 0;
}

const RunRecord* runOf(const MainWindow& w, qint64 id) { return w.runsModel()->runById(id); }

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    StudioOptions m_options;
    qint64 m_supervisorPid = 0;
    QString m_quickstartOutput;  // the temp quick-start's output_dir
    QStringList m_firstRunCheckpoints;

    std::unique_ptr<MainWindow> openWindow() {
        auto w = std::make_unique<MainWindow>(m_options);
        w->resize(1280, 820);
        w->show();
        return w;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        const QString resources = m_tmp.filePath(QStringLiteral("resources"));
        QVERIFY(copyTree((QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/resources/quickstart")),
                         resources + QStringLiteral("/quickstart")));
        // The temp quick-start: a short run with checkpoint rotation, into the temp folder (not the home).
        const QString qsFile = resources + QStringLiteral("/quickstart/quickstart.json");
        QFile in(qsFile);
        QVERIFY(in.open(QIODevice::ReadOnly));
        nlohmann::json qs = nlohmann::json::parse(in.readAll().toStdString());
        in.close();
        m_quickstartOutput = m_tmp.filePath(QStringLiteral("outputs/quickstart"));
        qs["training"]["output_dir"] = m_quickstartOutput.toStdString();
        qs["training"]["max_steps"] = 6;
        qs["training"]["save_interval"] = 2;
        qs["training"]["eval_interval"] = 0;
        qs["training"]["keep_checkpoints"] = 2;
        QFile outFile(qsFile);
        QVERIFY(outFile.open(QIODevice::WriteOnly | QIODevice::Truncate));
        outFile.write(QByteArray::fromStdString(qs.dump(2)));
        outFile.close();
        m_options.storePath = m_tmp.filePath(QStringLiteral("runs.sqlite"));
        m_options.resourcesDir = resources;
        m_options.dataDir = m_tmp.filePath(QStringLiteral("data"));
        m_options.cliPath = QString::fromUtf8(FTS_CLI_PATH);
        m_options.pollIntervalMs = 100;
    }

    void cleanupTestCase() {
        // Never leave a training process behind, even when a check failed half-way.
        if (processAlive(m_supervisorPid)) ::kill(static_cast<pid_t>(m_supervisorPid), SIGKILL);
    }

    // A fresh store: the welcome page offers the quick-start, a model folder and a config (and the docs);
    // the quick-start button opens the quick-start config, valid and ready to Start.
    void emptyStoreWelcomesThenOpensTheQuickStart() {
        auto w = openWindow();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QTest::qWait(3 * m_options.pollIntervalMs);  // the first listing (empty) has arrived
        QCOMPARE(w->currentPage(), MainWindow::Page::Welcome);
        auto* quick = w->findChild<QPushButton*>(QStringLiteral("welcomeQuickStart"));
        auto* model = w->findChild<QPushButton*>(QStringLiteral("welcomeModelFolder"));
        QVERIFY(quick && quick->isVisible() && model && model->isVisible());
        QVERIFY(saveScreenshot(w.get(), QStringLiteral("welcome")));
        QTest::mouseClick(quick, Qt::LeftButton);
        QTRY_VERIFY(w->currentPage() == MainWindow::Page::Editor);
        QCOMPARE(w->editorFilePath(), QDir(m_options.resourcesDir).absoluteFilePath("quickstart/quickstart.json"));
        QTRY_VERIFY(w->configEditor()->isValidated());
        QVERIFY2(!w->configEditor()->hasErrors(),
                 qPrintable(w->configEditor()->issues().isEmpty() ? QString()
                                                                  : w->configEditor()->issues().first().message));
        QVERIFY(w->startAction()->isEnabled());
        QVERIFY(saveScreenshot(w.get(), QStringLiteral("editor_quickstart")));
    }

    void loadedConfigShowsItsInlineError() {
        auto w = openWindow();
        // A copy of the quick-start with a bad value and an unknown key.
        QFile src(QDir(m_options.resourcesDir).absoluteFilePath("quickstart/quickstart.json"));
        QVERIFY(src.open(QIODevice::ReadOnly));
        nlohmann::json doc = nlohmann::json::parse(src.readAll().toStdString());
        doc["training"]["log_interval"] = 0;
        doc["data"]["text_fild"] = "text";
        const QString bad = QDir(m_options.resourcesDir).absoluteFilePath("quickstart/bad.json");
        QFile out(bad);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(doc.dump(2)));
        out.close();

        QString error;
        QVERIFY2(w->loadConfigFile(bad, &error), qPrintable(error));
        QCOMPARE(w->currentPage(), MainWindow::Page::Editor);
        ConfigEditor* editor = w->configEditor();
        QTRY_VERIFY(editor->isValidated());
        QVERIFY(editor->hasErrors());
        QVERIFY(!w->startAction()->isEnabled());
        const QString text = editor->text();
        const int line = static_cast<int>(
            QStringView(text).left(text.indexOf(QLatin1String("\"log_interval\""))).count(QLatin1Char('\n')));
        bool underlined = false;
        for (const auto& sel : editor->textEdit()->extraSelections())
            underlined |= sel.cursor.block().blockNumber() == line;
        QVERIFY(underlined);
        QStringList entries;
        for (int i = 0; i < editor->issueList()->count(); ++i) entries << editor->issueList()->item(i)->text();
        QVERIFY2(entries.filter(QStringLiteral("training.log_interval: ")).size() == 1, qPrintable(entries.join('\n')));
        QVERIFY2(entries.filter(QStringLiteral("data.text_fild: ")).size() == 1, qPrintable(entries.join('\n')));
        QVERIFY(!w->startRun());  // refused while there are errors
        QVERIFY(saveScreenshot(w.get(), QStringLiteral("editor_inline_error")));
    }

    void quickStartRunsLiveSurvivesTheWindowAndStops() {
        const QString outputDir = m_tmp.filePath(QStringLiteral("out"));
        qint64 runId = 0;
        int pointsBefore = 0;
        {
            auto w = openWindow();
            QVERIFY(w->newRunFromQuickStart());
            ConfigEditor* editor = w->configEditor();
            QTRY_VERIFY(editor->isValidated());
            // The quick-start with a temp output folder, and long enough to be stopped while running.
            nlohmann::json doc = nlohmann::json::parse(editor->text().toStdString());
            doc["training"]["output_dir"] = outputDir.toStdString();
            doc["training"]["max_steps"] = 100000;
            doc["training"]["eval_interval"] = 5;
            doc["training"]["eval_batches"] = 1;
            QTextCursor all(editor->textEdit()->document());  // an edit, as typing or pasting would be
            all.select(QTextCursor::Document);
            all.insertText(QString::fromStdString(doc.dump(2)));
            QVERIFY(editor->isModified());
            QTRY_VERIFY(editor->isValidated() && w->startAction()->isEnabled());

            // Start with the keyboard, from inside the editor (Ctrl+Return must not become a newline).
            QSignalSpy launched(w.get(), &MainWindow::runLaunched);
            const QString before = editor->text();
            const QStringList quickstartFiles =
                QDir(m_options.resourcesDir + QStringLiteral("/quickstart")).entryList(QDir::Files);
            w->activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(w.get()));
            editor->textEdit()->setFocus();
            QTest::keyClick(editor->textEdit(), Qt::Key_Return, Qt::ControlModifier);
            QVERIFY2(launched.count() == 1, qPrintable(w->lastMessage()));
            QCOMPARE(editor->text(), before);
            m_supervisorPid = launched.at(0).at(0).toLongLong();
            const QString configPath = launched.at(0).at(1).toString();
            // The launched config goes into the run's own folder (never next to the opened file, here the
            // quick-start's folder, which an install may not even let us write).
            QCOMPARE(configPath, QDir(outputDir).absoluteFilePath(QStringLiteral("train_config.json")));
            QCOMPARE(QDir(m_options.resourcesDir + QStringLiteral("/quickstart")).entryList(QDir::Files),
                     quickstartFiles);

            QTRY_VERIFY_WITH_TIMEOUT(w->currentPage() == MainWindow::Page::Run && w->runView()->runId() > 0, 60000);
            runId = w->runView()->runId();
            QCOMPARE(w->selectedRunId(), runId);
            QCOMPARE(runOf(*w, runId)->pid, m_supervisorPid);
            SeriesChart* loss = w->runView()->lossChart();
            QTRY_VERIFY_WITH_TIMEOUT(loss->pointCount(QStringLiteral("loss")) >= 3, 240000);
            QTRY_VERIFY_WITH_TIMEOUT(!w->runView()->memoryChart()->graphKeys().isEmpty(), 60000);
            QTRY_VERIFY_WITH_TIMEOUT(loss->pointCount(QStringLiteral("eval_loss")) >= 1, 240000);
            QVERIFY(saveScreenshot(w.get(), QStringLiteral("run_live")));
            pointsBefore = loss->pointCount(QStringLiteral("loss"));
            QVERIFY(w->stopAction()->isEnabled());
        }  // the window closes; the run goes on (a separate process)

        QVERIFY(processAlive(m_supervisorPid));
        auto w = openWindow();
        // Re-attach: the running run is selected and its history is shown, then it keeps growing.
        QTRY_VERIFY_WITH_TIMEOUT(w->currentPage() == MainWindow::Page::Run && w->runView()->runId() == runId, 30000);
        SeriesChart* loss = w->runView()->lossChart();
        QTRY_VERIFY_WITH_TIMEOUT(loss->pointCount(QStringLiteral("loss")) > pointsBefore, 240000);

        QTRY_VERIFY(w->stopAction()->isEnabled());
        w->stopAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(runOf(*w, runId) && runOf(*w, runId)->status != RunStatus::Running, 240000);
        QCOMPARE(runOf(*w, runId)->status, RunStatus::Stopped);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(m_supervisorPid), 60000);
        QVERIFY(!w->stopAction()->isEnabled());
        QVERIFY(saveScreenshot(w.get(), QStringLiteral("run_stopped")));

        // Resume from the run page: the same run (id and row) continues from its checkpoint, its loss curve
        // goes on past the step it stopped at, and the supervisor is a new process.
        const int64_t stoppedAt = runOf(*w, runId)->lastStep;
        const int pointsAtStop = loss->pointCount(QStringLiteral("loss"));
        QTRY_VERIFY(w->runView()->resumeButton()->isVisible() && w->runView()->resumeButton()->isEnabled());
        QVERIFY(w->resumeAction()->isEnabled());
        QSignalSpy launched(w.get(), &MainWindow::runLaunched);
        QTest::mouseClick(w->runView()->resumeButton(), Qt::LeftButton);
        QVERIFY2(launched.count() == 1, qPrintable(w->lastMessage()));
        m_supervisorPid = launched.at(0).at(0).toLongLong();
        QTRY_VERIFY_WITH_TIMEOUT(runOf(*w, runId) && runOf(*w, runId)->status == RunStatus::Running &&
                                     runOf(*w, runId)->pid == m_supervisorPid,
                                 60000);
        QTRY_VERIFY_WITH_TIMEOUT(runOf(*w, runId)->lastStep > stoppedAt + 1, 240000);
        QCOMPARE(w->runView()->runId(), runId);
        QTRY_VERIFY_WITH_TIMEOUT(loss->pointCount(QStringLiteral("loss")) > pointsAtStop, 60000);
        QCOMPARE(w->runsModel()->rowCount(), 1);   // no new row
        QVERIFY(!w->resumeAction()->isEnabled());  // running
        w->stopAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(runOf(*w, runId)->status == RunStatus::Stopped, 240000);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(m_supervisorPid), 60000);
        QTRY_VERIFY(w->resumeAction()->isEnabled());
    }

    // Two runs from the unchanged quick-start: the second gets a folder (and name) of its own, and the first
    // run's checkpoints all survive the second's rotation.
    void quickStartTwiceGetsTwoFolders() {
        auto w = openWindow();
        QStringList folders;
        QList<qint64> ids;
        for (int i = 0; i < 2; ++i) {
            QVERIFY(w->newRunFromQuickStart());
            QTRY_VERIFY(w->configEditor()->isValidated() && w->startAction()->isEnabled());
            if (i == 1) {  // an edited config, started: kept in the run's folder, so "New run" has nothing to ask
                w->configForm()->setFieldText(QStringLiteral("training.seed"), QStringLiteral("43"));
                QTRY_VERIFY(w->configEditor()->isModified() && w->hasUnsavedConfig());
                QTRY_VERIFY(w->configEditor()->isValidated() && w->startAction()->isEnabled());
            }
            QSignalSpy launched(w.get(), &MainWindow::runLaunched);
            QVERIFY2(w->startRun(), qPrintable(w->lastMessage()));
            if (i == 1) {
                QVERIFY(!w->hasUnsavedConfig());
                w->configForm()->setFieldText(QStringLiteral("training.seed"), QStringLiteral("44"));
                QTRY_VERIFY(w->hasUnsavedConfig());  // changed after the start: that is unsaved
                w->configForm()->setFieldText(QStringLiteral("training.seed"), QStringLiteral("43"));
                QTRY_VERIFY(!w->hasUnsavedConfig());
            }
            m_supervisorPid = launched.at(0).at(0).toLongLong();
            folders << QFileInfo(launched.at(0).at(1).toString()).absolutePath();
            QTRY_VERIFY_WITH_TIMEOUT(w->runView()->runId() > 0 && !ids.contains(w->runView()->runId()), 60000);
            const qint64 id = w->runView()->runId();
            ids << id;
            QTRY_VERIFY_WITH_TIMEOUT(runOf(*w, id)->status == RunStatus::Completed, 240000);
            if (i == 0)
                m_firstRunCheckpoints =
                    QDir(folders[0] + QStringLiteral("/checkpoints")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        }
        QCOMPARE(folders[0], m_quickstartOutput);
        QCOMPARE(folders[1], m_quickstartOutput + QStringLiteral("-2"));
        QCOMPARE(QString::fromStdString(runOf(*w, ids[0])->name), QStringLiteral("quickstart"));
        QCOMPARE(QString::fromStdString(runOf(*w, ids[1])->name), QStringLiteral("quickstart-2"));
        QCOMPARE(QString::fromStdString(runOf(*w, ids[1])->outputDir), folders[1]);
        QCOMPARE(QDir(folders[0] + QStringLiteral("/checkpoints")).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 m_firstRunCheckpoints);
        QVERIFY(m_firstRunCheckpoints.size() == 2);  // keep_checkpoints 2 of steps 2, 4, 6

        // A folder the user types that holds another run's checkpoints is refused, naming that run.
        QVERIFY(w->newRunFromQuickStart());
        ConfigEditor* editor = w->configEditor();
        QTRY_VERIFY(editor->isValidated());
        nlohmann::json doc = nlohmann::json::parse(editor->text().toStdString());
        doc["training"]["output_dir"] = folders[1].toStdString();
        QTextCursor all(editor->textEdit()->document());
        all.select(QTextCursor::Document);
        all.insertText(QString::fromStdString(doc.dump(2)));
        QTRY_VERIFY(editor->isValidated() && w->startAction()->isEnabled());
        QString error;
        QVERIFY(!w->startRun(&error));
        QVERIFY2(error.contains(QStringLiteral("run %1 (\"quickstart-2\")").arg(ids[1])), qPrintable(error));
        QCOMPARE(w->runsModel()->rowCount(), 3);
        editor->setModified(false);  // no save prompt when the window closes
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
