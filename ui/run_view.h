// RunView: live view of one run (and Export… of its model once it is not running): loss/eval loss (EMA smoothing, log scale), learning rate, grad norm, loss
// scale, tokens/s and per-rank memory history charts, per-rank memory bars and host RAM, progress and ETA,
// recent log lines, texts sampled from the weights (training.sample_prompts), Stop & save and Stop now. Batches from the poller go into LiveSeries buffers; a 100 ms single-shot
// timer redraws, so the replot rate is at most 10/s however fast points arrive.
#pragma once
#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "core/store/run_store.h"
#include "ui/live_series.h"
#include "ui/store_poller.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace fts {

class MemoryBars;
class SeriesChart;

class RunView : public QWidget {
    Q_OBJECT
public:
    // The failure reason in the studio's words where it knows the kind (out of memory), else as fts wrote it.
    static QString failureText(const QString& reason);
    // Redraws are batched: at most one per 100 ms (<= 10 Hz) however fast batches arrive.
    static constexpr int kReplotDelayMs = 100;

    explicit RunView(QWidget* parent = nullptr);
    ~RunView() override;

    qint64 runId() const { return m_run ? m_run->id : 0; }
    // Shows this run: clears the charts when it is a different run than the one shown.
    void showRun(const RunRecord& run);
    // The same run's row changed (status, step, final metrics).
    void updateRun(const RunRecord& run);
    void clear();
    void applyBatch(const RunDataBatch& batch);
    void setLogs(qint64 runId, const QStringList& lines);     // replaces the log tail
    void appendLogs(qint64 runId, const QStringList& lines);  // adds new lines (the view keeps the last 500)
    void setStopPending(bool pending);
    bool isStopPending() const { return m_stopPending; }

    SeriesChart* lossChart() const { return m_lossChart; }
    SeriesChart* memoryChart() const { return m_memoryChart; }
    SeriesChart* lrChart() const { return m_lrChart; }
    SeriesChart* evalMetricsChart() const { return m_evalMetricsChart; }
    SeriesChart* rewardsChart() const { return m_rewardsChart; }
    SeriesChart* routerChart() const { return m_routerChart; }
    SeriesChart* gradNormChart() const { return m_gradNormChart; }
    SeriesChart* lossScaleChart() const { return m_lossScaleChart; }
    SeriesChart* tokensChart() const { return m_tokensChart; }
    QTabWidget* chartTabs() const { return m_tabs; }
    // training.sample_prompts: step, prompt and reply of every sample, newest first (the tab appears with the first).
    QTableWidget* samplesTable() const { return m_samplesTable; }
    MemoryBars* memoryBars() const { return m_bars; }
    QProgressBar* progressBar() const { return m_progress; }
    QDoubleSpinBox* smoothingSpin() const { return m_smoothSpin; }
    QCheckBox* logScaleCheck() const { return m_logScale; }
    QString etaText() const;
    // Stop & save: SIGTERM, the ranks checkpoint then stop (resumable).
    QPushButton* stopButton() const { return m_stopButton; }
    // Stop now: a second signal; the supervisor kills the workers (no checkpoint).
    QPushButton* stopNowButton() const { return m_stopNowButton; }
    // Resume: visible for a stopped or failed run; its owner enables it (MainWindow::canResume).
    QPushButton* resumeButton() const { return m_resumeButton; }
    // Export…: the run's model as a GGUF file or an HF folder (ExportDialog); shown for a run that is not running,
    // enabled by its owner when the run's output folder holds a checkpoint (MainWindow::canExport).
    QPushButton* exportButton() const { return m_exportButton; }
    QString statusText() const;
    int replotCount() const { return m_replots; }

