// The Queue page (see queue_page.h): the queue read and changed through `fts queue` child processes.
#include "ui/queue_page.h"
#include "ui/cli_process.h"

#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <functional>

#include "core/util/json_parse.h"

namespace fts {

namespace {

enum Column { kName, kState, kDevices, kWhy, kRun, kSweep, kColumns };

// The runner's sentences in the studio's language where they follow a known pattern; others as written.
QString reasonText(const QString& reason) {
    static const QRegularExpression cpu(
        QStringLiteral("^waiting for (\\d+) CPU slots? \\((\\d+) of (\\d+) in use\\)$"));
    static const QRegularExpression gpu(QStringLiteral("^waiting for (\\d+) GPUs? \\((\\d+) of (\\d+) in use\\)$"));
    static const QRegularExpression behind(
        QStringLiteral("^waiting behind entry (\\d+) \\((.*)\\) for the same devices$"));
    if (const auto m = cpu.match(reason); m.hasMatch())
        return QueuePage::tr("waiting for %1 CPU slot(s) (%2 of %3 in use)")
            .arg(m.captured(1), m.captured(2), m.captured(3));
    if (const auto m = gpu.match(reason); m.hasMatch())
        return QueuePage::tr("waiting for %1 GPU(s) (%2 of %3 in use)")
            .arg(m.captured(1), m.captured(2), m.captured(3));
    if (const auto m = behind.match(reason); m.hasMatch())
        return QueuePage::tr("waiting behind entry %1 (%2) for the same devices").arg(m.captured(1), m.captured(2));
    static const QRegularExpression gpus(QStringLiteral("^needs (\\d+) GPUs?; this machine has (\\d+)$"));
    static const QRegularExpression cpuSlots(
        QStringLiteral("^needs (\\d+) CPU slots; the queue runner has (\\d+) .*$"));
    static const QRegularExpression gpuId(QStringLiteral("^needs GPU (\\d+), which this machine does not have$"));
    static const QRegularExpression stopped(QStringLiteral("^stopped at step (\\d+) \\(outside the queue.*$"));
    static const QRegularExpression cancelledAt(QStringLiteral("^cancelled at step (\\d+)$"));
    if (const auto m = gpus.match(reason); m.hasMatch())
        return QueuePage::tr("needs %1 GPU(s); this machine has %2").arg(m.captured(1), m.captured(2));
    if (const auto m = cpuSlots.match(reason); m.hasMatch())
        return QueuePage::tr("needs %1 CPU slots; the queue runner has %2").arg(m.captured(1), m.captured(2));
    if (const auto m = gpuId.match(reason); m.hasMatch())
        return QueuePage::tr("needs GPU %1, which this machine does not have").arg(m.captured(1));
    if (const auto m = stopped.match(reason); m.hasMatch())
        return QueuePage::tr("stopped at step %1 outside the queue (resume it from its run page)").arg(m.captured(1));
    if (const auto m = cancelledAt.match(reason); m.hasMatch())
        return QueuePage::tr("cancelled at step %1").arg(m.captured(1));
    static const QRegularExpression target(
        QStringLiteral("^the sweep's target was reached by (.*) \\((\\S+) (\\S+) reached the target (\\S+)\\)$"));
    if (const auto m = target.match(reason); m.hasMatch())
        return QueuePage::tr("not started: %1 reached the sweep's target (%2 %3, target %4)")
            .arg(m.captured(1), m.captured(2), m.captured(3), m.captured(4));
    if (reason == QStringLiteral("cancelled")) return QueuePage::tr("cancelled");
    if (reason.startsWith(QStringLiteral("interrupted: ")))
        return QueuePage::tr("interrupted; resumes from its checkpoint");
    if (reason == QStringLiteral("cancelled before it started")) return QueuePage::tr("cancelled before it started");
    return reason;
}

bool waitingIn(const nlohmann::json& entries) {
    for (const nlohmann::json& e : entries)
        if (e.value("status", std::string()) == "waiting") return true;
    return false;
}

QString devicesText(const QString& devices) {
    if (devices == QStringLiteral("auto")) return QueuePage::tr("one GPU, else the CPU");
    if (devices == QStringLiteral("cpu")) return QueuePage::tr("CPU");
    if (devices.startsWith(QStringLiteral("cpu:"))) return QueuePage::tr("CPU, %1 ranks").arg(devices.mid(4));
    if (devices.startsWith(QStringLiteral("gpus:"))) return QueuePage::tr("%1 GPU(s)").arg(devices.mid(5));
    if (devices.startsWith(QStringLiteral("localhost:"))) return QueuePage::tr("GPU %1").arg(devices.mid(10));
    return devices;  // hostfile:PATH
}

}  // namespace

QueuePage::QueuePage(const QString& cliPath, const QString& storePath, QWidget* parent)
    : QWidget(parent), m_cli(cliPath), m_store(storePath) {
    auto* v = new QVBoxLayout(this);
    m_intro = new QLabel(this);
    m_intro->setWordWrap(true);
    v->addWidget(m_intro);
    auto* top = new QHBoxLayout;
    m_runner = new QLabel(this);
    m_runner->setObjectName(QStringLiteral("queueRunnerLabel"));
    top->addWidget(m_runner, 1);
    m_start = new QPushButton(this);
    m_start->setObjectName(QStringLiteral("queueStartRunner"));
    connect(m_start, &QPushButton::clicked, this, [this] { startRunner(); });
    top->addWidget(m_start);
    m_back = new QPushButton(this);
    m_back->setObjectName(QStringLiteral("queueBackToEditor"));
    m_back->hide();
    connect(m_back, &QPushButton::clicked, this, &QueuePage::editorRequested);
    top->addWidget(m_back);
    v->addLayout(top);
    m_table = new QTableWidget(0, kColumns, this);
    m_table->setObjectName(QStringLiteral("queueTable"));
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(kWhy, QHeaderView::Stretch);
    for (int c : {kState, kDevices, kRun, kSweep})
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &QueuePage::updateButtons);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem* run = m_table->item(row, kRun);
        if (run && run->data(Qt::UserRole).toLongLong() > 0) emit runActivated(run->data(Qt::UserRole).toLongLong());
    });
    v->addWidget(m_table, 1);
    auto* buttons = new QHBoxLayout;
    m_up = new QPushButton(this);
    m_up->setObjectName(QStringLiteral("queueUp"));
    m_down = new QPushButton(this);
    m_down->setObjectName(QStringLiteral("queueDown"));
    m_cancel = new QPushButton(this);
    m_cancel->setObjectName(QStringLiteral("queueCancel"));
    m_clear = new QPushButton(this);
    m_clear->setObjectName(QStringLiteral("queueClear"));
    m_compare = new QPushButton(this);
    m_compare->setObjectName(QStringLiteral("queueCompareSweep"));
    connect(m_up, &QPushButton::clicked, this, [this] { moveSelected(-1); });
    connect(m_down, &QPushButton::clicked, this, [this] { moveSelected(+1); });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (const qint64 id = selectedEntry(); id > 0) runQueueCommand({QStringLiteral("remove"), QString::number(id)});
    });
    connect(m_clear, &QPushButton::clicked, this, [this] { runQueueCommand({QStringLiteral("clear")}); });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row >= 0 && row < int(m_entries.size()) && !m_entries[size_t(row)].value("sweep", std::string()).empty())
            emit compareRequested(sweepRuns(m_entries[size_t(row)].value("submission", int64_t(0))));
    });
    for (QPushButton* b : {m_up, m_down, m_cancel, m_compare}) buttons->addWidget(b);
    buttons->addStretch();
    buttons->addWidget(m_clear);
    v->addLayout(buttons);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("queueStatus"));
    m_status->setWordWrap(true);
    v->addWidget(m_status);
    m_timer = new QTimer(this);
    m_timer->setInterval(kRefreshMs);
    connect(m_timer, &QTimer::timeout, this, &QueuePage::refresh);
    retranslate();
    updateButtons();
}

