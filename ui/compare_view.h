// CompareView: overlay of several runs' curves (metric, x = step / tokens seen / wall time, EMA smoothing,
// log scale, per-run colours), the "diff only" config table and a summary table. Runs are read from the
// store on a worker thread (a read-only RunStore per load); the UI thread only gets the finished result.
#pragma once
#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "ui/run_compare.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QToolButton;
class QAction;
class QTableWidget;
class QTabWidget;
class QThread;

namespace fts {

class SeriesChart;
class SweepPlot;

class CompareView : public QWidget {
    Q_OBJECT
public:
    struct LoadResult;  // what the loader thread hands back (defined in the .cpp)

    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    // Reads the runs (in this order) from the store off the UI thread, then shows them. A newer call
    // supersedes a load still in flight.
    void compareRuns(const QString& storePath, const QList<qint64>& runIds);
    // Shows already loaded runs (tests and the loader's result). configs: one per run (nullopt: unreadable).
    void setData(std::vector<CompareRunData> runs, std::vector<std::optional<nlohmann::json>> configs,
                 bool resolvedConfigs);

    // The compared runs' sweep entries (one per run: {"sweep", "keys", "values", "metric", "goal"} or null): the
    // Sweep tab shows when they all belong to one sweep. The loader sets them from the store's queue.
    void setSweeps(std::vector<nlohmann::json> sweeps);
    SweepPlot* sweepPlot() const { return m_sweepPlot; }
    bool sweepTabShown() const;

    QList<qint64> runIds() const;
    bool isLoading() const { return m_loading; }
    QString loadError() const { return m_loadError; }

    QString metric() const;
    void setXAxis(CompareXAxis axis);
    CompareXAxis xAxis() const;
    void setSmoothing(double weight);
    double smoothing() const;
    void setLogScale(bool on);
    bool logScale() const;

    // Exports (user-chosen files; small, so written on the UI thread). Return false with *error on failure.
    bool exportPng(const QString& path, QString* error = nullptr);
    bool exportPdf(const QString& path, QString* error = nullptr);
    bool exportCsv(const QString& path, QString* error = nullptr);
    QString curvesCsv() const;

    SeriesChart* chart() const { return m_chart; }
    QTableWidget* diffTable() const { return m_diffTable; }
    QTableWidget* summaryTable() const { return m_summaryTable; }
    QCheckBox* diffOnlyCheck() const { return m_diffOnly; }
    QTabWidget* tabs() const { return m_tabs; }
    // The curves drawn (raw values), one per run in runIds() order.
    const std::vector<CompareCurve>& curves() const { return m_curves; }

    // Every text of the page again in the current language (also on QEvent::LanguageChange).
    void retranslate();

signals:
    void loaded();  // after setData (from a load or directly)

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateControls();
    static QString evalMetricTitle(const QString& key);  // "Eval accuracy" for eval_accuracy, ... (classification)
    void updateHeader();
    void rebuildChart();
    void rebuildDiff();
    void rebuildSummary();
    void onLoadFinished(quint64 generation, const QString& error);
    QString xAxisName() const;
    QStringList runNames() const;

    std::vector<CompareRunData> m_runs;
    std::vector<std::optional<nlohmann::json>> m_configs;
    bool m_resolvedConfigs = false;
    std::vector<CompareCurve> m_curves;
    std::vector<QVector<double>> m_smoothed;

    std::shared_ptr<LoadResult> m_pendingResult;
    quint64 m_generation = 0;
    bool m_loading = false;
    int m_loadingCount = 0;
    QString m_loadError;
    QList<QPointer<QThread>> m_threads;

    QLabel* m_header;
    QComboBox* m_metric;
    QComboBox* m_xAxis;
    QDoubleSpinBox* m_smoothing;
    QCheckBox* m_logScale;
    QToolButton* m_exportButton;
    QAction* m_exportPng;
    QAction* m_exportPdf;
    QAction* m_exportCsv;
    SeriesChart* m_chart;
    QTabWidget* m_tabs;
    QTableWidget* m_summaryTable;
    SweepPlot* m_sweepPlot = nullptr;
    QTableWidget* m_diffTable;
    QCheckBox* m_diffOnly;
    QLabel* m_diffInfo;
    QLabel* m_metricLabel;
    QLabel* m_xAxisLabel;
    QLabel* m_smoothingLabel;
};

}  // namespace fts
