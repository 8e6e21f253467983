// StoreWriter: user edits of runs on a worker thread (see store_writer.h).
#include "ui/store_writer.h"

#include <QFileInfo>
#include <QThread>
#include <climits>
#include <filesystem>
#include <system_error>

#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;

StoreWriter::StoreWriter(QString storePath, QObject* parent) : QObject(parent), m_storePath(std::move(storePath)) {}

StoreWriter::~StoreWriter() = default;

RunStore& StoreWriter::store() {
    if (!m_store) {
        if (!QFileInfo::exists(m_storePath))
            throw StoreError("run store " + m_storePath.toStdString() + " does not exist");
        m_store = std::make_unique<RunStore>(m_storePath.toStdString(), /*readOnly=*/false);
    }
    return *m_store;
}

void StoreWriter::close() { m_store.reset(); }

void StoreWriter::renameRun(qint64 runId, const QString& name) {
    try {
        const QString clean = name.trimmed();
        if (clean.isEmpty()) throw StoreError("a run name cannot be empty");
        store().setRunName(runId, clean.toStdString());
        emit done(Op::Rename, runId, true, tr("Run %1 renamed to \"%2\".").arg(runId).arg(clean));
    } catch (const std::exception& e) {
        emit done(Op::Rename, runId, false,
                  tr("Cannot rename run %1: %2").arg(runId).arg(QString::fromStdString(e.what())));
    }
}

void StoreWriter::setNotes(qint64 runId, const QString& notes) {
    try {
        store().setRunNotes(runId, notes.toStdString());
        emit done(Op::Notes, runId, true, tr("Notes of run %1 saved.").arg(runId));
    } catch (const std::exception& e) {
        emit done(Op::Notes, runId, false,
                  tr("Cannot save the notes of run %1: %2").arg(runId).arg(QString::fromStdString(e.what())));
    }
}

void StoreWriter::setTags(qint64 runId, const QStringList& tags) {
    try {
        std::vector<std::string> t;
        for (const QString& s : tags) t.push_back(s.toStdString());
        store().setRunTags(runId, t);
        emit done(Op::Tags, runId, true, tr("Tags of run %1 saved.").arg(runId));
    } catch (const std::exception& e) {
        emit done(Op::Tags, runId, false,
                  tr("Cannot save the tags of run %1: %2").arg(runId).arg(QString::fromStdString(e.what())));
    }
}

void StoreWriter::deleteRun(qint64 runId, bool deleteFiles) {
    try {
        RunStore& s = store();
        const auto run = s.getRun(runId);
        if (!run) throw StoreError("there is no run with id " + std::to_string(runId));
        bool shared = false;
        if (deleteFiles && !run->outputDir.empty()) {
            for (const RunRecord& other : s.listRuns(INT_MAX))
                shared = shared || (other.id != runId && other.outputDir == run->outputDir);
        }
        s.deleteRun(runId);  // refuses a running run
        QString message = tr("Run %1 deleted.").arg(runId);
        if (deleteFiles && !run->outputDir.empty()) {
            const fs::path dir(run->outputDir);
            const QString shown = QString::fromStdString(run->outputDir);
            std::error_code ec;
            if (shared) {
                message +=
                    QLatin1Char(' ') + tr("Its output folder %1 was kept: other runs write there too.").arg(shown);
            } else if (!dir.is_absolute() || dir == dir.root_path() || !fs::is_directory(dir, ec)) {
                message +=
                    QLatin1Char(' ') + tr("Its output folder %1 was not removed (missing or not a folder).").arg(shown);
            } else {
                fs::remove_all(dir, ec);
                message += QLatin1Char(' ') +
                           (ec ? tr("Removing %1 failed: %2").arg(shown, QString::fromStdString(ec.message()))
                               : tr("Removed its checkpoints and outputs in %1.").arg(shown));
            }
        }
        emit done(Op::Delete, runId, true, message);
    } catch (const std::exception& e) {
        emit done(Op::Delete, runId, false,
                  tr("Cannot delete run %1: %2").arg(runId).arg(QString::fromStdString(e.what())));
    }
}

StoreWriterThread::StoreWriterThread(const QString& storePath, QObject* parent)
    : QObject(parent), m_thread(new QThread(this)), m_writer(new StoreWriter(storePath)) {
    m_thread->setObjectName(QStringLiteral("fts-store-writer"));
    m_writer->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_writer, &QObject::deleteLater);
    m_thread->start();
}

StoreWriterThread::~StoreWriterThread() {
    QMetaObject::invokeMethod(m_writer, &StoreWriter::close, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
}

void StoreWriterThread::renameRun(qint64 runId, const QString& name) {
    QMetaObject::invokeMethod(
        m_writer, [w = m_writer, runId, name] { w->renameRun(runId, name); }, Qt::QueuedConnection);
}
void StoreWriterThread::setNotes(qint64 runId, const QString& notes) {
    QMetaObject::invokeMethod(
        m_writer, [w = m_writer, runId, notes] { w->setNotes(runId, notes); }, Qt::QueuedConnection);
}
void StoreWriterThread::setTags(qint64 runId, const QStringList& tags) {
    QMetaObject::invokeMethod(
        m_writer, [w = m_writer, runId, tags] { w->setTags(runId, tags); }, Qt::QueuedConnection);
}
void StoreWriterThread::deleteRun(qint64 runId, bool deleteFiles) {
    QMetaObject::invokeMethod(
        m_writer, [w = m_writer, runId, deleteFiles] { w->deleteRun(runId, deleteFiles); }, Qt::QueuedConnection);
}

}  // namespace fts
