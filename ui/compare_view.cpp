// CompareView: controls, chart, tables and the worker-thread load (see compare_view.h).
#include "ui/compare_view.h"
#include "ui/file_dialogs.h"
#include "ui/sweep_plot.h"

#include <map>

#include "core/store/run_queue.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFile>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QMenu>
#include <QToolButton>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>
#include <iterator>
#include <string_view>

#include "core/store/metric_names.h"
#include "core/util/json_parse.h"
#include "ui/chart_widget.h"
#include "ui/run_view.h"
#include "ui/runs_table_model.h"

namespace fts {

struct CompareView::LoadResult {
    std::vector<CompareRunData> runs;
    std::vector<std::optional<nlohmann::json>> configs;
    std::vector<nlohmann::json> sweeps;  // one per run (null: not from a sweep)
    bool resolved = false;
    QString error;
};

namespace {

constexpr int kCurveAlpha = 70;  // raw curve under its smoothed line

QString formatOptional(const std::optional<double>& v, int precision = 4) {
    return v ? QString::number(*v, 'f', precision) : QStringLiteral("—");
}

QString formatBytes(const std::optional<double>& bytes) {
    if (!bytes) return QStringLiteral("—");
    return QCoreApplication::translate("fts::CompareView", "%1 MiB").arg(*bytes / (1024.0 * 1024.0), 0, 'f', 1);
}

// Runs in the worker thread: reads runs, metrics and samples, resolves configs. Throws nothing.
void loadRuns(const QString& storePath, const QList<qint64>& ids, CompareView::LoadResult* out);

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
    m_header = new QLabel(this);
    m_header->setObjectName(QStringLiteral("compareHeader"));
    m_header->setWordWrap(true);

    m_metric = new QComboBox(this);
    m_metric->setObjectName(QStringLiteral("compareMetric"));
    for (const char* metric : {"loss", "eval_loss", "lr", "grad_norm", "tokens_per_s"})
        m_metric->addItem(QString(), QString::fromLatin1(metric));  // texts: retranslate()
    for (const char* metric : kClassificationEvalMetrics)
        if (std::string_view(metric) != "eval_f1_micro") m_metric->addItem(QString(), QString::fromLatin1(metric));
    for (const char* metric : kPreferenceMetrics) m_metric->addItem(QString(), QString::fromLatin1(metric));
    m_metric->addItem(QString(), QStringLiteral("aux_loss"));  // a mixture of experts' load-balancing loss

    m_xAxis = new QComboBox(this);
    m_xAxis->setObjectName(QStringLiteral("compareXAxis"));
    for (CompareXAxis axis : {CompareXAxis::Step, CompareXAxis::TokensSeen, CompareXAxis::WallTime})
        m_xAxis->addItem(QString(), int(axis));

    m_smoothing = new QDoubleSpinBox(this);
    m_smoothing->setObjectName(QStringLiteral("compareSmoothing"));
    m_smoothing->setRange(0.0, 0.99);
    m_smoothing->setSingleStep(0.05);
    m_smoothing->setDecimals(2);
    m_smoothing->setValue(0.6);

    m_logScale = new QCheckBox(this);
    m_logScale->setObjectName(QStringLiteral("compareLogScale"));

