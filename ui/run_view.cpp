// RunView: charts and labels of one run, redrawn by a batching timer (see run_view.h).
#include "ui/run_view.h"

#include "core/store/run_json.h"

#include <QDateTime>
#include <QEvent>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QStyle>
#include <QVBoxLayout>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QProgressBar>
#include <QHeaderView>
#include <QTabWidget>
#include <QTableWidget>
#include <climits>
#include <cmath>
#include <cstdint>

#include "ui/chart_widget.h"
#include "ui/elided_label.h"
#include "ui/memory_bars.h"
#include "ui/run_compare.h"
#include "ui/runs_table_model.h"

namespace fts {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr size_t kEtaWindow = 50;  // recent steps used for the step rate

QString memKey(const char* kind, int rank, const QString& device) {
    return QStringLiteral("%1:%2:%3").arg(QLatin1String(kind)).arg(rank).arg(device);
}

}  // namespace

RunView::RunView(QWidget* parent) : QWidget(parent) {
    m_replotTimer.setSingleShot(true);
    m_replotTimer.setInterval(kReplotDelayMs);
    connect(&m_replotTimer, &QTimer::timeout, this, &RunView::replotNow);

    m_title = new ElidedLabel(this);  // a long run name (a sweep's) never widens the window
    QFont tf = m_title->font();
    tf.setPointSize(tf.pointSize() + 3);
    tf.setBold(true);
    m_title->setFont(tf);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_stopButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), QString(), this);
    m_stopButton->setObjectName(QStringLiteral("stopSaveButton"));
    m_stopButton->setEnabled(false);
    connect(m_stopButton, &QPushButton::clicked, this, [this] {
        if (m_run) emit stopClicked(m_run->id);
    });
    m_stopNowButton = new QPushButton(this);
    m_stopNowButton->setObjectName(QStringLiteral("stopNowButton"));
    m_stopNowButton->setEnabled(false);
    connect(m_stopNowButton, &QPushButton::clicked, this, [this] {
        if (m_run) emit stopNowClicked(m_run->id);
    });

    // Resume: shown for a stopped or failed run; MainWindow enables it where a checkpoint and config exist.
    m_resumeButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), QString(), this);
    m_resumeButton->setObjectName(QStringLiteral("resumeButton"));
    m_resumeButton->setEnabled(false);
    m_resumeButton->hide();
    connect(m_resumeButton, &QPushButton::clicked, this, [this] {
        if (m_run) emit resumeClicked(m_run->id);
    });

    auto* header = new QHBoxLayout;
    m_exportButton = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), QString(), this);
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setEnabled(false);
    m_exportButton->hide();
    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        if (m_run) emit exportClicked(m_run->id);
    });
    header->addWidget(m_title, 1);
    header->addWidget(m_exportButton);
    header->addWidget(m_resumeButton);
    header->addWidget(m_stopButton);
    header->addWidget(m_stopNowButton);

    // The short facts (a status word, "step / total", a number) keep their width; the two that can be long give way
    // before the window does (the loss with its eval, a resumed run's "took … over …"): elided, whole in the tooltip.
    m_status = new QLabel(this);
    m_step = new QLabel(this);
    m_lossLabel = new ElidedLabel(this);
    m_throughput = new QLabel(this);
    m_eta = new ElidedLabel(this);
    m_failure = new QLabel(this);
    m_failure->setWordWrap(true);
    m_failure->setStyleSheet(QStringLiteral("color: #c01c28;"));
    m_failure->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failure->hide();
    auto* facts = new QGridLayout;
    for (int col = 0; col < kFactCount; ++col) {
        m_factNames[col] = new ElidedLabel(this);
        m_factNames[col]->setStyleSheet(QStringLiteral("color: palette(mid);"));
        facts->addWidget(m_factNames[col], 0, col);
    }
    QLabel* const values[kFactCount] = {m_status, m_step, m_lossLabel, m_throughput, m_eta};
    for (int col = 0; col < kFactCount; ++col) facts->addWidget(values[col], 1, col);

    // Texts (titles, axes, legends) are set by retranslate().
    m_lossChart = new SeriesChart(QString(), QString(), QString(), this);
    m_lossChart->setObjectName(QStringLiteral("lossChart"));
    m_memoryChart = new SeriesChart(QString(), QString(), QString(), this);
    m_memoryChart->setObjectName(QStringLiteral("memoryChart"));
    QColor rawColor = SeriesChart::seriesColor(0);
    rawColor.setAlpha(80);  // the raw curve faint under its smoothed line
    m_lossChart->ensureGraph(QStringLiteral("loss"), QString(), QPen(rawColor, 1.0));
    m_lossChart->ensureGraph(QStringLiteral("loss_smoothed"), QString(), QPen(SeriesChart::seriesColor(0), 2.0));
    const auto metricChart = [this](const QString& key, int colour) {
        auto* c = new SeriesChart(QString(), QString(), QString(), this);
        c->setObjectName(key + QStringLiteral("Chart"));
        c->ensureGraph(key, QString(), QPen(SeriesChart::seriesColor(colour), 1.5));
        c->legend->setVisible(false);
        return c;
    };
    m_lrChart = metricChart(QStringLiteral("lr"), 2);
    m_gradNormChart = metricChart(QStringLiteral("grad_norm"), 3);
    m_lossScaleChart = metricChart(QStringLiteral("loss_scale"), 4);
    m_tokensChart = metricChart(QStringLiteral("tokens_per_s"), 5);
    m_evalMetricsChart = new SeriesChart(QString(), QString(), QString(), this);
    m_evalMetricsChart->setObjectName(QStringLiteral("evalMetricsChart"));
    m_evalMetricsChart->hide();
    m_rewardsChart = new SeriesChart(QString(), QString(), QString(), this);
    m_rewardsChart->setObjectName(QStringLiteral("rewardsChart"));
    m_rewardsChart->hide();
    m_routerChart = metricChart(QStringLiteral("aux_loss"), 6);
    m_routerChart->hide();
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("runChartTabs"));
    for (SeriesChart* c : {m_lrChart, m_gradNormChart, m_lossScaleChart, m_tokensChart, m_memoryChart})
        m_tabs->addTab(c, QString());
    // Hidden charts get their points but not their ranges (replotNow redraws the visible one): fit on showing.
    m_samplesTable = new QTableWidget(0, 3, this);
    m_samplesTable->setObjectName(QStringLiteral("runSamplesTable"));
    m_samplesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_samplesTable->setWordWrap(true);
    m_samplesTable->verticalHeader()->hide();
    m_samplesTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_samplesTable->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Interactive);
    m_samplesTable->horizontalHeader()->setStretchLastSection(true);
    m_samplesTable->setColumnWidth(1, 220);
    m_samplesTable->hide();
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (auto* c = qobject_cast<SeriesChart*>(m_tabs->currentWidget())) c->refresh();
    });

    m_smoothSpin = new QDoubleSpinBox(this);
    m_smoothSpin->setObjectName(QStringLiteral("runSmoothing"));
    m_smoothSpin->setRange(0.0, 0.99);
    m_smoothSpin->setSingleStep(0.05);
    m_smoothSpin->setDecimals(2);
    m_smoothSpin->setValue(0.6);
    connect(m_smoothSpin, &QDoubleSpinBox::valueChanged, this, [this] { scheduleReplot(); });
    m_logScale = new QCheckBox(this);
    m_logScale->setObjectName(QStringLiteral("runLogScale"));
    connect(m_logScale, &QCheckBox::toggled, this, [this] {
        applyScale();
        m_lossChart->refresh();
    });
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("runProgress"));
    m_progress->setTextVisible(true);
    m_bars = new MemoryBars(this);
    QPen evalPen(SeriesChart::seriesColor(1), 2.0);
    QCPGraph* eval = m_lossChart->ensureGraph(QStringLiteral("eval_loss"), QString(), evalPen);
    eval->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));

    m_logs = new QPlainTextEdit(this);
    m_logs->setReadOnly(true);
    m_logs->setMaximumBlockCount(500);
    m_logs->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    // The loss chart's controls sit at the right of the facts (no row of their own: the chart keeps the height)
    auto* lossControls = new QHBoxLayout;
    m_smoothLabel = new QLabel(this);
    lossControls->addWidget(m_smoothLabel);
    lossControls->addWidget(m_smoothSpin);
    lossControls->addWidget(m_logScale);
    facts->addLayout(lossControls, 0, kFactCount, 2, 1, Qt::AlignRight | Qt::AlignBottom);
    // the loss (with its eval) and the ETA / "took …" are the long ones: they get twice the room of the others
    for (int col = 0; col < kFactCount; ++col) facts->setColumnStretch(col, col == 2 || col == kFactCount - 1 ? 2 : 1);
    // the log keeps a few lines at least and gives way first when the window is short
    m_logs->setMinimumHeight(3 * m_logs->fontMetrics().lineSpacing());

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_lossChart);
    split->addWidget(m_tabs);
    split->addWidget(m_logs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addLayout(facts);
    layout->addWidget(m_progress);
    layout->addWidget(m_failure);
    layout->addWidget(m_bars);
    layout->addWidget(split, 1);
    retranslate();
    clear();
}

