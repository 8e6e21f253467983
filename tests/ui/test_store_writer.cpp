// StoreWriter on its thread against a real store: rename, notes, tags (read back through a separate
// read-only connection), delete with and without the output folder (kept when another run shares it),
// refusals (running run, empty name, bad tag, missing store) answered with a message, not a crash.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "ui/store_writer.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

int64_t addRun(RunStore& store, const std::string& name, const std::string& outputDir,
               RunStatus status = RunStatus::Completed) {
    RunRecord r;
    r.name = name;
    r.outputDir = outputDir;
    const int64_t id = store.createRun(r);
    store.markStarted(id, 0, 1000.0);
    if (status != RunStatus::Running) store.finishRun(id, status, 1010.0, "{}", "");
    return id;
}

void makeCheckpointDir(const QString& dir) {
    QVERIFY(QDir().mkpath(dir + QStringLiteral("/checkpoint-10")));
    QFile f(dir + QStringLiteral("/checkpoint-10/model.safetensors"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("weights");
}

}  // namespace

class TestStoreWriter : public QObject {
    Q_OBJECT
private slots:
    void editsAndDeletes() {
        QTemporaryDir dir;
        const QString storePath = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString own = dir.filePath(QStringLiteral("out/own"));
        const QString shared = dir.filePath(QStringLiteral("out/shared"));
        makeCheckpointDir(own);
        makeCheckpointDir(shared);
        int64_t a = 0, b = 0, c = 0, running = 0, keepFiles = 0;
        {
            RunStore store(storePath.toStdString());
            a = addRun(store, "a", own.toStdString());
            b = addRun(store, "b", shared.toStdString());
            c = addRun(store, "c", shared.toStdString());
            running = addRun(store, "live", "", RunStatus::Running);
            keepFiles = addRun(store, "keep", own.toStdString() + "-other");
        }
        StoreWriterThread t(storePath);
        QSignalSpy done(t.writer(), &StoreWriter::done);
        const auto last = [&] { return done.last(); };
        RunStore reader(storePath.toStdString(), /*readOnly=*/true);

        t.renameRun(a, QStringLiteral("  renamed  "));
        QTRY_COMPARE(done.count(), 1);
        QVERIFY(last().at(2).toBool());
        QCOMPARE(reader.getRun(a)->name, std::string("renamed"));

        t.setNotes(a, QStringLiteral("tried a higher lr"));
        t.setTags(a, {QStringLiteral("sweep"), QStringLiteral(" lr "), QStringLiteral("sweep")});
        QTRY_COMPARE(done.count(), 3);
        QCOMPARE(reader.getRun(a)->notes, std::string("tried a higher lr"));
        QCOMPARE(reader.getRun(a)->tags, (std::vector<std::string>{"lr", "sweep"}));

        // Refusals come back as messages.
        t.renameRun(a, QStringLiteral("   "));
        QTRY_COMPARE(done.count(), 4);
        QVERIFY(!last().at(2).toBool());
        t.setTags(a, {QStringLiteral("a,b")});
        QTRY_COMPARE(done.count(), 5);
        QVERIFY(!last().at(2).toBool());
        QVERIFY(last().at(3).toString().contains(QStringLiteral("comma")));
        t.deleteRun(running, true);
        QTRY_COMPARE(done.count(), 6);
        QVERIFY(!last().at(2).toBool());
        QVERIFY(reader.getRun(running).has_value());

        // Delete with files: its own folder goes; a folder another run uses stays.
        t.deleteRun(a, true);
        QTRY_COMPARE(done.count(), 7);
        QVERIFY2(last().at(2).toBool(), qPrintable(last().at(3).toString()));
        QVERIFY(!reader.getRun(a).has_value());
        QVERIFY(!QFileInfo::exists(own));
        t.deleteRun(b, true);
        QTRY_COMPARE(done.count(), 8);
        QVERIFY(last().at(2).toBool());
        QVERIFY(!reader.getRun(b).has_value());
        QVERIFY(QFileInfo::exists(shared + QStringLiteral("/checkpoint-10/model.safetensors")));
        QVERIFY(last().at(3).toString().contains(QStringLiteral("kept")));
        // Without files: the rows go, the folder stays.
        QVERIFY(QDir().mkpath(own + QStringLiteral("-other")));
        t.deleteRun(keepFiles, false);
        QTRY_COMPARE(done.count(), 9);
        QVERIFY(last().at(2).toBool());
        QVERIFY(QFileInfo::exists(own + QStringLiteral("-other")));
        QVERIFY(reader.getRun(c).has_value());
    }

    void missingStoreIsNotCreated() {
        QTemporaryDir dir;
        const QString storePath = dir.filePath(QStringLiteral("none.sqlite"));
        StoreWriterThread t(storePath);
        QSignalSpy done(t.writer(), &StoreWriter::done);
        t.renameRun(1, QStringLiteral("x"));
        QTRY_COMPARE(done.count(), 1);
        QVERIFY(!done.last().at(2).toBool());
        QVERIFY(!QFileInfo::exists(storePath));
    }
};

QTEST_MAIN(TestStoreWriter)
#include "test_store_writer.moc"
