// The Sweep tab of the compare page (see sweep_plot.h).
#include "ui/sweep_plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <optional>

#include "ui/chart_widget.h"
#include "ui/live_series.h"

namespace fts {

namespace {

// The run's figure for the sweep's metric: its best value, else the last training loss.
std::optional<double> runMetric(const CompareRunData& d, const std::string& metric, bool minimize, bool* fallback) {
    std::optional<double> best;
    for (const MetricPoint& m : d.metrics)
        if (m.name == metric && std::isfinite(m.value))
            best = !best ? m.value : minimize ? std::min(*best, m.value) : std::max(*best, m.value);
    if (best) return best;
    *fallback = true;
    std::optional<double> last;
    int64_t step = -1;
    for (const MetricPoint& m : d.metrics)
        if (m.name == "loss" && std::isfinite(m.value) && m.step >= step) {
            step = m.step;
            last = m.value;
        }
    return last;
}

}  // namespace

SweepPlot::SweepPlot(QWidget* parent) : QWidget(parent) {
    m_key = new QComboBox(this);
    m_key->setObjectName(QStringLiteral("sweepKey"));
    m_key->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);  // long key paths: narrow page
    m_key->setMinimumContentsLength(16);
    m_info = new QLabel(this);
    m_info->setWordWrap(true);
    m_chart = new SeriesChart(QString(), QString(), QString(), this);
    m_chart->setObjectName(QStringLiteral("sweepChart"));
    m_chart->setMinimumHeight(120);
    m_chart->setMinimumWidth(220);
    m_table = new QTableWidget(this);
    m_table->setObjectName(QStringLiteral("sweepTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->setMinimumWidth(120);
    auto* top = new QHBoxLayout;
    top->addWidget(m_key);
    top->addWidget(m_info, 1);
    auto* body = new QHBoxLayout;
    body->addWidget(m_chart, 3);
    body->addWidget(m_table, 2);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->addLayout(top);
    v->addLayout(body, 1);
    connect(m_key, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
}

bool SweepPlot::setRuns(const std::vector<CompareRunData>& runs, const std::vector<nlohmann::json>& sweeps) {
    m_runs = runs;
    m_sweeps = sweeps;
    m_name.clear();
    // one sweep: every run from the same submission (the same sweep file queued twice is two sweeps)
    bool one = !runs.empty() && sweeps.size() == runs.size();
    std::optional<int64_t> submission;
    for (const nlohmann::json& s : sweeps) {
        if (!s.is_object() || !s.contains("sweep")) {
            one = false;
            break;
        }
        const QString name = QString::fromStdString(s.at("sweep").get<std::string>());
        const int64_t from = s.value("submission", int64_t(0));
        if ((!m_name.isEmpty() && name != m_name) || (submission && *submission != from)) one = false;
        m_name = name;
        submission = from;
    }
    const QString keep = m_key->currentData().toString();
    m_key->blockSignals(true);
    m_key->clear();
    if (one) {
        m_metric = sweeps.front().value("metric", std::string("eval_loss"));
        m_goal = sweeps.front().value("goal", std::string("minimize"));
        for (const nlohmann::json& k : sweeps.front().value("keys", nlohmann::json::array()))
            m_key->addItem(QString::fromStdString(k.get<std::string>()).section(QLatin1Char('.'), -1),
                           QString::fromStdString(k.get<std::string>()));
        if (const int at = m_key->findData(keep); at >= 0) m_key->setCurrentIndex(at);
    }
    m_key->blockSignals(false);
    rebuild();
    return one;
}

void SweepPlot::retranslate() { rebuild(); }

void SweepPlot::rebuild() {
    m_points.clear();
    m_chart->removeAllSeries();
    m_table->clear();
    const std::string key = m_key->currentData().toString().toStdString();
    if (key.empty() || m_runs.empty()) {
        m_info->setText(tr("These runs are not from one sweep."));
        m_chart->refresh();
        return;
    }
    const bool minimize = m_goal != "maximize";
    bool fallback = false, textValues = false;
    std::vector<std::tuple<double, double, QString, QString>> rows;  // x, y, value text, run name
    std::vector<std::string> distinct;
    for (size_t i = 0; i < m_runs.size(); ++i) {
        const nlohmann::json v = m_sweeps[i].value("values", nlohmann::json::object()).value(key, nlohmann::json());
        const auto y = runMetric(m_runs[i], m_metric, minimize, &fallback);
        if (v.is_null() || !y) continue;
        double x = 0;
        if (v.is_number()) {
            x = v.get<double>();
        } else {  // a text or boolean value: its place among the values seen
            textValues = true;
            const std::string t = v.dump();
            auto at = std::find(distinct.begin(), distinct.end(), t);
            if (at == distinct.end()) at = distinct.insert(distinct.end(), t);
            x = double(at - distinct.begin());
        }
        rows.emplace_back(x, *y, QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()),
                          QString::fromStdString(m_runs[i].run.name));
    }
    std::sort(rows.begin(), rows.end());
    LiveSeries series;
    for (const auto& [x, y, text, name] : rows) {
        series.append(x, y);
        m_points.emplace_back(x, y);
    }
    const QString metricName = fallback
                                   ? tr("final loss")
                                   : QString::fromStdString(m_metric) + (minimize ? tr(" (lowest)") : tr(" (highest)"));
    // one point per run (several seeds share an x): points, no line; one series, so no legend
    const QString shortKey = QString::fromStdString(key).section(QLatin1Char('.'), -1);
    QPen pen(SeriesChart::seriesColor(0), 2);
    QCPGraph* g = m_chart->ensureGraph(QStringLiteral("sweep"), metricName, pen);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 8));
    g->setLineStyle(QCPGraph::lsNone);
    m_chart->legend->setVisible(false);
    m_chart->sync(QStringLiteral("sweep"), series);
    // values over a decade or more (learning rates): a logarithmic x axis
    const bool logX = !textValues && !m_points.empty() && m_points.front().first > 0 &&
                      m_points.back().first / m_points.front().first >= 10;
    m_chart->xAxis->setScaleType(logX ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logX)
        m_chart->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else
        m_chart->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    m_chart->setAxisLabels(shortKey + (textValues ? tr(" (values in the order seen)") : QString()), metricName);
    m_chart->setTitle(tr("%1 against %2").arg(metricName, shortKey));
    m_chart->refresh();
    m_key->setToolTip(QString::fromStdString(key));
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({shortKey, metricName, tr("Run")});
    m_table->setRowCount(int(rows.size()));
    int r = 0;
    for (const auto& [x, y, text, name] : rows) {
        m_table->setItem(r, 0, new QTableWidgetItem(text));
        m_table->setItem(r, 1, new QTableWidgetItem(QString::number(y, 'g', 5)));
        m_table->setItem(r, 2, new QTableWidgetItem(name));
        ++r;
    }
    m_table->resizeColumnsToContents();
    m_info->setText(tr("%1 runs of the sweep \"%2\"; one point per run.").arg(rows.size()).arg(m_name));
}

}  // namespace fts