    // One Export button with a menu (three buttons made the page too wide for a 1024-pixel screen).
    m_exportButton = new QToolButton(this);
    m_exportButton->setObjectName(QStringLiteral("compareExport"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    m_exportButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* exportMenu = new QMenu(m_exportButton);
    m_exportPng = exportMenu->addAction(QString());
    m_exportPdf = exportMenu->addAction(QString());
    m_exportCsv = exportMenu->addAction(QString());
    m_exportButton->setMenu(exportMenu);
    m_metricLabel = new QLabel(this);
    m_xAxisLabel = new QLabel(this);
    m_smoothingLabel = new QLabel(this);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_metricLabel);
    controls->addWidget(m_metric);
    controls->addWidget(m_xAxisLabel);
    controls->addWidget(m_xAxis);
    controls->addWidget(m_smoothingLabel);
    controls->addWidget(m_smoothing);
    controls->addWidget(m_logScale);
    controls->addStretch();
    controls->addWidget(m_exportButton);

    m_chart = new SeriesChart(QString(), QString(), QString(), this);
    m_chart->setObjectName(QStringLiteral("compareChart"));

    m_summaryTable = new QTableWidget(this);
    m_summaryTable->setObjectName(QStringLiteral("compareSummary"));
    m_summaryTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summaryTable->verticalHeader()->hide();
    m_summaryTable->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto* diffPage = new QWidget(this);
    m_diffOnly = new QCheckBox(diffPage);
    m_diffOnly->setObjectName(QStringLiteral("compareDiffOnly"));
    m_diffOnly->setChecked(true);
    m_diffInfo = new QLabel(diffPage);
    m_diffTable = new QTableWidget(diffPage);
    m_diffTable->setObjectName(QStringLiteral("compareDiff"));
    m_diffTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_diffTable->verticalHeader()->hide();
    m_diffTable->setWordWrap(false);
    auto* diffTop = new QHBoxLayout;
    diffTop->addWidget(m_diffOnly);
    diffTop->addWidget(m_diffInfo, 1);
    auto* diffLayout = new QVBoxLayout(diffPage);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    diffLayout->addLayout(diffTop);
    diffLayout->addWidget(m_diffTable, 1);

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_summaryTable, QString());
    m_tabs->addTab(diffPage, QString());
    m_sweepPlot = new SweepPlot(this);  // a third tab while the runs are one sweep's (setSweeps)
    m_sweepPlot->setObjectName(QStringLiteral("compareSweep"));
    m_sweepPlot->hide();

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_chart);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addLayout(controls);
    layout->addWidget(split, 1);

    const auto redraw = [this] { rebuildChart(); };
    connect(m_metric, &QComboBox::currentIndexChanged, this, redraw);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, redraw);
    connect(m_smoothing, &QDoubleSpinBox::valueChanged, this, redraw);
    connect(m_logScale, &QCheckBox::toggled, this, redraw);
    connect(m_diffOnly, &QCheckBox::toggled, this, [this] { rebuildDiff(); });
    connect(m_exportPng, &QAction::triggered, this, [this] {
        const QString path =
            saveFileName(this, tr("Export chart"), QStringLiteral("compare.png"), tr("PNG images (*.png)"));
        QString why;
        if (!path.isEmpty() && !exportPng(path, &why)) m_header->setText(why);
    });
    connect(m_exportPdf, &QAction::triggered, this, [this] {
        const QString path =
            saveFileName(this, tr("Export chart"), QStringLiteral("compare.pdf"), tr("PDF files (*.pdf)"));
        QString why;
        if (!path.isEmpty() && !exportPdf(path, &why)) m_header->setText(why);
    });
    connect(m_exportCsv, &QAction::triggered, this, [this] {
        const QString path =
            saveFileName(this, tr("Export data"), QStringLiteral("compare.csv"), tr("CSV files (*.csv)"));
        QString why;
        if (!path.isEmpty() && !exportCsv(path, &why)) m_header->setText(why);
    });
    retranslateControls();
    setData({}, {}, false);
}

QString CompareView::evalMetricTitle(const QString& key) {
    if (key == QLatin1String("eval_accuracy")) return tr("Eval accuracy");
    if (key == QLatin1String("eval_f1")) return tr("Eval F1");
    if (key == QLatin1String("eval_f1_micro")) return tr("Eval F1 (micro)");
    if (key == QLatin1String("eval_mse")) return tr("Eval MSE");
    if (key == QLatin1String("eval_pearson")) return tr("Eval Pearson r");
    if (key == QLatin1String("rewards/margins")) return tr("Reward margin");
    if (key == QLatin1String("rewards/accuracies")) return tr("Reward accuracy");
    if (key == QLatin1String("rewards/chosen")) return tr("Chosen reward");
    if (key == QLatin1String("rewards/rejected")) return tr("Rejected reward");
    if (key == QLatin1String("eval_rewards/margins")) return tr("Eval reward margin");
    if (key == QLatin1String("eval_rewards/accuracies")) return tr("Eval reward accuracy");
    if (key == QLatin1String("aux_loss")) return tr("Load-balancing loss");
    return key;
}

