// StorePoller: the GUI's only reader of the SQLite run store. It lives on a worker QThread, polls ~4x/s
// and emits batches (run list, new metric/device points of the watched run, new log lines); the UI thread
// never touches SQLite. Everything is diffed here, so the UI thread gets only what changed: the list in full
// only when runs appear or vanish (else just the changed rows), points incrementally (afterStep, deduplicated
// per series), log lines by row id, the best eval losses only when they changed.
#pragma once
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/store/run_store.h"

class QThread;
class QTimer;

namespace fts {

using RunList = std::vector<RunRecord>;
using RunScores = std::vector<std::pair<int64_t, double>>;  // (run id, value), e.g. the best eval loss

// New points of one run since the previous batch. reset: first batch after watchRun() (the history so far):
// the receiver clears what it shows before applying it.
struct RunDataBatch {
    qint64 runId = 0;
    bool reset = false;
    std::vector<MetricPoint> metrics;
    std::vector<DeviceSample> samples;
    std::vector<SampleText> texts;  // generated from the weights at a step (training.sample_prompts), by row id
};

class StorePoller : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 250;
    static constexpr int kMaxListedRuns = 100000;  // the history shows every run up to this many
    // Steps re-read behind the newest one seen, so metrics of a step written in a later transaction
    // (an eval after the train step, a lagging rank) are not missed; duplicates are filtered per series.
    static constexpr int64_t kRereadSteps = 2;
    static constexpr int kLogTail = 200;

    explicit StorePoller(QString storePath, int intervalMs = kDefaultIntervalMs, QObject* parent = nullptr);
    ~StorePoller() override;

    QString storePath() const { return m_storePath; }

public slots:
    void start();                 // call in the worker thread: starts polling (first poll immediately)
    void stop();                  // stops the timer and closes the store (call before the thread quits)
    void watchRun(qint64 runId);  // 0: none. The next batch carries the run's whole history (reset=true).
    void pollNow();
    // Sends SIGTERM to the run's supervisor after checking in the store that the run is still running
    // on this host. Answers with stopRequested().
    void requestStop(qint64 runId);

signals:
    // The whole list: the first time, and whenever runs appeared or vanished (ids differ).
    void runsListed(const fts::RunList& runs);
    // The same runs as the last list, of which these rows changed (status, step, name, ...).
    void runsChanged(const fts::RunList& changedRows);
    void bestEvalListed(const fts::RunScores& best);  // when it changed: smallest eval_loss per run
    void runData(const fts::RunDataBatch& batch);
    // The watched run's latest log lines (up to kLogTail): after watchRun(), or when more than kLogTail
    // new lines arrived at once. The receiver replaces what it shows.
    void runLogs(qint64 runId, const QStringList& lines);
    // Lines written since the last runLogs/runLogsAppended; the receiver appends them.
    void runLogsAppended(qint64 runId, const QStringList& lines);
    void storeState(bool available, const QString& message);
    void stopRequested(qint64 runId, bool ok, const QString& message);

private:
    bool ensureOpen();
    void closeStore(const QString& why);
    bool pollRuns();  // true when the list changed (and was emitted)
    void pollBestEval(bool force);
    void pollWatched();
    void pollLogs();

    QString m_storePath;
    int m_intervalMs;
    QTimer* m_timer = nullptr;
    std::unique_ptr<RunStore> m_store;
    int m_storeAvailable = -1;  // -1 unknown, 0 no, 1 yes (storeState is emitted on change)
    QString m_lastStoreMessage;
    bool m_listedOnce = false;
    std::vector<std::string> m_runsSignature;
    std::vector<int64_t> m_runIds;
    bool m_bestEvalDirty = false;
    RunScores m_bestEval;
    unsigned m_tick = 0;

    qint64 m_watchId = 0;
    bool m_resetPending = false;
    int64_t m_maxMetricStep = -1;
    std::map<std::string, int64_t> m_metricLast;  // name -> last step delivered
    int64_t m_maxSampleStep = -1;
    std::map<std::pair<int, std::string>, int64_t> m_sampleLast;  // (rank, device) -> last step
    int64_t m_lastLogId = -1;                                     // -1: send the tail (after watchRun)
    int64_t m_lastTextId = 0;                                     // the last sample text delivered
};

// Owns a worker thread running one StorePoller; destruction stops polling and joins the thread.
class StorePollerThread : public QObject {
    Q_OBJECT
public:
    explicit StorePollerThread(const QString& storePath, int intervalMs = StorePoller::kDefaultIntervalMs,
                               QObject* parent = nullptr);
    ~StorePollerThread() override;
    StorePoller* poller() const { return m_poller; }
    void start();
    // Thread-safe requests (queued into the worker thread).
    void watchRun(qint64 runId);
    void requestStop(qint64 runId);
    void pollNow();

private:
    QThread* m_thread;
    StorePoller* m_poller;
};

}  // namespace fts

Q_DECLARE_METATYPE(fts::RunList)
Q_DECLARE_METATYPE(fts::RunScores)
Q_DECLARE_METATYPE(fts::RunDataBatch)
