// The "Fit to my hardware" dialog (see plan_dialog.h): `fts plan` in a QProcess, its stderr lines as progress and
// as rows while it probes, its JSON as the table and the proposal.
#include "ui/plan_dialog.h"
#include "ui/cli_process.h"

#include <QCloseEvent>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "core/config/memory_estimate.h"
#include "core/util/json_parse.h"

namespace fts {

namespace {

QString planBytes(int64_t b) { return QString::fromStdString(formatBytes(b)); }

QString offloadText(const std::string& device) {
    return device == "cpu" ? PlanDialog::tr("CPU") : PlanDialog::tr("NVMe");
}

}  // namespace

QString PlanDialog::describeVariant(const nlohmann::json& c) {
    QStringList parts;
    parts << tr("Stage %1").arg(c.value("zero_stage", 0));
    const std::string oo = c.value("offload_optimizer", std::string("none"));
    const std::string op = c.value("offload_param", std::string("none"));
    if (oo != "none") parts << tr("optimizer offload to %1").arg(offloadText(oo));
    if (op != "none") parts << tr("parameter offload to %1").arg(offloadText(op));
    parts << tr("micro-batch %1 × %2")
                 .arg(c.value("train_micro_batch_size_per_gpu", int64_t(1)))
                 .arg(c.value("gradient_accumulation_steps", int64_t(1)));
    if (c.value("activation_checkpointing", false)) parts << tr("checkpointing");
    parts << (c.value("chunked_loss", true) ? tr("chunked loss") : tr("whole logits"));
    return parts.join(QStringLiteral(", "));
}

QString PlanDialog::adviceText(const nlohmann::json& a, const nlohmann::json& candidates) {
    if (!a.is_object()) return a.is_string() ? QString::fromStdString(a.get<std::string>()) : QString();
    const std::string kind = a.value("kind", std::string());
    const QString bytes = planBytes(a.value("bytes", int64_t(0)));
    const bool fits = a.value("fits", false);
    if (kind == "nothing_fits") {
        const size_t i = a.value("candidate", candidates.size());
        const QString variant = i < candidates.size() ? describeVariant(candidates[i]) : QString();
        return tr("The smallest estimate is %1 per rank (%2), over the %3 a rank may use.")
            .arg(bytes, variant, planBytes(a.value("usable_bytes", int64_t(0))));
    }
    if (kind == "more_gpus")
        return tr("More GPUs: with %1 ranks of this size, ZeRO stage 3 at micro-batch 1 with checkpointing needs %2 "
                  "per rank.")
            .arg(a.value("ranks", 0))
            .arg(bytes);
    if (kind == "nvme")
        return (fits ? tr("Fits with NVMe offload (stage 3, optimizer and parameters on NVMe with an nvme_path): %1 "
                          "per rank.")
                     : tr("Still over with NVMe offload (stage 3, optimizer and parameters on NVMe with an nvme_path): "
                          "%1 per rank."))
            .arg(bytes);
    if (kind == "qlora")
        return (fits ? tr("Fits as QLoRA (a 4-bit base with LoRA adapters instead of a full fine-tune; it trains "
                          "differently): %1 per rank.")
                     : tr("Still over as QLoRA (a 4-bit base with LoRA adapters instead of a full fine-tune; it "
                          "trains differently): %1 per rank."))
            .arg(bytes);
    if (kind == "probes_failed") {
        QString text = QString::fromStdString(a.value("text", std::string()));
        const qsizetype newline = text.indexOf(QLatin1Char('\n'));
        return tr("Every probe failed.") + (newline >= 0 ? text.mid(newline) : QString());
    }
    return QString::fromStdString(a.value("text", std::string()));
}

PlanDialog::PlanDialog(const QString& cliPath, const QString& configPath, const QString& storePath,
                       const QStringList& placement, QWidget* parent)
    : QDialog(parent), m_cli(cliPath), m_config(configPath), m_store(storePath), m_placement(placement) {
    setWindowTitle(tr("Fit to my hardware"));
    auto* v = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Finds the fastest way to train this config that fits the memory of a rank: ZeRO stage, offload, "
           "activation checkpointing, micro-batch with gradient accumulation (the global batch stays the same) and "
           "chunked loss. The estimate drops what does not fit; the most promising few are run for a few steps "
           "each (runs in the runs list, their checkpoints not kept)."),
        this);
    intro->setWordWrap(true);
    v->addWidget(intro);
    auto* options = new QHBoxLayout;
    options->addWidget(new QLabel(tr("Memory per rank:"), this));
    m_capacity = new QLineEdit(this);
    m_capacity->setObjectName(QStringLiteral("planCapacity"));
    m_capacity->setPlaceholderText(tr("free memory of the devices"));
    m_capacity->setToolTip(
        tr("The memory one rank may use, e.g. 24GiB; empty: the free memory of the devices, as a "
           "start judges it"));
    options->addWidget(m_capacity, 1);
    options->addWidget(new QLabel(tr("Probes:"), this));
    m_probes = new QSpinBox(this);
    m_probes->setRange(0, 16);
    m_probes->setValue(4);
    m_probes->setToolTip(tr("How many variants to run for a few steps (0: by the estimate alone)"));
    options->addWidget(m_probes);
    options->addWidget(new QLabel(tr("Time box (min):"), this));
    m_minutes = new QSpinBox(this);
    m_minutes->setRange(0, 240);
    m_minutes->setValue(10);
    m_minutes->setToolTip(tr("No probe starts once this much time has gone"));
    options->addWidget(m_minutes);
    v->addLayout(options);
    m_table = new QTableWidget(0, 5, this);
    m_table->setObjectName(QStringLiteral("planTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Variant"), tr("Estimate per rank"), tr("Measured peak"), tr("Tokens/s"), tr("State")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 5; ++c) m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    v->addWidget(m_table, 1);
    m_proposal = new QLabel(this);
    m_proposal->setObjectName(QStringLiteral("planProposal"));
    m_proposal->setWordWrap(true);
    m_proposal->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(m_proposal);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    v->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(this);
    m_run = buttons->addButton(tr("Plan"), QDialogButtonBox::ActionRole);
    m_run->setObjectName(QStringLiteral("planRunButton"));
    m_stop = buttons->addButton(tr("Stop"), QDialogButtonBox::ActionRole);
    m_stop->setEnabled(false);
    m_apply = buttons->addButton(tr("Apply"), QDialogButtonBox::ActionRole);
    m_apply->setObjectName(QStringLiteral("planApplyButton"));
    m_apply->setToolTip(tr("Write the proposal's keys (only those) into the config"));
    m_apply->setEnabled(false);
    QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
    close->setText(tr("Close"));
    connect(m_run, &QPushButton::clicked, this, &PlanDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &PlanDialog::stop);
    connect(m_apply, &QPushButton::clicked, this,
            [this] { emit applyRequested(QString::fromStdString(m_changes.dump())); });
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    v->addWidget(buttons);
    resize(820, 460);
}