// The tab widget would report its pages going away while QWidget deletes the children: stop listening first.
RunView::~RunView() { m_tabs->disconnect(this); }

void RunView::retranslate() {
    m_stopButton->setText(tr("Stop && save"));
    m_stopButton->setToolTip(
        tr("The ranks finish the current step, write a checkpoint and stop; the run can be "
           "resumed (fts train --resume)"));
    m_exportButton->setText(tr("Export…"));
    m_exportButton->setToolTip(
        tr("The model of this run's latest checkpoint as a GGUF file for llama.cpp, Ollama and LM Studio (quantized), "
           "or as a Hugging Face folder (fts export)"));
    m_resumeButton->setText(tr("Resume"));
    m_resumeButton->setToolTip(
        tr("Continue this run from its last checkpoint: same run, its curves continue "
           "(fts train CONFIG --resume)"));
    m_stopNowButton->setText(tr("Stop now"));
    m_stopNowButton->setToolTip(
        tr("Kill the workers without a checkpoint (after confirmation): the steps since the "
           "last saved checkpoint are lost"));
    const QString names[kFactCount] = {tr("Status"), tr("Step"), tr("Loss"), tr("Tokens/s"), tr("ETA")};
    for (int col = 0; col < kFactCount; ++col) m_factNames[col]->setText(names[col]);

    const QString step = tr("step");
    m_lossChart->setTitle(tr("Loss"));
    m_lossChart->setAxisLabels(step, tr("loss"));
    m_lossChart->graphByKey(QStringLiteral("loss"))->setName(tr("train loss"));
    m_lossChart->graphByKey(QStringLiteral("loss_smoothed"))->setName(tr("train loss (smoothed)"));
    m_lossChart->graphByKey(QStringLiteral("eval_loss"))->setName(tr("eval loss"));
    m_memoryChart->setTitle(tr("Device memory"));
    m_memoryChart->setAxisLabels(step, tr("MiB"));
    const auto metric = [&](SeriesChart* c, const QString& key, const QString& title, const QString& y) {
        c->setTitle(title);
        c->setAxisLabels(step, y);
        c->graphByKey(key)->setName(title);
    };
    metric(m_lrChart, QStringLiteral("lr"), tr("Learning rate"), tr("lr"));
    metric(m_gradNormChart, QStringLiteral("grad_norm"), tr("Gradient norm"), tr("norm"));
    metric(m_lossScaleChart, QStringLiteral("loss_scale"), tr("Loss scale (fp16)"), tr("scale"));
    metric(m_tokensChart, QStringLiteral("tokens_per_s"), tr("Throughput"), tr("tokens/s"));
    metric(m_routerChart, QStringLiteral("aux_loss"), tr("Load-balancing loss (mixture of experts)"), tr("aux loss"));
    const std::pair<QWidget*, QString> tabs[] = {
        {m_lrChart, tr("Learning rate")},      {m_gradNormChart, tr("Grad norm")},
        {m_lossScaleChart, tr("Loss scale")},  {m_tokensChart, tr("Tokens/s")},
        {m_memoryChart, tr("Memory history")}, {m_evalMetricsChart, tr("Eval metrics")},
        {m_rewardsChart, tr("Rewards")},       {m_routerChart, tr("Router")}};
    for (const auto& [widget, text] : tabs)
        if (const int i = m_tabs->indexOf(widget); i >= 0) m_tabs->setTabText(i, text);
    m_samplesTable->setHorizontalHeaderLabels({tr("Step"), tr("Prompt"), tr("Reply")});
    if (const int i = m_tabs->indexOf(m_samplesTable); i >= 0) m_tabs->setTabText(i, tr("Samples"));
    m_evalMetricsChart->setTitle(tr("Eval metrics"));
    m_evalMetricsChart->setAxisLabels(step, tr("value"));
    for (const auto& [key, series] : m_evalMetrics) {
        (void)series;
        static const std::map<QString, const char*> names{
            {QStringLiteral("eval_accuracy"), QT_TR_NOOP("accuracy")},
            {QStringLiteral("eval_f1"), QT_TR_NOOP("F1")},
            {QStringLiteral("eval_f1_micro"), QT_TR_NOOP("F1 (micro)")},
            {QStringLiteral("eval_mse"), QT_TR_NOOP("MSE")},
            {QStringLiteral("eval_pearson"), QT_TR_NOOP("Pearson r")},
            {QStringLiteral("eval_rewards/chosen"), QT_TR_NOOP("chosen reward")},
            {QStringLiteral("eval_rewards/rejected"), QT_TR_NOOP("rejected reward")},
            {QStringLiteral("eval_rewards/margins"), QT_TR_NOOP("reward margin")},
            {QStringLiteral("eval_rewards/accuracies"), QT_TR_NOOP("reward accuracy")}};
        const auto it = names.find(key);
        if (QCPGraph* g = m_evalMetricsChart->graphByKey(key)) g->setName(it == names.end() ? key : tr(it->second));
    }
    m_rewardsChart->setTitle(tr("Rewards"));
    m_rewardsChart->setAxisLabels(step, tr("reward"));
    for (const auto& [key, series] : m_rewards) {
        (void)series;
        static const std::map<QString, const char*> names{
            {QStringLiteral("rewards/chosen"), QT_TR_NOOP("chosen")},
            {QStringLiteral("rewards/rejected"), QT_TR_NOOP("rejected")},
            {QStringLiteral("rewards/margins"), QT_TR_NOOP("margin (chosen - rejected)")}};
        const auto it = names.find(key);
        if (QCPGraph* g = m_rewardsChart->graphByKey(key)) g->setName(it == names.end() ? key : tr(it->second));
    }
    m_smoothSpin->setToolTip(tr("EMA smoothing weight of the loss (0 = raw values)"));
    m_smoothLabel->setText(tr("Smoothing"));
    m_logScale->setText(tr("Log scale"));
    m_logs->setPlaceholderText(tr("Log lines of this run appear here."));
    nameMemoryGraphs();
    updateLabels();
    updateBars();
    m_lossChart->replot();
    if (auto* current = qobject_cast<SeriesChart*>(m_tabs->currentWidget())) current->replot();
}

