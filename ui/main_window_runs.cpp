// MainWindow, the runs list: listing and live updates from the poller, selection, the run and compare pages it
// opens, filters, notifications of runs that ended, and the history edits (rename, notes and tags, delete).
#include "ui/compare_view.h"
#include "ui/main_window.h"

#include <sys/types.h>

#include <QTableView>
#include <QToolButton>
#include <QStatusBar>
#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSystemTrayIcon>
#include <nlohmann/json.hpp>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <cerrno>
#include <csignal>

#include "ui/run_launcher.h"
#include "ui/run_view.h"
#include "ui/runs_filter_proxy.h"
#include "ui/runs_table_model.h"
#include "ui/store_writer.h"
#include "core/util/json_parse.h"

namespace fts {

// Runs this window saw running that have ended since: a banner (and a tray message where there is a tray).
void MainWindow::noteStatuses(const RunList& runs) {
    for (const RunRecord& r : runs) {
        const auto it = m_lastStatus.constFind(r.id);
        if (it != m_lastStatus.constEnd() && *it == RunStatus::Running && r.status != RunStatus::Running)
            notifyRunEnded(r);
        m_lastStatus.insert(r.id, r.status);
    }
}

// The same runs with a few rows changed (a live run's step, a status): work in the changed rows only, so a
// live run next to a long history stays cheap on the UI thread.
void MainWindow::onRunsChanged(const RunList& changed) {
    bool choicesStale = false;
    for (const RunRecord& r : changed) {
        const RunRecord* old = m_runsModel->runById(r.id);
        choicesStale =
            choicesStale || !old || old->model != r.model || old->dataset != r.dataset || old->tags != r.tags;
    }
    m_runsModel->updateRuns(changed);
    noteStatuses(changed);
    if (currentPage() == Page::Compare && !m_compareRefresh.isActive()) {
        const QList<qint64> compared = m_compareView->runIds();
        for (const RunRecord& r : changed)
            if (compared.contains(r.id)) {
                m_compareRefresh.start();
                break;
            }
    }
    if (choicesStale) refreshFilterChoices();
    for (const RunRecord& r : changed)
        if (r.id == m_selectedRunId) m_runView->updateRun(r);
    attachPendingStart(changed);
    updateActions();
}

void MainWindow::onRunsListed(const RunList& runs) {
    m_runsModel->setRuns(runs);
    noteStatuses(runs);
    refreshFilterChoices();
    if (m_selectedRunId > 0) {
        if (const RunRecord* r = m_runsModel->runById(m_selectedRunId)) m_runView->updateRun(*r);
    }
    attachPendingStart(runs);
    if (m_firstListing) {
        m_firstListing = false;
        if (currentPage() == Page::Welcome) {
            if (!runs.empty()) {  // a fresh store stays on the welcome page and its choices
                // Re-attach: show the newest running run, if any; else the run shown last time.
                bool attached = false;
                for (const RunRecord& r : runs) {
                    if (r.status == RunStatus::Running) {
                        selectRun(r.id);
                        attached = true;
                        break;
                    }
                }
                if (!attached && m_restoreRunId > 0) selectRun(m_restoreRunId);
            }
        }
    }
    updateActions();
}

void MainWindow::selectRun(qint64 runId) {
    const int row = m_runsModel->rowOfRun(runId);
    if (row < 0) return;
    const QModelIndex at = m_runsProxy->mapFromSource(m_runsModel->index(row, 0));
    if (at.isValid()) {
        m_runsView->selectRow(at.row());
        m_runsView->scrollTo(at);
    }
    showRunPage(runId);
}

void MainWindow::selectRuns(const QList<qint64>& runIds) {
    QItemSelection selection;
    for (qint64 id : runIds) {
        const int row = m_runsModel->rowOfRun(id);
        if (row < 0) continue;
        const QModelIndex first = m_runsProxy->mapFromSource(m_runsModel->index(row, 0));
        if (!first.isValid()) continue;  // filtered out
        selection.select(first, first.siblingAtColumn(RunsTableModel::ColumnCount - 1));
    }
    m_runsView->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

QList<qint64> MainWindow::selectedRunIds() const {
    QModelIndexList rows = m_runsView->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QList<qint64> ids;
    for (const QModelIndex& i : rows) ids.append(i.data(RunsTableModel::RunIdRole).toLongLong());
    return ids;
}

bool MainWindow::compareSelectedRuns() {
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() < 2) {
        showMessage(tr("Select two or more runs to compare (Ctrl+click or Shift+click in the list)."), true);
        return false;
    }
    showMessage(QString(), false);
    if (m_compareView->runIds() != ids || currentPage() != Page::Compare)
        m_compareView->compareRuns(m_options.storePath, ids);
    showPage(Page::Compare);
    return true;
}

void MainWindow::onSelectionChanged() {
    if (m_restoringSelection) return;
    m_selectedIds = selectedRunIds();
    updateActions();
    if (m_selectedIds.size() == 1) {
        showRunPage(m_selectedIds.first());
    } else if (m_selectedIds.size() >= 2 && currentPage() == Page::Compare) {
        m_compareView->compareRuns(m_options.storePath, m_selectedIds);  // follow the selection
    }
}

void MainWindow::showRunPage(qint64 runId) {
    const RunRecord* r = m_runsModel->runById(runId);
    if (!r) return;
    m_selectedRunId = runId;
    if (m_messageRunId > 0 && m_messageRunId != runId) showMessage(QString(), false);  // another run's banner
    m_runView->showRun(*r);
    if (m_watchedRunId != runId) {
        m_watchedRunId = runId;
        m_poller->watchRun(runId);
    }
    showPage(Page::Run);
}

void MainWindow::notifyRunEnded(const RunRecord& r) {
    const QString name = QString::fromStdString(r.name);
    QString text;
    bool isError = false;
    switch (r.status) {
        case RunStatus::Completed: {
            const auto metrics = parseJsonOrDiscarded(r.finalMetricsJson);
            if (metrics.is_object() && metrics.contains("loss") && metrics["loss"].is_number())
                text =
                    tr("Run \"%1\" completed (final loss %2).").arg(name).arg(metrics["loss"].get<double>(), 0, 'f', 4);
            else
                text = tr("Run \"%1\" completed.").arg(name);
            break;
        }
        case RunStatus::Failed:
            isError = true;
            text = r.failureReason.empty()
                       ? tr("Run \"%1\" failed.").arg(name)
                       : tr("Run \"%1\" failed: %2").arg(name, QString::fromStdString(r.failureReason));
            break;
        case RunStatus::Stopped:
            text = tr("Run \"%1\" stopped.").arg(name);
            break;
        default:
            return;
    }
    m_lastNotification = text;
    showMessage(text, isError, r.id);
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(
                windowIcon().isNull() ? style()->standardIcon(QStyle::SP_ComputerIcon) : windowIcon(), this);
            m_tray->show();
        }
        m_tray->showMessage(tr("Finetune Studio"), text,
                            isError ? QSystemTrayIcon::Critical : QSystemTrayIcon::Information);
    }
    emit runEnded(r.id, text);
}

