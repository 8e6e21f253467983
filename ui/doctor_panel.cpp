// "Check this machine": fts doctor --json, shown as a table; see doctor_panel.h.
#include "ui/doctor_panel.h"
#include "ui/cli_process.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/util/json_parse.h"
#include "ui/issue_text.h"
#include "ui/studio_settings.h"

namespace fts {

DoctorPanel::DoctorPanel(QString cliPath, QString storePath, QWidget* parent)
    : QWidget(parent), m_cli(std::move(cliPath)), m_store(std::move(storePath)) {
    m_run = new QPushButton(tr("Check this machine"), this);
    m_run->setObjectName(QStringLiteral("doctorRun"));
    m_run->setToolTip(
        tr("GPUs, CUDA and NCCL, memory, disk, the run store's health, the Hugging Face cache and the "
           "ssh hosts (fts doctor)"));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_table = new QTableWidget(0, 3, this);
    m_table->setObjectName(QStringLiteral("doctorTable"));
    m_table->setHorizontalHeaderLabels({tr("Status"), tr("Check"), tr("Result")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setMinimumHeight(140);
    auto* top = new QHBoxLayout;
    top->addWidget(m_run);
    top->addWidget(m_status, 1);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->addLayout(top);
    v->addWidget(m_table, 1);
    connect(m_run, &QPushButton::clicked, this, &DoctorPanel::run);
}

DoctorPanel::~DoctorPanel() {
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

void DoctorPanel::addRow(const QString& level, const QString& topic, const QString& detail, const QString& fix) {
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    const QString shown = level == QLatin1String("ok")        ? tr("OK")
                          : level == QLatin1String("warning") ? tr("Warning")
                          : level == QLatin1String("error")   ? tr("Error")
                                                              : tr("Info");
    auto* status = new QTableWidgetItem(shown);
    status->setData(Qt::UserRole, level);
    if (level == QLatin1String("error")) status->setForeground(QColor(0xc0, 0x20, 0x20));
    if (level == QLatin1String("warning")) status->setForeground(QColor(0xb0, 0x70, 0x00));
    m_table->setItem(row, 0, status);
    // The topics in the studio's language, and the details and fixes through the catalogue of the core's templates
    // (paths, versions and messages without a template stay fts's own words).
    QString shownTopic = topic;
    if (topic == QLatin1String("runtime")) shownTopic = tr("Runtime");
    if (topic == QLatin1String("gpus") || topic == QLatin1String("gpu")) shownTopic = tr("GPUs");
    if (topic == QLatin1String("memory")) shownTopic = tr("Memory");
    if (topic == QLatin1String("store")) shownTopic = tr("Run store");
    if (topic == QLatin1String("disk (store)")) shownTopic = tr("Disk (run store)");
    if (topic == QLatin1String("hf cache")) shownTopic = tr("HF cache");
    if (topic.startsWith(QLatin1String("host "))) shownTopic = tr("Host %1").arg(topic.mid(5));
    auto* topicItem = new QTableWidgetItem(shownTopic);
    topicItem->setData(Qt::UserRole, topic);
    m_table->setItem(row, 1, topicItem);
    QString said = issueText(detail);
    if (topic == QLatin1String("runtime")) {  // "LibTorch 2.11.0 (CUDA runtime 13.0, cuDNN 9.19.0, NCCL not loaded)"
        const qsizetype open = detail.indexOf(QLatin1String(" ("));
        if (open > 0 && detail.endsWith(QLatin1Char(')'))) {
            QStringList parts = detail.mid(open + 2, detail.size() - open - 3).split(QStringLiteral(", "));
            for (QString& p : parts) p = issueText(p);
            said = detail.left(open) + QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
        }
    }
    auto* result = new QTableWidgetItem(fix.isEmpty() ? said : said + QStringLiteral("\n→ ") + issueText(fix));
    result->setToolTip(result->text());
    m_table->setItem(row, 2, result);
}

void DoctorPanel::run() {
    if (m_process) return;
    m_table->setRowCount(0);
    m_out.clear();
    m_errors = m_warnings = 0;
    m_run->setEnabled(false);
    m_status->setText(tr("Checking…"));
    QStringList args{QStringLiteral("doctor"), QStringLiteral("--json"), QStringLiteral("--store"), m_store};
    for (const QString& h : QSettings().value(QLatin1String(settings_keys::kHosts)).toStringList())
        args << QStringLiteral("--host") << h;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_out += m_process->readAllStandardOutput(); });
    connect(m_process, &QProcess::finished, this, [this](int, QProcess::ExitStatus) {
        for (const QByteArray& line : m_out.split('\n')) {
            const nlohmann::json j = parseJsonOrDiscarded(line.toStdString());
            if (!j.is_object()) continue;
            const QString level = QString::fromStdString(j.value("level", "info"));
            m_errors += level == QLatin1String("error");
            m_warnings += level == QLatin1String("warning");
            addRow(level, QString::fromStdString(j.value("topic", "")), QString::fromStdString(j.value("detail", "")),
                   QString::fromStdString(j.value("fix", "")));
        }
        const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
        if (m_table->rowCount() == 0)
            m_status->setText(tr("fts doctor gave no result: %1").arg(err));
        else
            m_status->setText(tr("%1 error(s), %2 warning(s)").arg(m_errors).arg(m_warnings));
        m_table->resizeRowsToContents();
        m_process->deleteLater();
        m_process = nullptr;
        m_run->setEnabled(true);
        emit finished(m_errors, m_warnings);
    });
    whenCliFailsToStart(m_process, m_cli, [this](const QString& message) {
        if (!m_process) return;
        m_status->setText(message);
        m_process->deleteLater();
        m_process = nullptr;
        m_run->setEnabled(true);
        emit finished(-1, 0);
    });
    m_process->start(m_cli, args);
}

}  // namespace fts