void RunView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

// "rank R · DEVICE", with the rank's host first when it is a remote one ("h2 · rank 2 · cuda:0").
QString RunView::deviceName(const std::pair<int, QString>& key) const {
    const auto it = m_lastMemory.find(key);
    const QString host = it == m_lastMemory.end() ? QString() : QString::fromStdString(it->second.host);
    if (host.isEmpty() || host == QLatin1String("localhost")) return tr("rank %1 · %2").arg(key.first).arg(key.second);
    return tr("%3 · rank %1 · %2").arg(key.first).arg(key.second, host);
}

// Legend names of the memory history: "rank R · DEVICE allocated (of C MiB)" and "... peak".
void RunView::nameMemoryGraphs() {
    for (const auto& [key, series] : m_memAllocated) {
        const QString who = deviceName(key);
        const auto cap = m_capacityMiB.find(key);
        if (QCPGraph* g = m_memoryChart->graphByKey(memKey("alloc", key.first, key.second)))
            g->setName(cap == m_capacityMiB.end()
                           ? tr("%1 allocated").arg(who)
                           : tr("%1 allocated (of %2 MiB)").arg(who).arg(cap->second, 0, 'f', 0));
        if (QCPGraph* g = m_memoryChart->graphByKey(memKey("peak", key.first, key.second)))
            g->setName(tr("%1 peak").arg(who));
    }
}

