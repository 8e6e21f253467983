// HostsPanel (see hosts_panel.h).
#include "ui/hosts_panel.h"
#include "ui/cli_process.h"

#include <QDir>
#include <QEvent>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryFile>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/launch/hostfile.h"
#include "core/util/json_parse.h"
#include "ui/run_launcher.h"  // defaultCliPath()
#include "ui/studio_settings.h"

namespace fts {
namespace {
enum HostsColumn { HostColumn, SlotsColumn, StatusColumn, HostsColumnCount };
constexpr int kGpuRole = Qt::UserRole + 1;  // on GPU rows: the GPU id
}  // namespace

HostsPanel::HostsPanel(QWidget* parent) : QWidget(parent), m_cli(defaultCliPath()) {
    setObjectName(QStringLiteral("hostsPanel"));
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("hostsTree"));
    m_tree->setColumnCount(HostsColumnCount);
    m_tree->header()->setStretchLastSection(true);
    m_tree->header()->setSectionResizeMode(HostColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(SlotsColumn, QHeaderView::ResizeToContents);
    m_tree->setMinimumHeight(90);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("hostsStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_add = new QPushButton(this);
    m_import = new QPushButton(this);
    m_remove = new QPushButton(this);
    m_check = new QPushButton(this);
    m_add->setObjectName(QStringLiteral("hostsAdd"));
    m_import->setObjectName(QStringLiteral("hostsImport"));
    m_remove->setObjectName(QStringLiteral("hostsRemove"));
    m_check->setObjectName(QStringLiteral("hostsCheck"));
    connect(m_add, &QPushButton::clicked, this, &HostsPanel::askForHost);
    connect(m_import, &QPushButton::clicked, this, &HostsPanel::addFromSshConfig);
    connect(m_remove, &QPushButton::clicked, this, &HostsPanel::removeSelected);
    connect(m_check, &QPushButton::clicked, this, &HostsPanel::checkHosts);
    connect(m_tree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
        if (m_loading) return;
        if (column == SlotsColumn && !item->parent()) {  // CPU ranks: a whole number from 1
            bool ok = false;
            const int n = item->text(SlotsColumn).toInt(&ok);
            if (!ok || n < 1) {
                m_loading = true;
                item->setText(SlotsColumn, QStringLiteral("1"));
                m_loading = false;
            }
        }
        if (column == HostColumn || column == SlotsColumn) emit selectionChanged();
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_import);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    buttons->addWidget(m_check);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    m_loading = true;
    for (const QString& h : QSettings().value(QLatin1String(settings_keys::kHosts)).toStringList()) addHost(h);
    m_loading = false;
    retranslate();
}

HostsPanel::~HostsPanel() {
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(3000);
    }
}

QTreeWidgetItem* HostsPanel::itemFor(const QString& host) const {
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->text(HostColumn) == host) return m_tree->topLevelItem(i);
    return nullptr;
}

bool HostsPanel::addHost(const QString& host, QString* why) {
    const QString name = host.trimmed();
    const std::string problem = hostNameProblem(name.toStdString());
    if (!problem.empty()) {
        if (why) *why = QString::fromStdString(problem);
        return false;
    }
    if (isLocalHostName(name.toStdString())) {
        if (why) *why = tr("this machine is always part of the run; add the other hosts");
        return false;
    }
    if (itemFor(name)) return true;
    const bool wasLoading = m_loading;
    m_loading = true;
    auto* item = new QTreeWidgetItem(m_tree);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable | Qt::ItemIsEditable);
    item->setText(HostColumn, name);
    item->setCheckState(HostColumn, Qt::Unchecked);
    item->setText(SlotsColumn, QStringLiteral("1"));
    item->setText(StatusColumn, tr("not checked yet"));
    m_loading = wasLoading;
    if (!m_loading) save();
    return true;
}

QStringList HostsPanel::hosts() const {
    QStringList out;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) out << m_tree->topLevelItem(i)->text(HostColumn);
    return out;
}

