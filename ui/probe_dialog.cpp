// The "Measure ZeRO stages" dialog (see probe_dialog.h): `fts probe` in a QProcess, its stderr lines as progress, its
// JSON as the table.
#include "ui/probe_dialog.h"
#include "ui/cli_process.h"

#include <QCheckBox>
#include <QCloseEvent>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/config/memory_estimate.h"
#include "core/util/json_parse.h"

namespace fts {

namespace {

QString bytes(int64_t b) { return QString::fromStdString(formatBytes(b)); }

}  // namespace

ProbeDialog::ProbeDialog(const QString& cliPath, const QString& configPath, const QString& storePath,
                         const QStringList& placement, QWidget* parent)
    : QDialog(parent), m_cli(cliPath), m_config(configPath), m_store(storePath), m_placement(placement) {
    setWindowTitle(tr("Measure ZeRO stages"));
    auto* v = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Runs a few steps of this config at each chosen ZeRO stage on the same ranks and data, "
                                "and measures each rank's peak memory and the speed next to the estimate. Each variant "
                                "is a run in the runs list; its checkpoints are not kept."),
                             this);
    intro->setWordWrap(true);
    v->addWidget(intro);
    auto* choices = new QHBoxLayout;
    for (int s = 0; s < 4; ++s) {
        m_stages[s] = new QCheckBox(tr("Stage %1").arg(s), this);
        m_stages[s]->setChecked(true);
        choices->addWidget(m_stages[s]);
    }
    m_offload = new QCheckBox(tr("Also with CPU offload"), this);
    m_offload->setToolTip(tr("offload_optimizer cpu at stages 1-3, and offload_param cpu at stage 3"));
    choices->addWidget(m_offload);
    choices->addStretch();
    choices->addWidget(new QLabel(tr("Steps:"), this));
    m_steps = new QSpinBox(this);
    m_steps->setRange(2, 50);
    m_steps->setValue(4);
    m_steps->setToolTip(tr("Optimizer steps per variant; the first is not timed"));
    choices->addWidget(m_steps);
    v->addLayout(choices);
    m_table = new QTableWidget(0, 5, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Variant"), tr("Estimate per rank"), tr("Measured peak per rank"), tr("Tokens/s"), tr("Steps/s")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 5; ++c) m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->addWidget(m_table, 1);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    v->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(this);
    m_run = buttons->addButton(tr("Run"), QDialogButtonBox::ActionRole);
    m_stop = buttons->addButton(tr("Stop"), QDialogButtonBox::ActionRole);
    m_stop->setEnabled(false);
    m_use = buttons->addButton(tr("Use this variant"), QDialogButtonBox::ActionRole);
    m_use->setObjectName(QStringLiteral("useVariantButton"));
    m_use->setToolTip(tr("Write the selected variant's ZeRO stage and offload settings into the config"));
    m_use->setEnabled(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_use->setEnabled(!variantAt(m_table->currentRow()).is_null()); });
    connect(m_use, &QPushButton::clicked, this, [this] {
        const nlohmann::json v = variantAt(m_table->currentRow());
        if (!v.is_null()) emit variantChosen(QString::fromStdString(v.dump()));
    });
    QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
    close->setText(tr("Close"));
    connect(m_run, &QPushButton::clicked, this, &ProbeDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &ProbeDialog::stop);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    v->addWidget(buttons);
    resize(760, 420);
}

ProbeDialog::~ProbeDialog() {
    if (m_process) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) m_process->kill();
    }
}