void MainWindow::onStoreState(bool available, const QString& message) {
    const QString path = QDir::toNativeSeparators(m_options.storePath);
    m_storeLabel->setText(available ? tr("Store: %1").arg(path) : tr("Store: %1 (not available)").arg(path));
    m_storeLabel->setToolTip(message.isEmpty() ? path : path + QLatin1Char('\n') + message);
    if (!available && !message.isEmpty()) statusBar()->showMessage(message, 10000);
}

QWidget* MainWindow::buildRunsPane() {
    auto* pane = new QWidget(this);
    m_runsCount = new QLabel(pane);
    m_runsCount->setObjectName(QStringLiteral("runsCount"));
    m_search = new QLineEdit(pane);
    m_search->setObjectName(QStringLiteral("runsSearch"));
    m_search->setClearButtonEnabled(true);
    auto* find = new QAction(this);
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, this, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    addAction(find);

    const auto combo = [pane](const char* name) {
        auto* c = new QComboBox(pane);
        c->setObjectName(QString::fromLatin1(name));
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(4);  // the list pane fits beside the editor on a 1024-pixel screen
        return c;
    };
    m_statusFilter = combo("statusFilter");
    m_statusFilter->addItem(tr("All statuses"), -1);
    for (RunStatus st :
         {RunStatus::Running, RunStatus::Completed, RunStatus::Failed, RunStatus::Stopped, RunStatus::Pending})
        m_statusFilter->addItem(RunsTableModel::statusText(st), int(st));
    m_modelFilter = combo("modelFilter");
    m_datasetFilter = combo("datasetFilter");
    m_tagFilter = combo("tagFilter");
    m_dateFilter = combo("dateFilter");
    m_dateFilter->addItem(tr("Any time"), 0);
    m_dateFilter->addItem(tr("Today"), 1);
    m_dateFilter->addItem(tr("Last 7 days"), 7);
    m_dateFilter->addItem(tr("Last 30 days"), 30);
    refreshFilterChoices();

    connect(m_search, &QLineEdit::textChanged, this, [this] { applyFilters(); });
    for (QComboBox* c : {m_statusFilter, m_modelFilter, m_datasetFilter, m_tagFilter, m_dateFilter})
        connect(c, &QComboBox::currentIndexChanged, this, [this] { applyFilters(); });

    // The count follows the proxy (never re-filter from here: filtering itself inserts and removes rows).
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_runsProxy, signal, this, &MainWindow::updateRunsCount);
    connect(m_runsProxy, &QAbstractItemModel::modelReset, this, &MainWindow::updateRunsCount);

    auto* row1 = new QHBoxLayout;
    row1->addWidget(m_search, 1);
    row1->addWidget(m_statusFilter);
    auto* row2 = new QHBoxLayout;
    row2->addWidget(m_modelFilter, 1);
    row2->addWidget(m_datasetFilter, 1);
    row2->addWidget(m_tagFilter, 1);
    row2->addWidget(m_dateFilter);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    layout->addLayout(row1);
    layout->addLayout(row2);
    layout->addWidget(m_runsView, 1);
    // The count, and the way to the Queue page (not on the toolbar: it must fit a 1024-pixel screen).
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_runsCount, 1);
    m_queueButton = new QToolButton(pane);
    m_queueButton->setObjectName(QStringLiteral("runsQueueButton"));
    // its action (m_queueAction) is set by buildActions, which runs after this pane is built
    m_queueButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bottom->addWidget(m_queueButton);
    layout->addLayout(bottom);
    return pane;
}