QList<RemoteHostChoice> HostsPanel::selectedHosts() const {
    QList<RemoteHostChoice> out;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_tree->topLevelItem(i);
        if (item->checkState(HostColumn) != Qt::Checked) continue;
        RemoteHostChoice c;
        c.host = item->text(HostColumn);
        for (int g = 0; g < item->childCount(); ++g)
            if (item->child(g)->checkState(HostColumn) == Qt::Checked)
                c.gpus << item->child(g)->data(HostColumn, kGpuRole).toInt();
        c.cpuRanks = std::max(1, item->text(SlotsColumn).toInt());
        if (item->childCount() > 0 && c.gpus.isEmpty()) continue;  // a GPU host with no GPU picked takes no part
        out << c;
    }
    return out;
}

void HostsPanel::save() const { QSettings().setValue(QLatin1String(settings_keys::kHosts), hosts()); }

void HostsPanel::askForHost() {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Add an SSH host"),
                                               tr("Host name, ~/.ssh/config alias or address (ssh must reach it "
                                                  "without a password):"),
                                               QLineEdit::Normal, QString(), &ok);
    if (!ok || name.trimmed().isEmpty()) return;
    QString why;
    if (!addHost(name, &why))
        QMessageBox::warning(this, tr("Add an SSH host"), tr("\"%1\" cannot be used: %2").arg(name, why));
}

void HostsPanel::addFromSshConfig() {
    QFile f(QDir::home().filePath(QStringLiteral(".ssh/config")));
    if (!f.open(QIODevice::ReadOnly)) {
        m_status->setText(tr("No ~/.ssh/config to read hosts from."));
        return;
    }
    int added = 0;
    for (const QString& h : sshConfigHosts(QString::fromUtf8(f.readAll())))
        if (!itemFor(h) && addHost(h)) ++added;
    m_status->setText(tr("%n host(s) added from ~/.ssh/config.", nullptr, added));
}

void HostsPanel::removeSelected() {
    for (QTreeWidgetItem* item : m_tree->selectedItems())
        if (!item->parent()) delete item;  // GPU rows go with their host only
    save();
    emit selectionChanged();
}

void HostsPanel::checkHosts() {
    if (m_process) return;
    QStringList chosen;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->checkState(HostColumn) == Qt::Checked)
            chosen << m_tree->topLevelItem(i)->text(HostColumn);
    if (chosen.isEmpty()) chosen = hosts();
    if (chosen.isEmpty()) {
        m_status->setText(tr("Add a host first."));
        return;
    }
    delete m_hostfile;
    m_hostfile = new QTemporaryFile(QDir::temp().filePath(QStringLiteral("fts-hosts-XXXXXX")), this);
    if (!m_hostfile->open()) {
        m_status->setText(tr("Cannot write a temporary hostfile: %1").arg(m_hostfile->errorString()));
        return;
    }
    for (const QString& h : chosen) m_hostfile->write(QStringLiteral("%1 slots=1\n").arg(h).toUtf8());
    m_hostfile->flush();
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this, [this] {
        const QByteArray out = m_process->readAllStandardOutput();
        const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
        m_process->deleteLater();
        m_process = nullptr;
        m_check->setEnabled(true);
        try {
            applyReport(parseJson(out.toStdString()));
        } catch (const std::exception&) {
            m_status->setText(tr("The check did not answer: %1")
                                  .arg(err.isEmpty() ? tr("no output") : err.section(QLatin1Char('\n'), -1)));
        }
        emit checked();
    });
    whenCliFailsToStart(m_process, m_cli, [this](const QString& message) {
        if (!m_process) return;
        m_status->setText(message);
        m_process->deleteLater();
        m_process = nullptr;
        m_check->setEnabled(true);
        emit checked();
    });
    m_check->setEnabled(false);
    m_status->setText(
        tr("Checking %n host(s): ssh, fts, GPUs, then collectives and links…", nullptr, int(chosen.size())));
    m_process->start(m_cli, {QStringLiteral("hosts"), QStringLiteral("check"), QStringLiteral("--json"),
                             QStringLiteral("--hostfile"), m_hostfile->fileName()});
}