PlanDialog::~PlanDialog() {
    if (m_process) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) m_process->kill();
    }
}

void PlanDialog::start() {
    if (m_process) return;
    m_stdout.clear();
    m_stderrTail.clear();
    m_stderrPartial.clear();
    m_changes = nlohmann::json::array();
    m_probed = 0;
    m_table->setRowCount(0);
    m_proposal->clear();
    m_apply->setEnabled(false);
    QStringList args{QStringLiteral("plan"),
                     m_config,
                     QStringLiteral("--json"),
                     QStringLiteral("--store"),
                     m_store,
                     QStringLiteral("--probes"),
                     QString::number(m_probes->value()),
                     QStringLiteral("--max-minutes"),
                     QString::number(m_minutes->value())};
    const QString capacity = m_capacity->text().trimmed();
    if (!capacity.isEmpty()) args << QStringLiteral("--capacity") << capacity;
    args << m_placement;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_stdout += m_process->readAllStandardOutput(); });
    onStderrLines(m_process, this, &m_stderrPartial, &m_stderrTail,
                  [this](const QByteArray& line) { processStderrLine(line); });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_stdout += m_process->readAllStandardOutput();
        finishProcess();
        const nlohmann::json result = parseJsonOrDiscarded(m_stdout.toStdString());
        if (status == QProcess::NormalExit && result.is_object() && result.contains("candidates")) {
            showResult(result);
            emit finishedPlan(code == 0);
            return;
        }
        QString why = QString::fromUtf8(m_stderrTail).trimmed();
        if (why.startsWith(QStringLiteral("error: "))) why = why.mid(7);
        m_status->setText(tr("The plan ended without a result: %1").arg(why));
        emit finishedPlan(false);
    });
    whenCliFailsToStart(m_process, m_cli, [this](const QString& message) {
        if (!m_process) return;
        m_status->setText(message);
        finishProcess();
        emit finishedPlan(false);
    });
    m_run->setEnabled(false);
    m_stop->setEnabled(true);
    m_status->setText(tr("Estimating the variants…"));
    m_process->start(m_cli, args);
}

