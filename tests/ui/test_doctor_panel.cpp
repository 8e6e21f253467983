// DoctorPanel through the real `fts doctor --json` (offscreen): one row per check with its status; a store that is
// not a database is an error row with what to do; the button is disabled while the checks run.
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "core/store/run_store.h"
#include "tests/ui/latin_words.h"
#include "ui/app_translations.h"
#include "ui/doctor_panel.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

class TestDoctorPanel : public QObject {
    Q_OBJECT

    static QString rowOf(QTableWidget* t, const QString& topic) {
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 1)->data(Qt::UserRole).toString() == topic)
                return t->item(r, 0)->data(Qt::UserRole).toString() + "|" + t->item(r, 2)->text();
        return QString();
    }

private slots:
    void rowsPerCheck() {
        QTemporaryDir tmp;
        DoctorPanel panel(QString::fromUtf8(FTS_CLI_PATH), tmp.path() + "/runs.sqlite");
        panel.show();
        QSignalSpy done(&panel, &DoctorPanel::finished);
        panel.runButton()->click();
        QVERIFY(!panel.runButton()->isEnabled());
        QVERIFY(done.wait(60000));
        QCOMPARE(done.at(0).at(0).toInt(), 0);  // no error on this machine
        QVERIFY2(rowOf(panel.table(), "store").startsWith("info|"), qPrintable(rowOf(panel.table(), "store")));
        const QString memory = rowOf(panel.table(), "memory");  // a warning when the machine is short of memory
        QVERIFY2(memory.startsWith("ok|") || memory.startsWith("warning|"), qPrintable(memory));
        QVERIFY(rowOf(panel.table(), "runtime").contains("LibTorch"));
        QVERIFY(panel.runButton()->isEnabled());
    }

    // In Chinese every result reads in Chinese (paths, versions and names aside): fts doctor's details and fixes
    // come through the catalogue of the core's templates, here for a store with a run in it.
    void resultsInChinese() {
        QVERIFY(installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        QTemporaryDir tmp;
        const QString store = tmp.path() + "/runs.sqlite";
        {
            RunStore runs(store.toStdString());
            RunRecord r;
            r.name = "r";
            r.configJson = "{}";
            runs.createRun(r);
        }
        DoctorPanel panel(QString::fromUtf8(FTS_CLI_PATH), store);
        QSignalSpy done(&panel, &DoctorPanel::finished);
        panel.run();
        QVERIFY(done.wait(60000));
        QStringList english;
        for (int r = 0; r < panel.table()->rowCount(); ++r) {
            const QString result = panel.table()->item(r, 2)->text();
            const QStringList left = fts::test::englishWords(result);
            if (!left.isEmpty()) english << result + " (" + left.join(' ') + ")";
        }
        installStudioTranslations(QStringLiteral("en"));
        QVERIFY2(english.isEmpty(), qPrintable(english.join('\n')));
        QVERIFY2(rowOf(panel.table(), "store").contains(QStringLiteral("1 个运行")),
                 qPrintable(rowOf(panel.table(), "store")));
    }

    void brokenStoreIsAnError() {
        QTemporaryDir tmp;
        const QString store = tmp.path() + "/runs.sqlite";
        QFile f(store);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an SQLite database, it is plain text of some length");
        f.close();
        DoctorPanel panel(QString::fromUtf8(FTS_CLI_PATH), store);
        QSignalSpy done(&panel, &DoctorPanel::finished);
        panel.run();
        QVERIFY(done.wait(60000));
        QVERIFY(done.at(0).at(0).toInt() >= 1);
        const QString row = rowOf(panel.table(), "store");
        QVERIFY2(row.startsWith("error|") && row.contains("not a database") && row.contains("→ move the file aside"),
                 qPrintable(row));
    }
};

QTEST_MAIN(TestDoctorPanel)
#include "test_doctor_panel.moc"