void HostsPanel::applyReport(const nlohmann::json& report) {
    m_loading = true;
    for (const auto& h : report.value("hosts", nlohmann::json::array())) {
        QTreeWidgetItem* item = itemFor(QString::fromStdString(h.value("host", "")));
        if (!item) continue;
        if (!h.value("ok", false)) {
            item->setText(StatusColumn, QString::fromStdString(h.value("error", "")));
            item->setToolTip(StatusColumn, item->text(StatusColumn));
            continue;
        }
        const auto gpus = h.value("gpus", nlohmann::json::array());
        QList<int> before;
        for (int g = 0; g < item->childCount(); ++g)
            if (item->child(g)->checkState(HostColumn) == Qt::Checked)
                before << item->child(g)->data(HostColumn, kGpuRole).toInt();
        qDeleteAll(item->takeChildren());
        for (const auto& g : gpus) {
            auto* child = new QTreeWidgetItem(item);
            const int id = g.value("index", 0);
            child->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            child->setData(HostColumn, kGpuRole, id);
            child->setText(HostColumn, tr("GPU %1 · %2").arg(id).arg(QString::fromStdString(g.value("name", ""))));
            child->setText(StatusColumn, tr("%1 / %2 GiB in use")
                                             .arg(g.value("memory_used_mib", 0.0) / 1024.0, 0, 'f', 1)
                                             .arg(g.value("memory_total_mib", 0.0) / 1024.0, 0, 'f', 1));
            child->setCheckState(HostColumn, before.isEmpty() || before.contains(id) ? Qt::Checked : Qt::Unchecked);
        }
        item->setFlags(gpus.empty() ? item->flags() | Qt::ItemIsEditable : item->flags() & ~Qt::ItemIsEditable);
        if (!gpus.empty())
            item->setText(SlotsColumn, tr("%n GPU(s)", nullptr, int(gpus.size())));
        else if (item->text(SlotsColumn).toInt() < 1)
            item->setText(SlotsColumn, QStringLiteral("1"));
        item->setText(
            StatusColumn,
            tr("reachable (%1), fts %2, %3")
                .arg(QString::fromStdString(h.value("hostname", "")), QString::fromStdString(h.value("fts", "")),
                     gpus.empty() ? tr("no GPU: CPU ranks") : tr("%n GPU(s)", nullptr, int(gpus.size()))));
        item->setToolTip(StatusColumn, item->text(StatusColumn));
        item->setExpanded(true);
    }
    m_loading = false;
    QStringList lines;
    for (const auto& c : report.value("checks", nlohmann::json::array())) {
        const QString what =
            c.value("test", "") == "link"
                ? tr("link %1 ↔ %2")
                      .arg(QString::fromStdString(c.value("from", "")), QString::fromStdString(c.value("to", "")))
                : QString::fromStdString(c.value("backend", "") + " " + c.value("test", ""));
        lines << (c.value("ok", false) ? tr("%1: %2 Gbit/s").arg(what).arg(c.value("gbps", 0.0), 0, 'f', 2)
                                       : tr("%1 failed: %2").arg(what, QString::fromStdString(c.value("message", ""))));
    }
    for (const auto& e : report.value("errors", nlohmann::json::array()))
        lines << QString::fromStdString(e.get<std::string>());
    m_status->setText(
        (report.value("ok", false) ? tr("All checks passed.") : tr("The hosts are not ready for training.")) +
        (lines.isEmpty() ? QString() : QStringLiteral("\n") + lines.join(QStringLiteral("; "))));
    emit selectionChanged();
}

void HostsPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void HostsPanel::retranslate() {
    m_tree->setHeaderLabels({tr("SSH host"), tr("Ranks"), tr("Status")});
    m_add->setText(tr("Add host…"));
    m_import->setText(tr("From ~/.ssh/config"));
    m_remove->setText(tr("Remove"));
    m_check->setText(tr("Check hosts"));
    m_check->setToolTip(
        tr("fts hosts check: reach each host over ssh in BatchMode, compare fts versions, list GPUs, "
           "then run broadcast, all-reduce and a transfer per pair of hosts"));
    m_tree->setToolTip(
        tr("Checked hosts train with this machine: their GPUs (or CPU ranks), one rank each. The same "
           "fts, config, model and data paths must exist on every host (docs/multinode.md)."));
}

}  // namespace fts