void PlanDialog::finishProcess() {
    if (m_process) m_process->deleteLater();
    m_process = nullptr;
    m_run->setEnabled(true);
    m_stop->setEnabled(false);
}

void PlanDialog::processStderrLine(const QByteArray& line) {
    if (line.startsWith("plan: result ")) {  // one probe's row as JSON, as it ends (a variant probed again: replaced)
        const nlohmann::json c = parseJsonOrDiscarded(line.mid(13).toStdString());
        if (!c.is_object()) return;
        for (int r = 0; r < m_table->rowCount(); ++r)
            if (m_table->item(r, 0)->text() == describeVariant(c)) m_table->removeRow(r--);
        addRow(c, QString());
        return;
    }
    if (line.startsWith("plan: estimating ")) {
        m_status->setText(tr("Estimating the variants against the memory of a rank…"));
    } else if (line.startsWith("plan: probe again")) {
        m_status->setText(tr("The two fastest are close: running both once more…"));
    } else if (line.startsWith("plan: probe ")) {
        ++m_probed;
        m_status->setText(tr("Probing variant %1 of at most %2…").arg(m_probed).arg(m_probes->value()));
    } else if (line.startsWith("plan: time box")) {
        m_status->setText(tr("The time box is reached; no more probes."));
    }
}

void PlanDialog::stop() {
    if (!m_process) return;
    m_status->setText(tr("Stopping…"));
    m_process->terminate();  // the probe's supervisor stops the variant that runs
}

void PlanDialog::addRow(const nlohmann::json& c, const QString& state) {
    const int row = m_table->rowCount();
    m_table->setRowCount(row + 1);
    auto cell = [&](int col, const QString& text) {
        auto* item = new QTableWidgetItem(text);
        if (col > 0 && col < 4) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, col, item);
        return item;
    };
    cell(0, describeVariant(c))->setData(Qt::UserRole, QString::fromStdString(c.dump()));
    cell(1, c.contains("estimate_peak_bytes") ? planBytes(c.at("estimate_peak_bytes").get<int64_t>()) : QString());
    QString peak, speed, st = state;
    if (c.contains("probe")) {
        const nlohmann::json& p = c.at("probe");
        if (p.contains("failure")) {
            st = tr("failed");
            m_table->setItem(row, 4, new QTableWidgetItem(st));
            m_table->item(row, 4)->setToolTip(QString::fromStdString(p.at("failure").get<std::string>()));
            m_table->item(row, 4)->setForeground(QColor(0xc0, 0x1c, 0x28));
        } else {
            peak = planBytes(p.value("peak_bytes", int64_t(0)));
            speed = QString::number(p.value("tokens_per_s", 0.0), 'f', 0);
            if (st.isEmpty()) st = tr("probed");
        }
    } else if (st.isEmpty()) {
        st = c.value("fits_by_estimate", false) ? tr("not probed") : tr("does not fit");
    }
    cell(2, peak);
    cell(3, speed);
    if (!m_table->item(row, 4)) cell(4, st);
}

