// MainWindow's plan and queue: "Fit to my hardware" (the plan dialog and its Apply), "Add to queue" and the Queue page
// (see main_window.h).
#include "ui/main_window.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSpinBox>

#include <nlohmann/json.hpp>

#include "core/util/json_parse.h"
#include "ui/cli_process.h"
#include "ui/config_editor.h"
#include "ui/config_field_values.h"
#include "ui/config_form.h"
#include "ui/device_list.h"
#include "ui/device_panel.h"
#include "ui/hosts_panel.h"
#include "ui/json_text_edit.h"
#include "ui/multi_host_launch.h"
#include "ui/plan_dialog.h"
#include "ui/queue_page.h"
#include "ui/run_launcher.h"

namespace fts {

namespace {

// `fts queue add`'s notes and warnings about a sweep (its stderr), one line each in the studio's words where they
// follow a known pattern: a swept key mapped to the key that rules it; others as fts wrote them.
QString sweepNotes(const QString& err) {
    static const QRegularExpression mapped(
        QStringLiteral("^note: .*: sweep: (\\S+): each run also sets (\\S+) to the swept value"));
    static const QRegularExpression other(QStringLiteral("^(?:note|warning): .*?: sweep: (.*)$"));
    QStringList lines;
    for (const QString& line : err.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (const auto m = mapped.match(line); m.hasMatch())
            lines << MainWindow::tr(
                         "Sweeping %1 also sets %2 in each run: the scheduler sets the learning rate from "
                         "it every step.")
                         .arg(m.captured(1), m.captured(2));
        else if (const auto o = other.match(line); o.hasMatch())
            lines << o.captured(1);
    }
    return lines.join(QLatin1Char('\n'));
}

// `fts queue add`'s refusal in the studio's words where it is the sweep's own (an overridden swept key).
QString notQueuedReason(const QString& why) {
    static const QRegularExpression overridden(QStringLiteral(
        "^(?:.*: )?sweep\\.parameters\\.(\\S+): the config overrides or ignores it, so its runs would train alike: (.*)$"));
    if (const auto m = overridden.match(why); m.hasMatch())
        return MainWindow::tr(
                   "the sweep's key %1 does nothing in this config (another key overrides it), so its runs "
                   "would train alike. Details: %2")
            .arg(m.captured(1), m.captured(2));
    return why;
}

}  // namespace

PlanDialog* MainWindow::openPlanDialog() {
    const auto configPath =
        configForLocalRanks(tr("The plan measures this machine's ranks only; the SSH hosts are left out."));
    if (!configPath) return nullptr;
    auto* dialog =
        new PlanDialog(m_options.cliPath, *configPath, m_options.storePath,
                       placementArguments(m_form->ranksSpin()->value(), m_form->devicePanel()->selectedGpus()), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PlanDialog::finishedPlan, this, [this] { m_poller->pollNow(); });
    connect(dialog, &PlanDialog::applyRequested, this, [this, dialog](const QString& changesJson) {
        reportConfigChanges(applyPlanChanges(changesJson), dialog->statusLabel());
    });
    dialog->show();
    return dialog;
}

QStringList MainWindow::applyPlanChanges(const QString& changesJson) {
    const nlohmann::json changes = parseJsonOrDiscarded(changesJson.toStdString());
    const QString text = m_editor->text();
    OrderedJson doc = parseOrderedJsonOrDiscarded(text.toStdString());
    if (!doc.is_object() || !changes.is_array()) return {};
    const OrderedJson before = doc;
    QStringList lines, keys;
    const auto shown = [this](const OrderedJson* v) { return v ? QString::fromStdString(v->dump()) : tr("(not set)"); };
    for (const nlohmann::json& c : changes) {
        if (!c.is_object() || !c.contains("key") || !c.contains("after")) continue;
        const QString key = QString::fromStdString(c.at("key").get<std::string>());
        const OrderedJson value = parseOrderedJsonOrDiscarded(c.at("after").get<std::string>());
        if (value.is_discarded()) continue;
        const OrderedJson* now = jsonAt(doc, key);
        if (now && *now == value) continue;
        const QString was = shown(now);
        setJsonAt(doc, key, value);
        lines << QStringLiteral("%1: %2 → %3").arg(key, was, shown(&value));
        keys << key;
    }
    if (!lines.isEmpty()) m_editor->replaceText(editedJsonText(text, before, doc, keys));
    return lines;
}

bool MainWindow::addConfigToQueue() {
    if (!m_editor->isValidated() || m_editor->hasErrors()) {
        showMessage(tr("The config has errors; fix them first."), true);
        return false;
    }
    QString why;
    const auto absolute = absolutizeConfigPaths(m_editor->text(), m_editor->baseDir(), &why);
    if (!absolute) {
        showMessage(why, true);
        return false;
    }
    // The queue keeps its own copy of the config (resolved); this file is what `fts queue add` reads.
    const QString dir = QDir(m_options.dataDir).filePath(QStringLiteral("configs"));
    QDir().mkpath(dir);
    const QString stem = m_configPath.isEmpty() ? QStringLiteral("queued") : QFileInfo(m_configPath).completeBaseName();
    const QString file = QDir(dir).filePath(
        QStringLiteral("%1-queued-%2.json")
            .arg(stem, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
    QFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(absolute->toUtf8()) < 0) {
        showMessage(tr("Could not write %1.").arg(QDir::toNativeSeparators(file)), true);
        return false;
    }
    out.close();
    // The devices as the form chose them: GPUs by id, or ranks on the CPU or on any GPUs.
    const QList<int> gpus = m_form->devicePanel()->selectedGpus();
    const int ranks = m_form->ranksSpin()->value();
    const nlohmann::json config = parseJsonOrDiscarded(absolute->toStdString());
    std::string device = "auto";
    if (config.is_object() && config.contains("training") && config["training"].is_object())
        device = config["training"].value("device", std::string("auto"));
    QString devices = QStringLiteral("auto");
    if (!gpus.isEmpty()) {
        QStringList ids;
        for (int g : gpus) ids << QString::number(g);
        devices = QStringLiteral("localhost:") + ids.join(QLatin1Char(','));
    } else if (device == "cpu") {
        devices = ranks > 1 ? QStringLiteral("cpu:%1").arg(ranks) : QStringLiteral("cpu");
    } else if (ranks > 1) {
        devices = QStringLiteral("gpus:%1").arg(ranks);
    }
    // SSH hosts chosen: this machine and those hosts in a hostfile beside the queued config, with the GPUs chosen on
    // each as DeepSpeed's include (as a started run gets them); the runner holds every one of them while it runs.
    const QList<RemoteHostChoice> remote = m_form->hostsPanel()->selectedHosts();
    if (!remote.isEmpty()) {
        const MultiHostLaunch plan = multiHostLaunch(gpus, ranks, remote);
        const QString hostfile = file.left(file.size() - 5) + QStringLiteral(".hostfile");
        QFile h(hostfile);
        if (!h.open(QIODevice::WriteOnly) || h.write(plan.hostfileText.toUtf8()) < 0) {
            showMessage(tr("Could not write %1.").arg(QDir::toNativeSeparators(hostfile)), true);
            return false;
        }
        devices = QStringLiteral("hostfile:%1;include=%2").arg(hostfile, plan.include);
    }
    m_queuePage->runQueueCommand({QStringLiteral("add"), file, QStringLiteral("--devices"), devices},
                                 [this](int code, const QString& err) {
                                     if (code != 0) {
                                         QString why = err;
                                         if (why.startsWith(QStringLiteral("error: "))) why = why.mid(7);
                                         showMessage(tr("Not queued: %1").arg(notQueuedReason(why)), true);
                                         return;
                                     }
                                     // a runner listed a moment ago may be leaving: start one regardless (it
                                     // leaves at once when another holds the queue, which then looks again)
                                     m_queuePage->startRunner();
                                     showQueuePage();
                                     QString text = tr("Queued. It starts when its devices are free.");
                                     const QString notes = sweepNotes(err);
                                     if (!notes.isEmpty()) text += QLatin1Char('\n') + notes;
                                     showMessage(text, false);
                                 });
    return true;
}

void MainWindow::showQueuePage() {
    m_queuePage->setBackToEditorShown(!m_editor->text().trimmed().isEmpty());
    showPage(Page::Queue);
}

}  // namespace fts