void MainWindow::refreshFilterChoices() {
    const auto refill = [](QComboBox* c, const QString& all, const QStringList& values, bool baseNames) {
        const QString current = c->currentData().toString();
        QSignalBlocker block(c);
        c->clear();
        c->addItem(all, QString());
        for (const QString& v : values) {
            const QString shown = baseNames ? QFileInfo(v).fileName() : v;
            c->addItem(shown.isEmpty() ? v : shown, v);
            c->setItemData(c->count() - 1, v, Qt::ToolTipRole);
        }
        const int i = c->findData(current);
        c->setCurrentIndex(i >= 0 ? i : 0);
    };
    refill(m_modelFilter, tr("All models"), m_runsProxy->distinctModels(), true);
    refill(m_datasetFilter, tr("All datasets"), m_runsProxy->distinctDatasets(), true);
    refill(m_tagFilter, tr("All tags"), m_runsProxy->distinctTags(), false);
    applyFilters();
}

void MainWindow::applyFilters() {
    if (!m_dateFilter) return;  // still building the pane
    m_runsProxy->setSearchText(m_search->text());
    const int status = m_statusFilter->currentData().toInt();
    m_runsProxy->setStatusFilter(status < 0 ? std::nullopt : std::optional<RunStatus>(RunStatus(status)));
    m_runsProxy->setModelFilter(m_modelFilter->currentData().toString());
    m_runsProxy->setDatasetFilter(m_datasetFilter->currentData().toString());
    m_runsProxy->setTagFilter(m_tagFilter->currentData().toString());
    const int days = m_dateFilter->currentData().toInt();
    double since = 0;
    if (days == 1)
        since = double(QDateTime(QDate::currentDate(), QTime(0, 0)).toSecsSinceEpoch());
    else if (days > 1)
        since = double(QDateTime::currentDateTime().addDays(-days).toSecsSinceEpoch());
    m_runsProxy->setStartedSince(since);
    updateRunsCount();
}

void MainWindow::updateRunsCount() {
    if (!m_runsCount) return;
    const int shown = m_runsProxy->rowCount(), total = m_runsModel->rowCount();
    m_runsCount->setText(shown == total ? tr("%n run(s)", nullptr, total)
                                        : tr("%1 of %n run(s) shown", nullptr, total).arg(shown));
}