void RunView::clear() {
    m_run.reset();
    m_loss.clear();
    m_evalLoss.clear();
    for (LiveSeries* s : {&m_lossSmoothed, &m_lr, &m_gradNorm, &m_lossScale, &m_tokensPerS}) s->clear();
    m_evalMetrics.clear();
    m_evalMetricsChart->removeAllSeries();
    showEvalMetricsTab(false);
    m_rewards.clear();
    m_rewardsChart->removeAllSeries();
    if (const int i = m_tabs->indexOf(m_rewardsChart); i >= 0) {
        m_tabs->removeTab(i);
        m_rewardsChart->hide();
    }
    m_auxLoss.clear();
    if (const int i = m_tabs->indexOf(m_routerChart); i >= 0) {
        m_tabs->removeTab(i);
        m_routerChart->hide();
    }
    m_samplesTable->setRowCount(0);
    showSamplesTab(false);
    m_smoothedRevision = 0;
    m_smoothedWeight = -1;
    m_lastMemory.clear();
    m_estimateTotal = m_estimateAllocator = 0;
    m_bars->setBars({});
    m_memAllocated.clear();
    m_memPeak.clear();
    m_capacityMiB.clear();
    m_stepTimes.clear();
    m_lastTokensPerS = -1;
    m_lastLr = -1;
    m_lastStep = 0;
    m_stopPending = false;
    m_memoryChart->removeAllSeries();
    m_lossChart->sync(QStringLiteral("loss"), m_loss);
    m_lossChart->sync(QStringLiteral("eval_loss"), m_evalLoss);
    m_lossChart->sync(QStringLiteral("loss_smoothed"), m_lossSmoothed);
    m_lrChart->sync(QStringLiteral("lr"), m_lr);
    m_gradNormChart->sync(QStringLiteral("grad_norm"), m_gradNorm);
    m_lossScaleChart->sync(QStringLiteral("loss_scale"), m_lossScale);
    m_tokensChart->sync(QStringLiteral("tokens_per_s"), m_tokensPerS);
    for (SeriesChart* c : {m_lossChart, m_lrChart, m_gradNormChart, m_lossScaleChart, m_tokensChart})
        c->setAutoRange(true);
    m_logs->clear();
    updateLabels();
    m_lossChart->replot();
    m_memoryChart->replot();
}