void CompareView::retranslateControls() {
    const QString metrics[] = {tr("Loss"), tr("Eval loss"), tr("Learning rate"), tr("Grad norm"), tr("Tokens/s")};
    for (int i = 0; i < m_metric->count(); ++i)
        m_metric->setItemText(
            i, i < int(std::size(metrics)) ? metrics[i] : evalMetricTitle(m_metric->itemData(i).toString()));
    const QString axes[] = {tr("Step"), tr("Tokens seen"), tr("Wall time (s)")};
    for (int i = 0; i < m_xAxis->count(); ++i) m_xAxis->setItemText(i, axes[i]);
    m_smoothing->setToolTip(tr("EMA smoothing weight (0 = raw values)"));
    m_logScale->setText(tr("Log scale"));
    m_exportButton->setText(tr("Export"));
    m_exportPng->setText(tr("Export PNG…"));
    m_exportPdf->setText(tr("Export PDF…"));
    m_exportPdf->setToolTip(tr("Vector export (SVG needs the Qt SVG module, which this build does not have)"));
    m_exportCsv->setText(tr("Export CSV…"));
    m_metricLabel->setText(tr("Metric:"));
    m_xAxisLabel->setText(tr("X axis:"));
    m_smoothingLabel->setText(tr("Smoothing:"));
    m_diffOnly->setText(tr("Differences only"));
    m_tabs->setTabText(0, tr("Summary"));
    m_tabs->setTabText(1, tr("Config diff"));
    if (m_tabs->count() > 2) m_tabs->setTabText(2, tr("Sweep"));
}

void CompareView::retranslate() {
    retranslateControls();
    m_sweepPlot->retranslate();
    updateHeader();
    rebuildChart();
    rebuildSummary();
    rebuildDiff();
}

void CompareView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void CompareView::updateHeader() {
    if (m_loading)
        m_header->setText(tr("Loading %n run(s)…", nullptr, m_loadingCount));
    else if (!m_loadError.isEmpty() && m_runs.empty())
        m_header->setText(tr("Cannot compare: %1").arg(m_loadError));
    else if (m_runs.empty())
        m_header->setText(tr("Select two or more runs in the list (Ctrl+click or Shift+click), then Compare."));
    else
        m_header->setText(tr("<b>Comparing %n run(s)</b>", nullptr, int(m_runs.size())));
}

CompareView::~CompareView() {
    // Loader threads only touch their own LoadResult; wait so none outlives the process objects it uses.
    for (const QPointer<QThread>& t : m_threads)
        if (t) t->wait();
}

void CompareView::compareRuns(const QString& storePath, const QList<qint64>& runIds) {
    const quint64 generation = ++m_generation;
    m_loading = true;
    m_loadError.clear();
    m_loadingCount = int(runIds.size());
    updateHeader();
    auto result = std::make_shared<LoadResult>();
    QThread* thread = QThread::create([storePath, runIds, result] { loadRuns(storePath, runIds, result.get()); });
    m_threads.removeAll(QPointer<QThread>());
    m_threads.append(thread);
    connect(thread, &QThread::finished, this, [this, thread, generation, result] {
        m_threads.removeAll(QPointer<QThread>(thread));
        thread->deleteLater();
        if (generation != m_generation) return;  // superseded
        m_pendingResult = result;
        onLoadFinished(generation, result->error);
    });
    thread->start();
}

void CompareView::onLoadFinished(quint64, const QString& error) {
    m_loading = false;
    m_loadError = error;
    std::shared_ptr<LoadResult> r = std::move(m_pendingResult);
    if (!error.isEmpty()) {
        setData({}, {}, false);  // the header says why (updateHeader)
        return;
    }
    setData(std::move(r->runs), std::move(r->configs), r->resolved);
    setSweeps(std::move(r->sweeps));
}