void ProbeDialog::start() {
    if (m_process) return;
    QStringList stages;
    for (int s = 0; s < 4; ++s)
        if (m_stages[s]->isChecked()) stages << QString::number(s);
    if (stages.isEmpty()) {
        m_status->setText(tr("Choose at least one stage."));
        return;
    }
    m_variants = int(stages.size());
    if (m_offload->isChecked())
        m_variants += int(stages.size()) - (stages.contains(QStringLiteral("0")) ? 1 : 0) +
                      (stages.contains(QStringLiteral("3")) ? 1 : 0);
    m_done = 0;
    m_stdout.clear();
    m_stderrTail.clear();
    m_stderrPartial.clear();
    m_table->setRowCount(0);
    QStringList args{QStringLiteral("probe"),
                     m_config,
                     QStringLiteral("--stages"),
                     stages.join(QLatin1Char(',')),
                     QStringLiteral("--steps"),
                     QString::number(m_steps->value()),
                     QStringLiteral("--json"),
                     QStringLiteral("--store"),
                     m_store};
    if (m_offload->isChecked()) args << QStringLiteral("--offload");
    args << m_placement;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_stdout += m_process->readAllStandardOutput(); });
    onStderrLines(m_process, this, &m_stderrPartial, &m_stderrTail,
                  [this](const QByteArray& line) { processStderrLine(line); });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_stdout += m_process->readAllStandardOutput();
        m_process->deleteLater();
        m_process = nullptr;
        m_run->setEnabled(true);
        m_stop->setEnabled(false);
        const nlohmann::json result = parseJsonOrDiscarded(m_stdout.toStdString());
        if (status == QProcess::NormalExit && result.is_object() && result.contains("variants")) {
            showResult(result);
            m_status->setText(code == 0 ? tr("Done. Pick the cheapest variant whose measured peak fits your devices.")
                                        : tr("Every variant failed; see the reasons in the table."));
            emit finishedProbe(code == 0);
            return;
        }
        m_status->setText(tr("The probe ended without a result: %1").arg(QString::fromUtf8(m_stderrTail).trimmed()));
        emit finishedProbe(false);
    });
    whenCliFailsToStart(m_process, m_cli, [this](const QString& message) {
        if (!m_process) return;
        m_status->setText(message);
        m_process->deleteLater();
        m_process = nullptr;
        m_run->setEnabled(true);
        m_stop->setEnabled(false);
        emit finishedProbe(false);
    });
    m_run->setEnabled(false);
    m_stop->setEnabled(true);
    m_status->setText(tr("Starting the probe…"));
    m_process->start(m_cli, args);
}

void ProbeDialog::processStderrLine(const QByteArray& line) {
    if (line.startsWith("probe: result ")) {  // one variant's row as JSON, as it ends
        const nlohmann::json v = parseJsonOrDiscarded(line.mid(14).toStdString());
        if (v.is_object()) addVariantRow(v);
        return;
    }
    if (!line.startsWith("probe: stage ")) return;  // "probe: stage N [+ offload optimizer cpu] ... (...)"
    ++m_done;
    QString label = tr("Stage %1").arg(QChar::fromLatin1(line.at(13)));
    if (line.contains("offload optimizer")) label += tr(" + optimizer offload");
    if (line.contains("offload param")) label += tr(" + parameter offload");
    m_status->setText(tr("Running %1 (%2 of %3)…").arg(label).arg(m_done).arg(m_variants));
}

void ProbeDialog::stop() {
    if (!m_process) return;
    m_status->setText(tr("Stopping…"));
    m_process->terminate();  // the probe's supervisor stops the variant that runs
}

void ProbeDialog::showResult(const nlohmann::json& result) {
    const nlohmann::json& variants = result.at("variants");
    m_table->setRowCount(int(variants.size()));
    int row = 0;
    for (const nlohmann::json& v : variants) setRow(row++, v);
    m_use->setEnabled(!variantAt(m_table->currentRow()).is_null());
}

void ProbeDialog::addVariantRow(const nlohmann::json& variant) {
    const int row = m_table->rowCount();
    m_table->setRowCount(row + 1);
    setRow(row, variant);
}

nlohmann::json ProbeDialog::variantAt(int row) const {
    const QTableWidgetItem* item = row >= 0 ? m_table->item(row, 0) : nullptr;
    if (!item) return nullptr;
    const nlohmann::json v = parseJsonOrDiscarded(item->data(Qt::UserRole).toString().toStdString());
    return v.is_object() && !v.contains("failure") ? v : nlohmann::json();
}

void ProbeDialog::setRow(int row, const nlohmann::json& v) {
    auto cell = [&](int col, const QString& text) {
        auto* item = new QTableWidgetItem(text);
        if (col > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, col, item);
        return item;
    };
    const int stage = v.value("stage", 0);
    QString label = tr("Stage %1").arg(stage);
    if (v.value("offload_optimizer", std::string("none")) != "none") label += tr(" + optimizer offload");
    if (v.value("offload_param", std::string("none")) != "none") label += tr(" + parameter offload");
    cell(0, label)->setData(Qt::UserRole, QString::fromStdString(v.dump()));
    cell(1, bytes(v.value("estimate_bytes", int64_t(0))));
    if (v.contains("failure")) {
        QTableWidgetItem* failed = cell(2, tr("failed"));
        failed->setToolTip(QString::fromStdString(v.at("failure").get<std::string>()));
        failed->setForeground(QColor(0xc0, 0x1c, 0x28));
        cell(3, QString());
        cell(4, QString());
    } else {
        cell(2, bytes(v.value("peak_bytes", int64_t(0))));
        cell(3, QString::number(v.value("tokens_per_s", 0.0), 'f', 0));
        cell(4, QString::number(v.value("steps_per_s", 0.0), 'f', 3));
    }
}

void ProbeDialog::closeEvent(QCloseEvent* event) {
    stop();
    QDialog::closeEvent(event);
}

}  // namespace fts