void RunView::showRun(const RunRecord& run) {
    if (!m_run || m_run->id != run.id) clear();
    updateRun(run);
}

void RunView::updateRun(const RunRecord& run) {
    if (m_run && m_run->id != run.id) return;
    if (m_run && m_run->status == RunStatus::Running && run.status != RunStatus::Running) m_stopPending = false;
    m_run = run;
    m_lastStep = std::max(m_lastStep, run.lastStep);
    updateLabels();
}

void RunView::setStopPending(bool pending) {
    m_stopPending = pending;
    updateLabels();
}

void RunView::ensureMemoryGraphs(int rank, const QString& device) {
    const QString allocKey = memKey("alloc", rank, device);
    if (m_memoryChart->graphByKey(allocKey)) return;
    const int index = static_cast<int>(m_memoryChart->graphKeys().size() / 2);
    const QColor color = SeriesChart::seriesColor(index);
    m_memoryChart->ensureGraph(allocKey, QString(), QPen(color, 1.5));
    QPen peakPen(color, 1.0, Qt::DashLine);
    m_memoryChart->ensureGraph(memKey("peak", rank, device), QString(), peakPen);
    m_memoryNamesStale = true;
}

void RunView::applyBatch(const RunDataBatch& batch) {
    if (!m_run || batch.runId != m_run->id) return;
    if (batch.reset) {
        const RunRecord run = *m_run;
        clear();
        m_run = run;
    }
    for (const MetricPoint& p : batch.metrics) {
        const double x = static_cast<double>(p.step);
        if (p.name == "loss") {
            if (m_loss.append(x, p.value)) {
                m_stepTimes.emplace_back(p.step, p.time);
                if (m_stepTimes.size() > kEtaWindow) m_stepTimes.erase(m_stepTimes.begin());
            }
        } else if (p.name == "eval_loss") {
            m_evalLoss.append(x, p.value);
        } else if (p.name == "rewards/chosen" || p.name == "rewards/rejected" || p.name == "rewards/margins") {
            const QString key = QString::fromStdString(p.name);
            if (!m_rewardsChart->graphByKey(key)) {
                const int colour = p.name == "rewards/margins" ? 0 : p.name == "rewards/chosen" ? 2 : 3;
                m_rewardsChart->ensureGraph(
                    key, QString(), QPen(SeriesChart::seriesColor(colour), p.name == "rewards/margins" ? 2.5 : 1.5));
                if (m_tabs->indexOf(m_rewardsChart) < 0) {
                    m_tabs->insertTab(0, m_rewardsChart, tr("Rewards"));
                    m_tabs->setCurrentWidget(m_rewardsChart);  // what a preference run is about
                }
                m_rewardNamesStale = true;
            }
            m_rewards[key].append(x, p.value);
        } else if (p.name.rfind("eval_", 0) == 0 &&
                   (p.name.find('/') == std::string::npos || p.name.rfind("eval_rewards/", 0) == 0)) {
            // classification: accuracy, F1, MSE, Pearson; preference: the rewards (log-probs and logits stay in
            // the store, for the compare page)
            const QString key = QString::fromStdString(p.name);
            if (!m_evalMetricsChart->graphByKey(key)) {
                QCPGraph* g = m_evalMetricsChart->ensureGraph(
                    key, QString(), QPen(SeriesChart::seriesColor(int(m_evalMetrics.size()) + 1), 2.0));
                g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
                showEvalMetricsTab(true);
                if (m_evalMetrics.empty() && m_tabs->indexOf(m_rewardsChart) < 0)
                    m_tabs->setCurrentWidget(m_evalMetricsChart);  // what a classifier run is about
                m_evalNamesStale = true;
            }
            m_evalMetrics[key].append(x, p.value);
        } else if (p.name == "aux_loss") {  // a mixture of experts with output_router_logits
            if (m_tabs->indexOf(m_routerChart) < 0) m_tabs->addTab(m_routerChart, tr("Router"));
            m_auxLoss.append(x, p.value);
        } else if (p.name == "tokens_per_s") {
            if (m_tokensPerS.append(x, p.value)) m_lastTokensPerS = p.value;
        } else if (p.name == "lr") {
            if (m_lr.append(x, p.value)) m_lastLr = p.value;
        } else if (p.name == "grad_norm") {
            m_gradNorm.append(x, p.value);
        } else if (p.name == "loss_scale") {
            m_lossScale.append(x, p.value);
        } else if (p.name == "memory_estimate_bytes") {  // fts train's estimate at the start (per rank)
            m_estimateTotal = int64_t(p.value);
        } else if (p.name == "memory_estimate_allocator_bytes") {
            m_estimateAllocator = int64_t(p.value);
        }
        m_lastStep = std::max(m_lastStep, p.step);
    }
    for (const DeviceSample& s : batch.samples) {
        const auto key = std::make_pair(s.rank, QString::fromStdString(s.device));
        ensureMemoryGraphs(key.first, key.second);
        const double x = static_cast<double>(s.step);
        m_memAllocated[key].append(x, static_cast<double>(s.allocated) / kMiB);
        m_memPeak[key].append(x, static_cast<double>(s.peak) / kMiB);
        if (s.capacity > 0) {
            const double capacity = static_cast<double>(s.capacity) / kMiB;
            auto [it, inserted] = m_capacityMiB.try_emplace(key, capacity);
            if (inserted || it->second != capacity) m_memoryNamesStale = true;
            it->second = capacity;
        }
        auto& last = m_lastMemory[key];
        if (s.step >= last.step) last = s;
    }
    addSampleTexts(batch.texts);
    scheduleReplot();
}