void CompareView::setSweeps(std::vector<nlohmann::json> sweeps) {
    const bool one = m_sweepPlot->setRuns(m_runs, sweeps);
    const int at = m_tabs->indexOf(m_sweepPlot);
    if (one && at < 0) {
        m_tabs->addTab(m_sweepPlot, tr("Sweep"));
    } else if (!one && at >= 0) {
        m_tabs->removeTab(at);
        m_sweepPlot->hide();
    }
}

bool CompareView::sweepTabShown() const { return m_tabs->indexOf(m_sweepPlot) >= 0; }

void CompareView::setData(std::vector<CompareRunData> runs, std::vector<std::optional<nlohmann::json>> configs,
                          bool resolvedConfigs) {
    m_runs = std::move(runs);
    m_configs = std::move(configs);
    m_configs.resize(m_runs.size());
    m_resolvedConfigs = resolvedConfigs;
    updateHeader();
    rebuildChart();
    rebuildSummary();
    rebuildDiff();
    emit loaded();
}

QList<qint64> CompareView::runIds() const {
    QList<qint64> ids;
    for (const CompareRunData& d : m_runs) ids.append(d.run.id);
    return ids;
}

QStringList CompareView::runNames() const {
    QStringList names;
    for (const CompareRunData& d : m_runs)
        names << (d.run.name.empty()
                      ? tr("run %1").arg(d.run.id)
                      : QStringLiteral("%1 (#%2)").arg(QString::fromStdString(d.run.name)).arg(d.run.id));
    return names;
}

QString CompareView::metric() const { return m_metric->currentData().toString(); }
void CompareView::setXAxis(CompareXAxis axis) { m_xAxis->setCurrentIndex(m_xAxis->findData(int(axis))); }
CompareXAxis CompareView::xAxis() const { return CompareXAxis(m_xAxis->currentData().toInt()); }
void CompareView::setSmoothing(double weight) { m_smoothing->setValue(weight); }
double CompareView::smoothing() const { return m_smoothing->value(); }
void CompareView::setLogScale(bool on) { m_logScale->setChecked(on); }
bool CompareView::logScale() const { return m_logScale->isChecked(); }

QString CompareView::xAxisName() const {
    switch (xAxis()) {
        case CompareXAxis::Step:
            return QStringLiteral("step");
        case CompareXAxis::TokensSeen:
            return QStringLiteral("tokens_seen");
        case CompareXAxis::WallTime:
            return QStringLiteral("wall_time_s");
    }
    return {};
}