void MainWindow::showRunsContextMenu(const QPoint& pos) {
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty()) return;
    QMenu menu(this);
    if (ids.size() >= 2) menu.addAction(m_compareAction);
    QAction* resume =
        menu.addAction(m_resumeAction->icon(), tr("Resume"), this, [this, ids] { resumeRun(ids.first()); });
    resume->setEnabled(ids.size() == 1 && canResume(ids.first()));
    QAction* startFrom = menu.addAction(tr("Start from this run"), this, [this, ids] {
        if (maySetEditorAside()) newRunFromRun(ids.first());
    });
    startFrom->setEnabled(ids.size() == 1);
    QAction* exportModel =
        menu.addAction(tr("Export the model…"), this, [this, ids] { openExportDialog(ids.first()); });
    exportModel->setEnabled(ids.size() == 1 && canExport(ids.first()));
    QAction* rename = menu.addAction(tr("Rename…"), this, &MainWindow::renameSelectedRunDialog);
    QAction* notes = menu.addAction(tr("Notes and tags…"), this, &MainWindow::editSelectedRunNotesDialog);
    rename->setEnabled(ids.size() == 1);
    notes->setEnabled(ids.size() == 1);
    menu.addSeparator();
    menu.addAction(tr("Delete…"), this, &MainWindow::deleteSelectedRunsDialog);
    menu.exec(m_runsView->viewport()->mapToGlobal(pos));
}

void MainWindow::renameRun(qint64 runId, const QString& name) { m_writer->renameRun(runId, name); }

void MainWindow::setRunNotes(qint64 runId, const QString& notes) { m_writer->setNotes(runId, notes); }

void MainWindow::setRunTags(qint64 runId, const QStringList& tags) { m_writer->setTags(runId, tags); }

void MainWindow::deleteRuns(const QList<qint64>& runIds, bool deleteFiles) {
    for (qint64 id : runIds) m_writer->deleteRun(id, deleteFiles);
}

void MainWindow::renameSelectedRunDialog() {
    const QList<qint64> ids = selectedRunIds();
    const RunRecord* r = ids.size() == 1 ? m_runsModel->runById(ids.first()) : nullptr;
    if (!r) return;
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename run"), tr("New name of run %1:").arg(r->id),
                                               QLineEdit::Normal, QString::fromStdString(r->name), &ok);
    if (ok && !name.trimmed().isEmpty()) renameRun(r->id, name);
}

void MainWindow::editSelectedRunNotesDialog() {
    const QList<qint64> ids = selectedRunIds();
    const RunRecord* r = ids.size() == 1 ? m_runsModel->runById(ids.first()) : nullptr;
    if (!r) return;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Notes and tags of %1").arg(QString::fromStdString(r->name)));
    auto* tags = new QLineEdit(&dialog);
    QStringList current;
    for (const std::string& t : r->tags) current << QString::fromStdString(t);
    tags->setText(current.join(QStringLiteral(", ")));
    tags->setPlaceholderText(tr("comma-separated, e.g. baseline, lr-sweep"));
    auto* notes = new QPlainTextEdit(&dialog);
    notes->setPlainText(QString::fromStdString(r->notes));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* form = new QFormLayout(&dialog);
    form->addRow(tr("Tags:"), tags);
    form->addRow(tr("Notes:"), notes);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return;
    const qint64 id = r->id;
    setRunTags(id, tags->text().split(QLatin1Char(','), Qt::SkipEmptyParts));
    setRunNotes(id, notes->toPlainText());
}

void MainWindow::deleteSelectedRunsDialog() {
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty()) return;
    QStringList names, folders;
    for (qint64 id : ids) {
        if (const RunRecord* r = m_runsModel->runById(id)) {
            names << QStringLiteral("%1 (#%2)").arg(QString::fromStdString(r->name)).arg(id);
            if (!r->outputDir.empty()) folders << QDir::toNativeSeparators(QString::fromStdString(r->outputDir));
        }
    }
    folders.removeDuplicates();
    QMessageBox box(
        QMessageBox::Warning, tr("Delete runs"),
        tr("Delete %n run(s) from the history? Their metrics and logs are removed.", nullptr, int(ids.size())),
        QMessageBox::Cancel, this);
    box.setInformativeText(names.join(QLatin1Char('\n')));
    QPushButton* del = box.addButton(tr("Delete"), QMessageBox::DestructiveRole);
    auto* withFiles =
        new QCheckBox(tr("Also delete checkpoints and outputs:\n%1").arg(folders.join(QLatin1Char('\n'))), &box);
    withFiles->setVisible(!folders.isEmpty());
    box.setCheckBox(withFiles);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != del) return;
    deleteRuns(ids, withFiles->isChecked());
}

}  // namespace fts