// Newest first: each text goes above the rows of earlier steps (rows of one step keep the prompts' order).
void RunView::addSampleTexts(const std::vector<SampleText>& texts) {
    if (texts.empty()) return;
    showSamplesTab(true);
    int row = 0;
    int64_t step = -1;
    for (const SampleText& t : texts) {
        if (t.step != step) row = 0, step = t.step;
        m_samplesTable->insertRow(row);
        auto* stepItem = new QTableWidgetItem(QString::number(t.step));
        stepItem->setTextAlignment(Qt::AlignRight | Qt::AlignTop);
        m_samplesTable->setItem(row, 0, stepItem);
        m_samplesTable->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(t.prompt)));
        auto* reply = new QTableWidgetItem(QString::fromStdString(t.text));
        reply->setToolTip(QString::fromStdString(t.text));
        m_samplesTable->setItem(row, 2, reply);
        ++row;
    }
    m_samplesTable->resizeRowsToContents();
}

void RunView::showSamplesTab(bool show) {
    const int index = m_tabs->indexOf(m_samplesTable);
    if (show && index < 0) {
        m_tabs->addTab(m_samplesTable, tr("Samples"));
    } else if (!show && index >= 0) {
        m_tabs->removeTab(index);
        m_samplesTable->hide();
    }
}

void RunView::setLogs(qint64 runId, const QStringList& lines) {
    if (!m_run || runId != m_run->id) return;
    m_logs->setPlainText(lines.join(QLatin1Char('\n')));
    m_logs->moveCursor(QTextCursor::End);
    m_logs->ensureCursorVisible();
}

void RunView::appendLogs(qint64 runId, const QStringList& lines) {
    if (!m_run || runId != m_run->id || lines.isEmpty()) return;
    m_logs->appendPlainText(lines.join(QLatin1Char('\n')));  // one block append; the block limit trims the top
}

void RunView::scheduleReplot() {
    if (!m_replotTimer.isActive())
        m_replotTimer.start();  // not restarted by later batches: a ceiling of one replot per kReplotDelayMs
}

