// SweepPlot: the compare page's Sweep tab. When the compared runs come from one sweep (their queue entries carry
// the sweep's name, keys and values), it plots the sweep's metric (its best value in each run: the lowest for
// "minimize", else the highest; the final loss where a run has none) against the value of a swept key, one point
// per run, and lists them.
#pragma once
#include <QWidget>

#include <nlohmann/json.hpp>
#include <vector>

#include "ui/run_compare.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace fts {

class SeriesChart;

class SweepPlot : public QWidget {
    Q_OBJECT
public:
    explicit SweepPlot(QWidget* parent = nullptr);
    // sweeps: one per run (its queue entry's {"sweep", "keys", "values", "metric", "goal"}, or null). Returns true when
    // every run belongs to the same sweep (the tab is worth showing).
    bool setRuns(const std::vector<CompareRunData>& runs, const std::vector<nlohmann::json>& sweeps);
    QComboBox* keyCombo() const { return m_key; }
    SeriesChart* chart() const { return m_chart; }
    QTableWidget* table() const { return m_table; }
    QString sweepName() const { return m_name; }
    // The points drawn (x = the swept value, y = the metric), in x order.
    const std::vector<std::pair<double, double>>& points() const { return m_points; }
    void retranslate();

private:
    QComboBox* m_key;
    QLabel* m_info;
    SeriesChart* m_chart;
    QTableWidget* m_table;
    QString m_name;
    std::string m_metric = "eval_loss", m_goal = "minimize";
    std::vector<CompareRunData> m_runs;
    std::vector<nlohmann::json> m_sweeps;
    std::vector<std::pair<double, double>> m_points;
    void rebuild();
};

}  // namespace fts