    // Seconds per optimizer step over the recent window of (step, unix time) points; nullopt if unknown.
    static std::optional<double> secondsPerStep(const std::vector<std::pair<int64_t, double>>& stepTimes);
    static QString formatDuration(double seconds);
    // "took 3m05s" for an ended run: its training time over every session, and for a stopped and resumed run the
    // wall time from its creation beside it.
    static QString tookText(const RunRecord& r);
    // Every text of the page again in the current language (also on QEvent::LanguageChange).
    void retranslate();

signals:
    void stopClicked(qint64 runId);
    void stopNowClicked(qint64 runId);
    void resumeClicked(qint64 runId);
    void exportClicked(qint64 runId);

protected:
    void changeEvent(QEvent* event) override;

private:
    static constexpr int kFactCount = 5;  // status, step, loss, tokens/s, ETA
    void nameMemoryGraphs();
    void scheduleReplot();
    void replotNow();
    void updateLabels();
    void ensureMemoryGraphs(int rank, const QString& device);
    void applyScale();
    void updateBars();

    std::optional<RunRecord> m_run;
    LiveSeries m_loss, m_evalLoss, m_lossSmoothed, m_lr, m_gradNorm, m_lossScale, m_tokensPerS;
    quint64 m_smoothedRevision = 0;
    double m_smoothedWeight = -1;
    QString deviceName(const std::pair<int, QString>& key) const;
    std::map<std::pair<int, QString>, DeviceSample> m_lastMemory;
    std::map<std::pair<int, QString>, LiveSeries> m_memAllocated, m_memPeak;  // MiB per (rank, device)
    std::map<std::pair<int, QString>, double> m_capacityMiB;
    std::vector<std::pair<int64_t, double>> m_stepTimes;  // recent (step, time) of loss points, for the ETA
    double m_lastTokensPerS = -1;
    int64_t m_estimateTotal = 0, m_estimateAllocator = 0;  // fts train's memory estimate per rank (bytes; 0: none)
    double m_lastLr = -1;
    int64_t m_lastStep = 0;
    bool m_stopPending = false;
    bool m_memoryNamesStale = false;  // a memory graph or capacity appeared since the legend was named
    bool m_evalNamesStale = false;    // an eval metric graph appeared since the legend was named
    int m_replots = 0;

    QTimer m_replotTimer;
    SeriesChart* m_lossChart;
    SeriesChart* m_memoryChart;
    QLabel* m_title;
    QLabel* m_factNames[kFactCount] = {};
    QLabel* m_smoothLabel = nullptr;
    QLabel* m_status;
    QLabel* m_step;
    QLabel* m_lossLabel;
    QLabel* m_throughput;
    QLabel* m_eta;
    QLabel* m_failure;
    QPlainTextEdit* m_logs;
    QPushButton* m_stopButton;
    QPushButton* m_stopNowButton;
    QPushButton* m_resumeButton;
    QPushButton* m_exportButton;
    SeriesChart* m_lrChart;
    SeriesChart* m_gradNormChart;
    SeriesChart* m_lossScaleChart;
    SeriesChart* m_tokensChart;
    // Classification runs: eval_accuracy, eval_f1, eval_mse, ... (every eval_* metric but eval_loss), one graph each;
    // the tab appears with the first such point.
    SeriesChart* m_evalMetricsChart;
    std::map<QString, LiveSeries> m_evalMetrics;
    void showEvalMetricsTab(bool show);
    // Preference runs (training.objective dpo / orpo / simpo): TRL's rewards/chosen, rewards/rejected and
    // rewards/margins per logged step; the tab appears (and comes forward) with the first such point.
    SeriesChart* m_rewardsChart;
    std::map<QString, LiveSeries> m_rewards;
    SeriesChart* m_routerChart;  // a mixture of experts' load-balancing loss (aux_loss); a tab once it is logged
    LiveSeries m_auxLoss;
    bool m_rewardNamesStale = false;
    QTableWidget* m_samplesTable;
    void showSamplesTab(bool show);
    void addSampleTexts(const std::vector<SampleText>& texts);
    QTabWidget* m_tabs;
    MemoryBars* m_bars;
    QProgressBar* m_progress;
    QDoubleSpinBox* m_smoothSpin;
    QCheckBox* m_logScale;
};

}  // namespace fts