void RunView::replotNow() {
    m_lossChart->sync(QStringLiteral("loss"), m_loss);
    m_lossChart->sync(QStringLiteral("eval_loss"), m_evalLoss);
    for (const auto& [key, series] : m_memAllocated)
        m_memoryChart->sync(memKey("alloc", key.first, key.second), series);
    for (const auto& [key, series] : m_memPeak) m_memoryChart->sync(memKey("peak", key.first, key.second), series);
    if (m_memoryNamesStale) {
        m_memoryNamesStale = false;
        nameMemoryGraphs();
    }
    // The smoothed loss is recomputed only when the loss or the weight changed.
    const double weight = m_smoothSpin->value();
    if (m_loss.revision() != m_smoothedRevision || weight != m_smoothedWeight) {
        m_smoothedRevision = m_loss.revision();
        m_smoothedWeight = weight;
        m_lossSmoothed.clear();
        const QVector<double> ys = emaSmooth(m_loss.ys(), weight);
        for (int i = 0; i < ys.size(); ++i) m_lossSmoothed.append(m_loss.xs()[i], ys[i]);
    }
    m_lossChart->sync(QStringLiteral("loss_smoothed"), m_lossSmoothed);
    m_lrChart->sync(QStringLiteral("lr"), m_lr);
    m_gradNormChart->sync(QStringLiteral("grad_norm"), m_gradNorm);
    m_lossScaleChart->sync(QStringLiteral("loss_scale"), m_lossScale);
    m_tokensChart->sync(QStringLiteral("tokens_per_s"), m_tokensPerS);
    m_routerChart->sync(QStringLiteral("aux_loss"), m_auxLoss);
    for (const auto& [key, series] : m_evalMetrics) m_evalMetricsChart->sync(key, series);
    for (const auto& [key, series] : m_rewards) m_rewardsChart->sync(key, series);
    if (m_rewardNamesStale) {
        m_rewardNamesStale = false;
        m_evalNamesStale = true;  // retranslate() below names both
    }
    if (m_evalNamesStale) {
        m_evalNamesStale = false;
        retranslate();
    }
    // Only the visible charts are redrawn; a hidden tab is drawn when shown.
    m_lossChart->refresh();
    if (QWidget* current = m_tabs->currentWidget()) static_cast<SeriesChart*>(current)->refresh();
    updateBars();
    updateLabels();
    ++m_replots;
}

void RunView::showEvalMetricsTab(bool show) {
    const int index = m_tabs->indexOf(m_evalMetricsChart);
    if (show && index < 0) {
        m_tabs->insertTab(0, m_evalMetricsChart, tr("Eval metrics"));
    } else if (!show && index >= 0) {
        m_tabs->removeTab(index);
        m_evalMetricsChart->hide();
    }
}

std::optional<double> RunView::secondsPerStep(const std::vector<std::pair<int64_t, double>>& stepTimes) {
    if (stepTimes.size() < 2) return std::nullopt;
    const auto& first = stepTimes.front();
    const auto& last = stepTimes.back();
    const double steps = static_cast<double>(last.first - first.first);
    const double seconds = last.second - first.second;
    if (steps <= 0 || seconds <= 0 || !std::isfinite(seconds)) return std::nullopt;
    return seconds / steps;
}

QString RunView::tookText(const RunRecord& r) {
    const double session = r.endedAt - r.startedAt;
    const std::optional<double> trained = trainingSeconds(r);
    // Resumed: the training time spans sessions; the wall time from the run's creation shows the pause too.
    if (trained && *trained > session + 1.0 && r.createdAt > 0 && r.endedAt > r.createdAt)
        return tr("took %1 of training, over %2 (stopped and resumed)")
            .arg(formatDuration(*trained), formatDuration(r.endedAt - r.createdAt));
    return tr("took %1").arg(formatDuration(trained.value_or(session)));
}

QString RunView::formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return QString();
    const auto s = static_cast<qint64>(std::llround(seconds));
    if (s < 60) return tr("%1 s").arg(s);
    if (s < 3600) return tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QString RunView::statusText() const { return m_status->text(); }
QString RunView::etaText() const { return m_eta->text(); }