void PlanDialog::showResult(const nlohmann::json& result) {
    m_table->setRowCount(0);
    const nlohmann::json& candidates = result.at("candidates");
    const nlohmann::json chosen = result.value("chosen", nlohmann::json());
    const nlohmann::json current = result.value("current", nlohmann::json::object());
    auto isCurrent = [&](const nlohmann::json& c) {
        for (const char* k : {"zero_stage", "offload_optimizer", "offload_param", "activation_checkpointing",
                              "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "chunked_loss"})
            if (c.value(k, nlohmann::json()) != current.value(k, nlohmann::json())) return false;
        return true;
    };
    // The table keeps the choices: what fits (or was probed); when nothing fits, every variant with its estimate.
    const bool anyFits = std::any_of(candidates.begin(), candidates.end(),
                                     [](const nlohmann::json& c) { return c.value("fits_by_estimate", false); });
    for (size_t i = 0; i < candidates.size(); ++i) {
        const nlohmann::json& c = candidates[i];
        if (c.contains("invalid")) continue;
        if (anyFits && !c.value("fits_by_estimate", false) && !c.contains("probe")) continue;
        QString state;
        if (chosen.is_number() && chosen.get<size_t>() == i)
            state = tr("proposal");
        else if (isCurrent(c))
            state = tr("the config now");
        else if (!anyFits)
            state = tr("over the memory");
        addRow(c, state);
        if (chosen.is_number() && chosen.get<size_t>() == i) {
            QFont bold = m_table->font();
            bold.setBold(true);
            for (int col = 0; col < 5; ++col) m_table->item(m_table->rowCount() - 1, col)->setFont(bold);
        }
    }
    m_changes = result.value("changes", nlohmann::json::array());
    const int seconds = int(result.value("seconds", 0.0) + 0.5);
    const QString capacity = planBytes(result.value("capacity_bytes", int64_t(0)));
    if (chosen.is_number()) {
        const nlohmann::json& c = candidates[chosen.get<size_t>()];
        QString text = tr("Proposal: %1.").arg(describeVariant(c));
        if (c.contains("probe") && !c.at("probe").contains("failure"))
            text += QLatin1Char(' ') + tr("Measured %1 tokens/s, peak %2 of the %3 a rank may use.")
                                           .arg(c.at("probe").value("tokens_per_s", 0.0), 0, 'f', 0)
                                           .arg(planBytes(c.at("probe").value("peak_bytes", int64_t(0))), capacity);
        if (result.value("chosen_by_estimate_only", false)) text += QLatin1Char(' ') + tr("(By the estimate alone.)");
        QStringList lines;
        for (const nlohmann::json& ch : m_changes)
            lines << QStringLiteral("%1: %2 → %3")
                         .arg(QString::fromStdString(ch.value("key", std::string())),
                              ch.value("before", std::string()) == "absent"
                                  ? tr("(not set)")
                                  : QString::fromStdString(ch.value("before", std::string())),
                              QString::fromStdString(ch.value("after", std::string())));
        text += QLatin1Char('\n') + (lines.isEmpty() ? tr("The config already is this variant.")
                                                     : tr("Apply changes: %1").arg(lines.join(QStringLiteral("; "))));
        m_proposal->setText(text);
        m_apply->setEnabled(!lines.isEmpty());
        m_status->setText(tr("Done in %1 s.").arg(seconds) +
                          (result.value("time_box_reached", false)
                               ? QLatin1Char(' ') + tr("The time box stopped the probes.")
                               : QString()));
    } else {
        QStringList advice;
        const nlohmann::json candidates = result.value("candidates", nlohmann::json::array());
        for (const nlohmann::json& a : result.value("advice", nlohmann::json::array()))
            advice << adviceText(a, candidates);
        m_proposal->setText(tr("Nothing fits in %1 per rank.").arg(capacity) + QLatin1Char('\n') +
                            advice.join(QLatin1Char('\n')));
        m_status->setText(tr("Done in %1 s.").arg(seconds));
    }
}

void PlanDialog::closeEvent(QCloseEvent* event) {
    stop();
    QDialog::closeEvent(event);
}

}  // namespace fts