QueuePage::~QueuePage() {
    if (m_listing) {
        m_listing->disconnect(this);
        m_listing->kill();
        m_listing->waitForFinished(2000);
    }
}

void QueuePage::retranslate() {
    m_intro->setText(
        tr("Runs wait here for their devices (a GPU, a CPU slot or SSH hosts) and start in this order when "
           "they are free, also after the studio or the machine restarts. Add a config from the editor "
           "(Add to queue); a config with a sweep block adds each of its runs."));
    m_table->setHorizontalHeaderLabels(
        {tr("Name"), tr("State"), tr("Devices"), tr("Why / result"), tr("Run"), tr("Sweep")});
    m_start->setText(tr("Start the queue runner"));
    m_back->setText(tr("Back to the config"));
    m_back->setToolTip(tr("The config in the editor, as you left it (queued entries keep copies of their own)"));
    m_start->setToolTip(tr("Starts `fts queue run` in the background; it ends when the queue is empty"));
    m_up->setText(tr("Move up"));
    m_down->setText(tr("Move down"));
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(
        tr("A waiting run is cancelled; a running one saves a checkpoint and stops; a finished one "
           "leaves the list (its run stays)"));
    m_clear->setText(tr("Clear finished"));
    m_compare->setText(tr("Compare this sweep"));
    if (!m_entries.empty() || m_runnerPid != 0)
        showList({{"runner_pid", m_runnerPid}, {"entries", m_entries}});
    else
        m_runner->setText(tr("Queue runner: not running"));
}

