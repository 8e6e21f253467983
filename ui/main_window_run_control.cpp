// MainWindow, run control: Start (a new run in a folder of its own), Resume, Stop & save, Stop now, the ZeRO
// probe, and attaching a launched supervisor to its run when it appears in the store.
#include "ui/main_window.h"

#include <sys/types.h>

#include <QSpinBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <utility>

#include "ui/config_editor.h"
#include "ui/config_field_values.h"
#include "ui/json_text_edit.h"
#include "ui/config_form.h"
#include "ui/device_panel.h"
#include "ui/hosts_panel.h"
#include "ui/device_list.h"
#include "ui/run_folder.h"
#include "ui/run_launcher.h"
#include "ui/run_view.h"
#include "ui/runs_table_model.h"
#include "core/util/checkpoint_dir.h"
#include "ui/export_dialog.h"
#include "ui/probe_dialog.h"
#include "core/util/json_parse.h"

namespace fts {

namespace {

constexpr int kPendingGoneTicks = 4;  // the process is gone and no run appeared for ~2 s: give up

}  // namespace

std::optional<QString> MainWindow::launchConfigFile(QString* why) const {
    LaunchConfigRequest request;
    request.text = m_editor->text();
    request.originPath = m_configPath;
    request.modified = m_editor->isModified();
    request.baseDir = m_editor->baseDir();
    request.dataDir = m_options.dataDir;
    request.stem = QStringLiteral("config");
    return prepareLaunchConfig(request, why);
}

std::optional<qint64> MainWindow::startRun(QString* error) {
    const auto fail = [&](const QString& why) -> std::optional<qint64> {
        if (error) *error = why;
        showMessage(why, true);
        return std::nullopt;
    };
    if (m_pending) return fail(tr("A run is being started; wait until it appears in the list."));
    if (!m_editor->isValidated()) return fail(tr("The config is still being validated."));
    if (m_editor->hasErrors()) return fail(tr("The config has errors; fix them first."));
    if (m_editorHasSweep)  // refused before anything is written: a sweep's runs are queued
        return fail(tr("This config has a sweep block: its runs are queued, not started. Use Add to queue."));

    // The run's own folder: the config's output_dir when no other run holds it; when it came with the config
    // (the quick-start, an opened file, "Start from this run") and is taken, "<name>-k" in "<output_dir>-k".
    QString why;
    const auto absolute = absolutizeConfigPaths(m_editor->text(), m_editor->baseDir(), &why);
    if (!absolute) return fail(why);
    const nlohmann::json config = parseJson(absolute->toStdString());
    const bool inherited = configOutputDirText(m_editor->text()) == m_loadedOutputDir;
    const QString defaultName =
        m_configPath.isEmpty() ? QStringLiteral("run") : QFileInfo(m_configPath).completeBaseName();
    const auto folder = pickRunFolder(config, defaultName, TakenRuns::fromRuns(m_runsModel->runs()), inherited, &why);
    if (!folder) return fail(why);

    // SSH hosts chosen: this machine and those hosts go in a hostfile in the run's folder (docs/multinode.md).
    QStringList placement = placementArguments(m_form->ranksSpin()->value(), m_form->devicePanel()->selectedGpus());
    QString hostfileText;
    const QList<RemoteHostChoice> remote = m_form->hostsPanel()->selectedHosts();
    if (!remote.isEmpty()) {
        const MultiHostLaunch plan =
            multiHostLaunch(m_form->devicePanel()->selectedGpus(), m_form->ranksSpin()->value(), remote);
        hostfileText = plan.hostfileText;
        placement = {QStringLiteral("--hostfile"), runLaunchFiles(folder->outputDir).hostfilePath,
                     QStringLiteral("--include"), plan.include};
    }
    RunLaunchFiles files;
    if (!writeRunLaunch(*folder, config, placement, hostfileText, &files, &why)) return fail(why);
    TrainLaunch launch{m_options.cliPath, files.configPath, m_options.storePath, files.logPath, placement};
    launch.force = std::exchange(m_forceStart, false);
    const auto started = startTrainDetached(launch, &why);
    if (!started) return fail(why);
    m_pending = PendingStart{started->pid, files.configPath, started->logPath, 0};
    m_startedText = m_editor->text();  // kept in the run's folder: leaving it unchanged asks nothing
    m_pendingTimer.start();
    QString text = tr("Starting the run \"%1\" (supervisor pid %2) in %3…")
                       .arg(folder->runName)
                       .arg(started->pid)
                       .arg(QDir::toNativeSeparators(folder->outputDir));
    if (folder->derived)
        text += QLatin1Char(' ') + tr("Its config's folder holds another run, so this run got a folder of its own.");
    showMessage(text, false);
    updateActions();
    m_poller->pollNow();
    emit runLaunched(started->pid, files.configPath);
    return started->pid;
}

std::optional<qint64> MainWindow::resumeRun(qint64 runId, QString* error) {
    const auto fail = [&](const QString& why) -> std::optional<qint64> {
        if (error) *error = why;
        showMessage(why, true);
        return std::nullopt;
    };
    if (m_pending) return fail(tr("A run is being started; wait until it appears in the list."));
    const RunRecord* r = m_runsModel->runById(runId);
    if (!r) return fail(tr("Run %1 is not in the store.").arg(runId));
    QString why;
    const auto plan = planResume(*r, supervisorAlive(*r), &why);
    if (!plan) return fail(why);
    const auto started = startTrainDetached(
        {m_options.cliPath, plan->configPath, m_options.storePath, plan->logPath, plan->placement, true}, &why);
    if (!started) return fail(why);
    m_pending = PendingStart{started->pid, plan->configPath, started->logPath, 0, true};
    m_pendingTimer.start();
    showMessage(tr("Resuming run \"%1\" from its last checkpoint (supervisor pid %2)…")
                    .arg(QString::fromStdString(r->name))
                    .arg(started->pid),
                false, runId);
    updateActions();
    m_poller->pollNow();
    emit runLaunched(started->pid, plan->configPath);
    return started->pid;
}

bool MainWindow::supervisorAlive(const RunRecord& r) const {
    // A supervisor on another host cannot be checked from here: taken as alive (never resume it twice).
    if (r.host != RunStore::localHostName()) return true;
    return r.pid > 0 && processAlive(r.pid);
}

bool MainWindow::canResume(qint64 runId) const {
    const RunRecord* r = m_runsModel->runById(runId);
    return r && !m_pending && runIsResumable(*r, supervisorAlive(*r));
}

bool MainWindow::canExport(qint64 runId) const {
    const RunRecord* r = m_runsModel->runById(runId);
    if (!r || r->status == RunStatus::Running || r->status == RunStatus::Pending || r->outputDir.empty()) return false;
    std::error_code ec;
    return !latestCheckpoint(r->outputDir).empty() ||
           std::filesystem::exists(std::filesystem::path(r->outputDir) / "final", ec);
}

ExportDialog* MainWindow::openExportDialog(qint64 runId) {
    const RunRecord* r = m_runsModel->runById(runId);
    if (!r || !canExport(runId)) {
        showMessage(tr("This run has no checkpoint to export yet."), true);
        return nullptr;
    }
    auto* dialog = new ExportDialog(m_options.cliPath, QString::fromStdString(r->outputDir),
                                    QString::fromStdString(r->name), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

std::optional<QString> MainWindow::configForLocalRanks(const QString& hostsLeftOut) {
    if (!m_editor->isValidated() || m_editor->hasErrors()) {
        showMessage(tr("The config has errors; fix them first."), true);
        return std::nullopt;
    }
    QString why;
    const auto configPath = launchConfigFile(&why);
    if (!configPath) {
        showMessage(why, true);
        return std::nullopt;
    }
    if (!m_form->hostsPanel()->selectedHosts().isEmpty()) showMessage(hostsLeftOut, false);
    return configPath;
}

void MainWindow::reportConfigChanges(const QStringList& changes, QLabel* status) {
    const QString text = changes.isEmpty() ? tr("The config already uses this variant.")
                                           : tr("Changed in the config: %1").arg(changes.join(QStringLiteral("; ")));
    status->setText(text);
    showMessage(text, false);
}

ProbeDialog* MainWindow::openProbeDialog() {
    const auto configPath =
        configForLocalRanks(tr("The probe runs on this machine's ranks only; the SSH hosts are left out."));
    if (!configPath) return nullptr;
    auto* dialog =
        new ProbeDialog(m_options.cliPath, *configPath, m_options.storePath,
                        placementArguments(m_form->ranksSpin()->value(), m_form->devicePanel()->selectedGpus()), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProbeDialog::finishedProbe, this, [this] { m_poller->pollNow(); });
    connect(dialog, &ProbeDialog::variantChosen, this, [this, dialog](const QString& variantJson) {
        reportConfigChanges(applyProbeVariant(variantJson), dialog->statusLabel());
    });
    dialog->show();
    return dialog;
}

QStringList MainWindow::applyProbeVariant(const QString& variantJson) {
    const nlohmann::json variant = parseJsonOrDiscarded(variantJson.toStdString());
    const QString text = m_editor->text();
    OrderedJson doc = parseOrderedJsonOrDiscarded(text.toStdString());
    if (!doc.is_object() || !variant.is_object()) return {};
    const OrderedJson before = doc;
    QStringList changes;
    const auto shown = [this](const OrderedJson* v) { return v ? QString::fromStdString(v->dump()) : tr("(not set)"); };
    const QString zero = QStringLiteral("deepspeed.zero_optimization.");
    const OrderedJson stage = variant.value("stage", 0);
    if (const OrderedJson* now = jsonAt(doc, zero + QStringLiteral("stage")); !now || *now != stage) {
        changes << QStringLiteral("%1stage: %2 → %3").arg(zero, shown(now), shown(&stage));
        setJsonAt(doc, zero + QStringLiteral("stage"), stage);
    }
    for (const char* name : {"offload_optimizer", "offload_param"}) {
        const std::string device = variant.value(name, std::string("none"));
        const QString key = zero + QString::fromLatin1(name);
        const OrderedJson* now = jsonAt(doc, key);
        const std::string nowDevice = now && now->is_object() && now->contains("device") && (*now)["device"].is_string()
                                          ? (*now)["device"].get<std::string>()
                                          : "none";
        if (nowDevice == device) continue;  // as written (pin_memory, nvme_path, ... kept)
        const QString before = shown(now);
        if (device == "none") {
            removeJsonAt(doc, key);
        } else {
            setJsonAt(doc, key, OrderedJson{{"device", device}});
        }
        changes << QStringLiteral("%1: %2 → %3").arg(key, before, shown(jsonAt(doc, key)));
    }
    if (!changes.isEmpty())
        m_editor->replaceText(
            editedJsonText(text, before, doc,
                           {zero + QStringLiteral("stage"), zero + QStringLiteral("offload_optimizer"),
                            zero + QStringLiteral("offload_param")}));
    return changes;
}

// fts train refused the run before it started because its memory estimate exceeds the free memory of the device
// (core/launch/memory_preflight.h): say so in the studio's words, with fts's lines (the estimate, the free memory,
// the changes that fit) as details, and offer to start it anyway.
bool MainWindow::offerStartDespiteMemory(const PendingStart& gone) {
    if (gone.resume || gone.logPath.isEmpty()) return false;
    QFile log(gone.logPath);
    if (!log.open(QIODevice::ReadOnly)) return false;
    if (log.size() > 65536) log.seek(log.size() - 65536);
    const QString text = QString::fromUtf8(log.readAll());
    const qsizetype at = text.lastIndexOf(QStringLiteral("the memory estimate does not fit"));
    if (at < 0) return false;
    const qsizetype lineStart = text.lastIndexOf(QLatin1Char('\n'), at) + 1;
    QMessageBox box(QMessageBox::Warning, tr("The run was not started"),
                    tr("Its memory estimate does not fit the free memory of the device it would use, so it would "
                       "probably run out of memory. The details list the estimate, the free memory and the changes "
                       "that would fit; change the config, or start it anyway."),
                    QMessageBox::Cancel, this);
    box.setDetailedText(text.mid(lineStart).trimmed());
    QPushButton* start = box.addButton(tr("Start anyway"), QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != start) {
        showMessage(tr("The run was not started: its memory estimate does not fit the device's free memory."), true);
        return true;
    }
    m_forceStart = true;
    startRun();
    return true;
}

void MainWindow::checkPendingStart() {
    if (!m_pending) {
        m_pendingTimer.stop();
        return;
    }
    if (processAlive(m_pending->pid)) {
        m_pending->goneTicks = 0;
        return;
    }
    // Gone: give the poller a few ticks to list the run it may have written before exiting.
    m_poller->pollNow();
    if (++m_pending->goneTicks < kPendingGoneTicks) return;
    const PendingStart gone = *m_pending;
    m_pending.reset();
    m_pendingTimer.stop();
    updateActions();
    if (offerStartDespiteMemory(gone)) return;
    showMessage(tr("The run exited before it appeared in the store. See its log: %1")
                    .arg(QDir::toNativeSeparators(gone.logPath)),
                true);
}

// A run this window started shows up (same supervisor pid or config file): select it.
void MainWindow::attachPendingStart(const RunList& runs) {
    if (!m_pending) return;
    for (const RunRecord& r : runs) {
        const bool samePid = r.pid == m_pending->pid;
        const bool sameConfig =
            !m_pending->resume && !r.configPath.empty() &&
            QFileInfo(QString::fromStdString(r.configPath)).absoluteFilePath() == m_pending->configPath;
        if (samePid || sameConfig) {
            m_pending.reset();
            m_pendingTimer.stop();
            showMessage(QString(), false);
            selectRun(r.id);
            emit runAttached(r.id);
            return;
        }
    }
}

void MainWindow::stopSelectedRun() {
    const qint64 id = m_runView->runId();
    if (id <= 0) return;
    m_runView->setStopPending(true);
    m_poller->requestStop(id);
    updateActions();
}

void MainWindow::stopRunNow(qint64 runId, bool askFirst) {
    if (runId <= 0) return;
    if (askFirst &&
        QMessageBox::question(this, tr("Stop now"),
                              tr("Kill the run's workers without writing a checkpoint? The steps since the last "
                                 "saved checkpoint are lost. (Stop & save checkpoints first.)"),
                              QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    const bool firstSent = m_runView->runId() == runId && m_runView->isStopPending();
    if (m_runView->runId() == runId) m_runView->setStopPending(true);
    if (!firstSent) m_poller->requestStop(runId);
    // The supervisor reads its signals in batches: the second must arrive after it took the first.
    QTimer::singleShot(firstSent ? 0 : kSecondStopDelayMs, this, [this, runId] { m_poller->requestStop(runId); });
    showMessage(tr("Stopping run %1 without a checkpoint…").arg(runId), false, runId);
    updateActions();
}

void MainWindow::onStopRequested(qint64 runId, bool ok, const QString& message) {
    if (!ok && runId == m_runView->runId()) m_runView->setStopPending(false);
    showMessage(message, !ok, runId);
    updateActions();
}

}  // namespace fts