void RunView::applyScale() {
    if (m_logScale->isChecked()) {
        m_lossChart->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_lossChart->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    } else {
        m_lossChart->yAxis->setScaleType(QCPAxis::stLinear);
        m_lossChart->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
}

void RunView::updateBars() {
    QVector<MemoryBar> bars;
    for (const auto& [key, s] : m_lastMemory) {
        MemoryBar b;
        b.label = deviceName(key);
        b.allocated = s.allocated;
        b.reserved = s.reserved;
        b.peak = s.peak;
        b.capacity = s.capacity;
        // The estimate this run started with, against what the device measures: CUDA's allocator counts tensors
        // (the estimate without the CUDA context), a CPU sample is the process's resident memory (the whole).
        b.estimate = s.device.rfind("cuda", 0) == 0 ? m_estimateAllocator : m_estimateTotal;
        bars.push_back(b);
    }
    const auto [used, total] = hostMemory();
    if (total > 0) {
        MemoryBar host;
        host.label = tr("host RAM");
        host.allocated = used;
        host.capacity = total;
        bars.push_back(host);
    }
    m_bars->setBars(bars);
}

// A run's failure in the studio's words where it knows the kind (out of memory: the step and phase, then fts's
// details: the device's memory, the estimate and the changes that would fit), else fts's text as it is.
QString RunView::failureText(const QString& reason) {
    static const QRegularExpression oom(
        QStringLiteral("^out of memory (?:at step (\\d+) \\(([^)]+)\\)|during set-up)"));
    const QRegularExpressionMatch m = oom.match(reason);
    if (!m.hasMatch()) return reason;
    const QString phase = m.captured(2);
    const QString phaseText = phase == QLatin1String("forward")          ? tr("forward pass")
                              : phase == QLatin1String("backward")       ? tr("backward pass")
                              : phase == QLatin1String("optimizer step") ? tr("optimizer step")
                              : phase == QLatin1String("eval")           ? tr("evaluation")
                              : phase == QLatin1String("checkpoint")     ? tr("checkpoint")
                              : phase == QLatin1String("export")         ? tr("export")
                                                                         : phase;
    const QString head = m.captured(1).isEmpty()
                             ? tr("Out of memory while setting up.")
                             : tr("Out of memory at step %1, in the %2.").arg(m.captured(1), phaseText);
    return head + QLatin1Char(' ') +
           tr("Lower the memory it needs with one of the changes below (each with its estimate), then start it "
              "again.") +
           QStringLiteral("\n") + reason;
}

void RunView::updateLabels() {
    if (!m_run) {
        m_title->setText(tr("No run selected"));
        for (QLabel* l : {m_status, m_step, m_lossLabel, m_throughput, m_eta}) l->setText(QStringLiteral("–"));
        m_failure->hide();
        m_stopButton->setEnabled(false);
        m_stopNowButton->setEnabled(false);
        m_resumeButton->hide();
        m_exportButton->hide();
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
        m_progress->setFormat(QString());
        return;
    }
    const RunRecord& r = *m_run;
    m_title->setText(QString::fromStdString(r.name));
    m_title->setToolTip(QString::fromStdString(r.configPath));
    QString status = RunsTableModel::statusText(r.status);
    const bool running = r.status == RunStatus::Running;
    if (running && m_stopPending) status = tr("stopping…");
    m_status->setText(status);
    m_step->setText(r.totalSteps > 0 ? tr("%1 / %2").arg(m_lastStep).arg(r.totalSteps) : QString::number(m_lastStep));
    if (!m_loss.isEmpty()) {
        QString text = QString::number(m_loss.lastY(), 'f', 4);
        if (!m_evalLoss.isEmpty()) text += tr(" (eval %1)").arg(m_evalLoss.lastY(), 0, 'f', 4);
        m_lossLabel->setText(text);
    } else {
        m_lossLabel->setText(QStringLiteral("–"));
    }
    m_throughput->setText(m_lastTokensPerS >= 0 ? QString::number(m_lastTokensPerS, 'f', 0) : QStringLiteral("–"));
    const auto perStep = secondsPerStep(m_stepTimes);
    if (running && perStep && r.totalSteps > m_lastStep)
        m_eta->setText(formatDuration(*perStep * static_cast<double>(r.totalSteps - m_lastStep)));
    else if (!running && r.endedAt > 0 && r.startedAt > 0)
        m_eta->setText(tookText(r));
    else
        m_eta->setText(QStringLiteral("–"));
    if (!r.failureReason.empty()) {
        m_failure->setText(failureText(QString::fromStdString(r.failureReason)));
        m_failure->show();
    } else {
        m_failure->hide();
    }
    m_stopButton->setEnabled(running && !m_stopPending);
    m_stopNowButton->setEnabled(running);
    m_resumeButton->setVisible(r.status == RunStatus::Stopped || r.status == RunStatus::Failed);
    m_exportButton->setVisible(!running && r.status != RunStatus::Pending);
    if (r.totalSteps > 0) {
        m_progress->setRange(0, int(std::min<int64_t>(r.totalSteps, INT32_MAX)));
        m_progress->setValue(int(std::min(m_lastStep, r.totalSteps)));
        m_progress->setFormat(tr("step %v of %m (%p%)"));
    } else {
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
        m_progress->setFormat(tr("step %1").arg(m_lastStep));
    }
}

}  // namespace fts