void QueuePage::setBackToEditorShown(bool shown) { m_back->setVisible(shown); }

void QueuePage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void QueuePage::showEvent(QShowEvent* event) {
    m_timer->start();
    refresh();
    QWidget::showEvent(event);
}

void QueuePage::hideEvent(QHideEvent* event) {
    m_timer->stop();
    QWidget::hideEvent(event);
}

void QueuePage::refresh() {
    if (m_listing) return;
    m_listing = new QProcess(this);
    auto* out = new QByteArray;
    connect(m_listing, &QProcess::readyReadStandardOutput, this,
            [this, out] { *out += m_listing->readAllStandardOutput(); });
    connect(m_listing, &QProcess::finished, this, [this, out](int code, QProcess::ExitStatus status) {
        *out += m_listing->readAllStandardOutput();
        const QString err = QString::fromUtf8(m_listing->readAllStandardError()).trimmed();
        m_listing->deleteLater();
        m_listing = nullptr;
        const nlohmann::json list = parseJsonOrDiscarded(out->toStdString());
        delete out;
        if (status == QProcess::NormalExit && code == 0 && list.is_object()) {
            showList(list);
            if (m_pickUp) {
                m_pickUp = false;
                bool work = false;
                for (const nlohmann::json& e : m_entries)
                    work = work || e.value("status", std::string()) == "waiting" ||
                           e.value("status", std::string()) == "running";
                if (work && m_runnerPid == 0) startRunner();
            }
        } else if (!err.isEmpty()) {
            m_status->setText(tr("The queue could not be read: %1").arg(err));
        }
        emit listed();
    });
    whenCliFailsToStart(m_listing, m_cli, [this](const QString& message) {
        m_status->setText(message);
        if (m_listing) m_listing->deleteLater();
        m_listing = nullptr;
    });
    m_listing->start(m_cli, {QStringLiteral("queue"), QStringLiteral("list"), QStringLiteral("--json"),
                             QStringLiteral("--store"), m_store});
}

QString QueuePage::stateText(const std::string& status) const {
    if (status == "waiting") return tr("waiting");
    if (status == "running") return tr("running");
    if (status == "done") return tr("done");
    if (status == "failed") return tr("failed");
    if (status == "cancelled") return tr("cancelled");
    return QString::fromStdString(status);
}

void QueuePage::showList(const nlohmann::json& list) {
    const qint64 selected = selectedEntry();
    m_entries = list.value("entries", nlohmann::json::array());
    m_runnerPid = list.value("runner_pid", int64_t(0));
    // "asked to start" has had its answer once a runner is listed, or once nothing waits (it came and went)
    if (m_askedToStart && (m_runnerPid != 0 || !waitingIn(m_entries))) {
        m_askedToStart = false;
        m_status->clear();
    }
    m_runner->setText(m_runnerPid > 0   ? tr("Queue runner: running (process %1)").arg(m_runnerPid)
                      : m_runnerPid < 0 ? tr("Queue runner: running")
                                        : tr("Queue runner: not running"));
    m_table->setRowCount(int(m_entries.size()));
    int row = 0;
    for (const nlohmann::json& e : m_entries) {
        auto set = [&](int col, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            m_table->setItem(row, col, item);
            return item;
        };
        set(kName, QString::fromStdString(e.value("name", std::string())))
            ->setData(Qt::UserRole, qint64(e.value("id", int64_t(0))));
        const std::string status = e.value("status", std::string());
        QTableWidgetItem* state = set(kState, stateText(status));
        if (status == "failed") state->setForeground(QColor(0xc0, 0x1c, 0x28));
        if (status == "running") {
            QFont bold = state->font();
            bold.setBold(true);
            state->setFont(bold);
        }
        set(kDevices, devicesText(QString::fromStdString(e.value("devices", std::string()))));
        const QString reason = QString::fromStdString(e.value("reason", std::string()));
        const QString said = reasonText(reason);  // the tooltip: whole, and as the runner wrote it when translated
        set(kWhy, said)->setToolTip(said == reason ? reason : said + QLatin1Char('\n') + reason);
        const int64_t run = e.value("run_id", int64_t(0));
        set(kRun, run > 0 ? QString::number(run) : QString())->setData(Qt::UserRole, qint64(run));
        set(kSweep, QString::fromStdString(e.value("sweep", std::string())));
        ++row;
    }
    if (selected > 0) selectEntry(selected);
    updateButtons();
}

qint64 QueuePage::selectedEntry() const {
    const int row = m_table->currentRow();
    const QTableWidgetItem* item =
        row >= 0 && m_table->selectionModel()->hasSelection() ? m_table->item(row, kName) : nullptr;
    return item ? item->data(Qt::UserRole).toLongLong() : 0;
}