void CompareView::rebuildChart() {
    m_chart->removeAllSeries();
    m_curves.clear();
    m_smoothed.clear();
    const std::string name = metric().toStdString();
    const double weight = smoothing();
    const bool log = logScale();
    const QStringList names = runNames();
    for (size_t i = 0; i < m_runs.size(); ++i) {
        CompareCurve c = compareCurve(m_runs[i], name, xAxis());
        if (log) {  // a log axis cannot show values <= 0
            CompareCurve kept;
            for (qsizetype k = 0; k < c.x.size(); ++k)
                if (c.y[k] > 0) kept.x.push_back(c.x[k]), kept.y.push_back(c.y[k]);
            c = std::move(kept);
        }
        const QColor colour = SeriesChart::seriesColor(int(i));
        QVector<double> smooth = emaSmooth(c.y, weight);
        if (weight > 0) {
            QColor faint = colour;
            faint.setAlpha(kCurveAlpha);
            QCPGraph* raw = m_chart->ensureGraph(QStringLiteral("raw:%1").arg(i), names[qsizetype(i)], QPen(faint, 1));
            raw->setData(c.x, c.y, /*alreadySorted=*/true);
            raw->removeFromLegend();
        }
        QCPGraph* g = m_chart->ensureGraph(QStringLiteral("run:%1").arg(i), names[qsizetype(i)], QPen(colour, 2));
        g->setData(c.x, smooth, /*alreadySorted=*/true);
        if (c.x.size() == 1) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
        m_curves.push_back(std::move(c));
        m_smoothed.push_back(std::move(smooth));
    }
    if (log) {
        m_chart->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_chart->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    } else {
        m_chart->yAxis->setScaleType(QCPAxis::stLinear);
        m_chart->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    m_chart->setTitle(m_metric->currentText());
    m_chart->xAxis->setLabel(m_xAxis->currentText());
    m_chart->yAxis->setLabel(m_metric->currentText());
    m_chart->refresh();
}

void CompareView::rebuildSummary() {
    std::vector<RunSummary> summaries;
    for (const CompareRunData& run : m_runs) summaries.push_back(summarizeRun(run));
    // Classification runs add their final eval metrics, in a fixed order, where any run has them.
    std::vector<std::string> shownEval;
    QStringList evalHeaders;
    for (const char* key : kClassificationEvalMetrics)
        for (const RunSummary& s : summaries)
            if (s.finalEvalMetrics.count(key)) {
                shownEval.push_back(key);
                evalHeaders << evalMetricTitle(QString::fromLatin1(key));
                break;
            }
    QStringList headers = {tr("Run"),        tr("Status"),          tr("Steps"),
                           tr("Final loss"), tr("Final eval loss"), tr("Best eval loss")};
    headers << evalHeaders;
    headers << QStringList{tr("Tokens/s"), tr("Tokens seen"), tr("Peak memory"), tr("Duration")};
    m_summaryTable->clear();
    m_summaryTable->setColumnCount(int(headers.size()));
    m_summaryTable->setHorizontalHeaderLabels(headers);
    m_summaryTable->setRowCount(int(m_runs.size()));
    const QStringList names = runNames();
    for (size_t i = 0; i < m_runs.size(); ++i) {
        const RunSummary& s = summaries[i];
        const int row = int(i);
        auto* nameItem = new QTableWidgetItem(names[qsizetype(i)]);
        nameItem->setData(Qt::DecorationRole, SeriesChart::seriesColor(row));
        nameItem->setToolTip(QString::fromStdString(m_runs[i].run.configPath));
        m_summaryTable->setItem(row, 0, nameItem);
        m_summaryTable->setItem(row, 1, new QTableWidgetItem(RunsTableModel::statusText(m_runs[i].run.status)));
        m_summaryTable->setItem(row, 2, new QTableWidgetItem(QString::number(s.steps)));
        m_summaryTable->setItem(row, 3, new QTableWidgetItem(formatOptional(s.finalLoss)));
        m_summaryTable->setItem(row, 4, new QTableWidgetItem(formatOptional(s.finalEvalLoss)));
        m_summaryTable->setItem(row, 5, new QTableWidgetItem(formatOptional(s.bestEvalLoss)));
        int col = 6;
        for (const std::string& key : shownEval) {
            const auto it = s.finalEvalMetrics.find(key);
            m_summaryTable->setItem(
                row, col++,
                new QTableWidgetItem(
                    formatOptional(it == s.finalEvalMetrics.end() ? std::nullopt : std::optional<double>(it->second))));
        }
        m_summaryTable->setItem(row, col++, new QTableWidgetItem(formatOptional(s.meanTokensPerS, 0)));
        m_summaryTable->setItem(row, col++, new QTableWidgetItem(formatOptional(s.tokensSeen, 0)));
        m_summaryTable->setItem(row, col++, new QTableWidgetItem(formatBytes(s.peakMemoryBytes)));
        m_summaryTable->setItem(
            row, col, new QTableWidgetItem(s.durationS ? RunView::formatDuration(*s.durationS) : QStringLiteral("—")));
    }
    m_summaryTable->resizeColumnsToContents();
}

void CompareView::rebuildDiff() {
    std::vector<nlohmann::json> configs;
    for (const auto& c : m_configs) configs.push_back(c ? *c : nlohmann::json::object());
    const std::vector<ConfigDiffRow> all = configDiff(configs, /*diffOnly=*/false);
    int differing = 0;
    for (const ConfigDiffRow& r : all) differing += r.differs ? 1 : 0;
    const bool diffOnly = m_diffOnly->isChecked();

    QStringList headers = {tr("Key")};
    headers << runNames();
    m_diffTable->clear();
    m_diffTable->setColumnCount(int(headers.size()));
    m_diffTable->setHorizontalHeaderLabels(headers);
    m_diffTable->setRowCount(0);
    const QColor highlight(255, 243, 205);
    for (const ConfigDiffRow& r : all) {
        if (diffOnly && !r.differs) continue;
        const int row = m_diffTable->rowCount();
        m_diffTable->insertRow(row);
        m_diffTable->setItem(row, 0, new QTableWidgetItem(r.key));
        for (qsizetype i = 0; i < r.values.size(); ++i) {
            auto* item = new QTableWidgetItem(r.values[i].isEmpty() ? tr("(absent)") : r.values[i]);
            if (r.differs) item->setBackground(highlight);
            m_diffTable->setItem(row, int(i) + 1, item);
        }
    }
    m_diffTable->resizeColumnsToContents();
    QString info = tr("%1 of %2 keys differ").arg(differing).arg(all.size());
    if (!m_runs.empty())
        info += m_resolvedConfigs ? tr(" (resolved configs: defaults filled in)")
                                  : tr(" (configs as written: some no longer validate)");
    m_diffInfo->setText(info);
}

QString CompareView::curvesCsv() const {
    return curvesToCsv(runNames(), m_curves, smoothing() > 0 ? m_smoothed : std::vector<QVector<double>>{},
                       xAxisName());
}

bool CompareView::exportPng(const QString& path, QString* error) {
    if (m_chart->savePng(path, 0, 0, 2.0)) return true;
    if (error) *error = tr("Cannot write the chart to %1").arg(path);
    return false;
}

bool CompareView::exportPdf(const QString& path, QString* error) {
    if (m_chart->savePdf(path)) return true;
    if (error) *error = tr("Cannot write the chart to %1").arg(path);
    return false;
}

bool CompareView::exportCsv(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text) || f.write(curvesCsv().toUtf8()) < 0) {
        if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

namespace {

void loadRuns(const QString& storePath, const QList<qint64>& ids, CompareView::LoadResult* out) {
    try {
        RunStore store(storePath.toStdString(), /*readOnly=*/true);
        for (qint64 id : ids) {
            auto run = store.getRun(id);
            if (!run) continue;  // deleted meanwhile
            CompareRunData d;
            d.run = std::move(*run);
            d.metrics = store.metrics(id);
            d.samples = store.deviceSamples(id);
            out->runs.push_back(std::move(d));
        }
        // the sweep each run came from (its queue entry), for the Sweep tab
        std::map<int64_t, nlohmann::json> sweepOf;
        for (const QueueEntry& e : RunQueue(store).list())
            if (e.runId > 0 && !e.sweep.empty()) {
                nlohmann::json meta = parseJsonOrDiscarded(e.sweepValues);
                if (!meta.is_object()) continue;
                meta["sweep"] = e.sweep;
                meta["submission"] = e.submission;  // one sweep is one submission, whatever its name
                sweepOf[e.runId] = std::move(meta);
            }
        for (const CompareRunData& d : out->runs)
            out->sweeps.push_back(sweepOf.count(d.run.id) ? sweepOf[d.run.id] : nlohmann::json());
    } catch (const std::exception& e) {
        out->error = QString::fromStdString(e.what());
        return;
    }
    // Resolved configs when every run's config still validates; otherwise the stored JSON for all, so
    // that defaults filled in for some runs only do not show up as differences.
    bool allResolved = !out->runs.empty();
    for (const CompareRunData& d : out->runs) {
        bool resolved = false;
        out->configs.push_back(comparableConfig(d.run, &resolved));
        allResolved = allResolved && resolved;
    }
    if (!allResolved) {
        for (size_t i = 0; i < out->runs.size(); ++i) {
            auto doc = parseJsonOrDiscarded(out->runs[i].run.configJson);
            out->configs[i] = doc.is_discarded() ? std::nullopt : std::optional<nlohmann::json>(std::move(doc));
        }
    }
    out->resolved = allResolved;
}

}  // namespace

}  // namespace fts