void QueuePage::selectEntry(qint64 entryId) {
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, kName)->data(Qt::UserRole).toLongLong() == entryId) {
            m_table->selectRow(row);
            return;
        }
}

QList<qint64> QueuePage::sweepRuns(int64_t submission) const {
    QList<qint64> runs;
    for (const nlohmann::json& e : m_entries)
        if (submission > 0 && e.value("submission", int64_t(0)) == submission && e.value("run_id", int64_t(0)) > 0)
            runs << qint64(e.value("run_id", int64_t(0)));
    return runs;
}

void QueuePage::updateButtons() {
    const int row = m_table->currentRow();
    const bool selected = selectedEntry() > 0;
    const QString state =
        selected ? QString::fromStdString(m_entries[size_t(row)].value("status", std::string())) : QString();
    const bool waiting = state == QStringLiteral("waiting");
    int waitingBefore = 0, waitingAfter = 0;
    for (int r = 0; r < int(m_entries.size()); ++r)
        if (m_entries[size_t(r)].value("status", std::string()) == "waiting")
            (r < row ? waitingBefore : waitingAfter)++;
    m_up->setEnabled(waiting && waitingBefore > 0);
    m_down->setEnabled(waiting && waitingAfter > (waiting ? 1 : 0));
    m_cancel->setEnabled(selected);
    const bool finishedEntry =
        state == QStringLiteral("done") || state == QStringLiteral("failed") || state == QStringLiteral("cancelled");
    m_cancel->setText(finishedEntry ? tr("Remove") : tr("Cancel"));
    const std::string sweep = selected ? m_entries[size_t(row)].value("sweep", std::string()) : std::string();
    m_compare->setEnabled(!sweep.empty() &&
                          sweepRuns(m_entries[size_t(row)].value("submission", int64_t(0))).size() >= 2);
    bool work = false, finished = false;
    for (const nlohmann::json& e : m_entries) {
        const std::string s = e.value("status", std::string());
        work = work || s == "waiting";
        finished = finished || s == "done" || s == "failed" || s == "cancelled";
    }
    m_clear->setEnabled(finished);
    m_start->setEnabled(work && m_runnerPid == 0);
}

void QueuePage::moveSelected(int delta) {
    const qint64 id = selectedEntry();
    if (id <= 0) return;
    int index = 0, at = -1;  // the entry's place among the waiting ones
    for (const nlohmann::json& e : m_entries) {
        if (e.value("status", std::string()) != "waiting") continue;
        if (e.value("id", int64_t(0)) == id) at = index;
        ++index;
    }
    if (at < 0) return;
    runQueueCommand({QStringLiteral("move"), QString::number(id), QString::number(std::max(1, at + 1 + delta))});
}

void QueuePage::runQueueCommand(const QStringList& args, std::function<void(int, const QString&)> done) {
    auto* p = new QProcess(this);
    connect(p, &QProcess::finished, this, [this, p, done](int code, QProcess::ExitStatus) {
        const QString err = QString::fromUtf8(p->readAllStandardError()).trimmed();
        p->deleteLater();
        if (code != 0 && !err.isEmpty()) m_status->setText(err);
        if (done) done(code, err);
        refresh();
    });
    whenCliFailsToStart(p, m_cli, [this, p](const QString& message) {
        m_status->setText(message);
        p->deleteLater();
    });
    p->start(m_cli, QStringList{QStringLiteral("queue")} + args + QStringList{QStringLiteral("--store"), m_store});
}

bool QueuePage::startRunner() {
    QProcess runner;
    runner.setProgram(m_cli);
    runner.setArguments({QStringLiteral("queue"), QStringLiteral("run"), QStringLiteral("--store"), m_store});
    runner.setStandardOutputFile(m_store + QStringLiteral(".queue-runner.log"), QIODevice::Append);
    runner.setStandardErrorFile(m_store + QStringLiteral(".queue-runner.log"), QIODevice::Append);
    qint64 pid = 0;
    if (!runner.startDetached(&pid)) {
        m_status->setText(tr("The queue runner could not be started (%1).").arg(m_cli));
        return false;
    }
    // the runner label says which runner holds the queue once it is listed (this one may leave at once: another
    // runner holds the queue, or nothing waits); this line names no process
    m_status->setText(
        tr("Queue runner asked to start; its log: %1").arg(m_store + QStringLiteral(".queue-runner.log")));
    m_askedToStart = true;
    QTimer::singleShot(500, this, &QueuePage::refresh);
    return true;
}

void QueuePage::pickUpQueue() {
    m_pickUp = true;
    refresh();
}

}  // namespace fts
