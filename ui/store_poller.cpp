// StorePoller: incremental, read-only polling of the run store on a worker thread (see store_poller.h).
#include "ui/store_poller.h"
#include "ui/log_line_text.h"

#include "core/util/error.h"

#include <sys/types.h>
#include <unistd.h>

#include <QDateTime>
#include <QFileInfo>
#include <QThread>
#include <QTimer>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "core/util/error.h"

namespace fts {
namespace {

std::string localHostName() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof(buf) - 1) != 0) return {};
    return buf;
}

// What the run list shows; a change in any of these fields re-emits the list.
std::string runSignature(const RunRecord& r) {
    std::string s = std::to_string(r.id);
    s += '|';
    s += toString(r.status);
    s += '|' + r.name + '|' + r.model + '|' + std::to_string(r.lastStep) + '|' + std::to_string(r.totalSteps) + '|' +
         std::to_string(r.pid) + '|' + std::to_string(r.startedAt) + '|' + std::to_string(r.endedAt) + '|' +
         r.finalMetricsJson + '|' + r.failureReason + '|' + r.notes + '|';
    for (const std::string& t : r.tags) s += t + ',';
    return s;
}

}  // namespace

StorePoller::StorePoller(QString storePath, int intervalMs, QObject* parent)
    : QObject(parent), m_storePath(std::move(storePath)), m_intervalMs(intervalMs) {
    qRegisterMetaType<fts::RunList>();
    qRegisterMetaType<fts::RunScores>();
    qRegisterMetaType<fts::RunDataBatch>();
}

StorePoller::~StorePoller() = default;

void StorePoller::start() {
    if (!m_timer) {
        m_timer = new QTimer(this);
        m_timer->setInterval(m_intervalMs);
        connect(m_timer, &QTimer::timeout, this, &StorePoller::pollNow);
    }
    m_timer->start();
    pollNow();
}

void StorePoller::stop() {
    if (m_timer) m_timer->stop();
    m_store.reset();
}

void StorePoller::watchRun(qint64 runId) {
    m_watchId = runId;
    m_resetPending = runId > 0;
    m_maxMetricStep = -1;
    m_metricLast.clear();
    m_maxSampleStep = -1;
    m_sampleLast.clear();
    m_lastLogId = -1;
    m_lastTextId = 0;
    if (runId > 0 && m_timer && m_timer->isActive())
        QTimer::singleShot(0, this, &StorePoller::pollNow);  // show the history now, not at the next tick
}

bool StorePoller::ensureOpen() {
    if (m_store) return true;
    QString message;
    if (!QFileInfo::exists(m_storePath)) {
        message = tr("No run store yet at %1 (it is created by the first run).").arg(m_storePath);
    } else {
        try {
            try {
                m_store = std::make_unique<RunStore>(m_storePath.toStdString(), /*readOnly=*/true);
            } catch (const StoreError&) {
                // A store an older version wrote: one read-write open brings its schema up to date (each migration
                // is a transaction; a newer file than this version knows stays refused), then read it as usual.
                { RunStore migrate(m_storePath.toStdString(), /*readOnly=*/false); }
                m_store = std::make_unique<RunStore>(m_storePath.toStdString(), /*readOnly=*/true);
            }
        } catch (const std::exception& e) {
            message = tr("Cannot open the run store %1: %2").arg(m_storePath, QString::fromStdString(e.what()));
        }
    }
    const int available = m_store ? 1 : 0;
    if (available != m_storeAvailable || message != m_lastStoreMessage) {
        m_storeAvailable = available;
        m_lastStoreMessage = message;
        emit storeState(available == 1, message);
    }
    return m_store != nullptr;
}

void StorePoller::closeStore(const QString& why) {
    m_store.reset();
    m_storeAvailable = 0;
    m_lastStoreMessage = why;
    emit storeState(false, why);
}

void StorePoller::pollNow() {
    ++m_tick;
    if (!ensureOpen()) {
        if (!m_listedOnce) {  // let the window know the list is (legitimately) empty
            m_listedOnce = true;
            emit runsListed({});
        }
        return;
    }
    try {
        pollRuns();
        pollWatched();
        pollLogs();
    } catch (const std::exception& e) {
        // A locked or replaced file: reopen at the next tick, keep the incremental position.
        closeStore(tr("Reading the run store failed: %1").arg(QString::fromStdString(e.what())));
    }
}

bool StorePoller::pollRuns() {
    RunList runs = m_store->listRuns(kMaxListedRuns);
    std::vector<std::string> signature;
    std::vector<int64_t> ids;
    signature.reserve(runs.size());
    ids.reserve(runs.size());
    for (const auto& r : runs) {
        signature.push_back(runSignature(r));
        ids.push_back(r.id);
    }
    if (m_listedOnce && signature == m_runsSignature) {
        pollBestEval(false);
        return false;
    }
    if (!m_listedOnce || ids != m_runIds) {
        m_listedOnce = true;
        m_runsSignature = std::move(signature);
        m_runIds = std::move(ids);
        emit runsListed(runs);
        pollBestEval(true);
        return true;
    }
    // Same runs in the same order: only the rows that changed cross to the UI thread.
    RunList changed;
    for (size_t i = 0; i < runs.size(); ++i)
        if (signature[i] != m_runsSignature[i]) changed.push_back(std::move(runs[i]));
    m_runsSignature = std::move(signature);
    emit runsChanged(changed);
    m_bestEvalDirty = true;
    pollBestEval(false);
    return true;
}

// The best eval losses: at once after a full list, else about once a second while rows change (a live run
// changes its row every step). Emitted only when they differ from the last ones sent.
void StorePoller::pollBestEval(bool force) {
    if (!force && !(m_bestEvalDirty && m_tick % 4 == 0)) return;
    m_bestEvalDirty = false;
    RunScores best = m_store->minMetricPerRun("eval_loss");
    if (!force && best == m_bestEval) return;
    m_bestEval = best;
    emit bestEvalListed(best);
}

void StorePoller::pollWatched() {
    if (m_watchId <= 0) return;
    RunDataBatch batch;
    batch.runId = m_watchId;
    batch.reset = m_resetPending;

    const int64_t metricAfter = m_maxMetricStep < 0 ? -1 : m_maxMetricStep - kRereadSteps;
    for (auto& p : m_store->metrics(m_watchId, "", metricAfter)) {
        auto it = m_metricLast.find(p.name);
        if (it != m_metricLast.end() && p.step <= it->second) continue;
        m_metricLast[p.name] = p.step;
        m_maxMetricStep = std::max(m_maxMetricStep, p.step);
        batch.metrics.push_back(std::move(p));
    }
    const int64_t sampleAfter = m_maxSampleStep < 0 ? -1 : m_maxSampleStep - kRereadSteps;
    for (auto& s : m_store->deviceSamples(m_watchId, sampleAfter)) {
        const auto key = std::make_pair(s.rank, s.device);
        auto it = m_sampleLast.find(key);
        if (it != m_sampleLast.end() && s.step <= it->second) continue;
        m_sampleLast[key] = s.step;
        m_maxSampleStep = std::max(m_maxSampleStep, s.step);
        batch.samples.push_back(std::move(s));
    }
    batch.texts = m_store->samplesAfterId(m_watchId, m_lastTextId);
    for (const SampleText& t : batch.texts) m_lastTextId = std::max(m_lastTextId, t.id);
    m_resetPending = false;
    if (batch.reset || !batch.metrics.empty() || !batch.samples.empty() || !batch.texts.empty()) emit runData(batch);
}

void StorePoller::pollLogs() {
    if (m_watchId <= 0) return;
    std::vector<LogLine> lines;
    bool reset = m_lastLogId < 0;
    if (!reset) {
        lines = m_store->logsAfterId(m_watchId, m_lastLogId, kLogTail + 1);
        if (lines.empty()) return;
        reset = lines.size() > size_t(kLogTail);  // far behind: show the tail instead
    }
    if (reset) lines = m_store->logs(m_watchId, kLogTail);
    m_lastLogId = std::max<int64_t>(0, m_lastLogId);
    for (const LogLine& l : lines) m_lastLogId = std::max(m_lastLogId, l.id);
    QStringList out;
    out.reserve(static_cast<int>(lines.size()));
    for (const auto& l : lines) {
        const QString when =
            QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(l.time * 1000.0)).toString(QStringLiteral("HH:mm:ss"));
        out << logLineText(when, l.rank, QString::fromStdString(l.level), QString::fromStdString(l.message));
    }
    if (reset)
        emit runLogs(m_watchId, out);
    else
        emit runLogsAppended(m_watchId, out);
}

void StorePoller::requestStop(qint64 runId) {
    if (!ensureOpen()) {
        emit stopRequested(runId, false, m_lastStoreMessage);
        return;
    }
    std::optional<RunRecord> run;
    try {
        run = m_store->getRun(runId);
    } catch (const std::exception& e) {
        emit stopRequested(runId, false, QString::fromStdString(e.what()));
        return;
    }
    if (!run) {
        emit stopRequested(runId, false, tr("Run %1 is not in the store.").arg(runId));
        return;
    }
    if (run->status != RunStatus::Running) {
        emit stopRequested(
            runId, false,
            tr("Run %1 is not running (status: %2).").arg(runId).arg(QString::fromUtf8(toString(run->status))));
        return;
    }
    if (run->pid <= 0) {
        emit stopRequested(runId, false, tr("Run %1 has no supervisor process id.").arg(runId));
        return;
    }
    const std::string here = localHostName();
    if (!run->host.empty() && !here.empty() && run->host != here) {
        emit stopRequested(
            runId, false,
            tr("Run %1 is supervised on host %2; stop it there.").arg(runId).arg(QString::fromStdString(run->host)));
        return;
    }
    if (::kill(static_cast<pid_t>(run->pid), SIGTERM) != 0) {
        const int err = errno;
        emit stopRequested(runId, false,
                           tr("Cannot signal the supervisor (pid %1): %2")
                               .arg(run->pid)
                               .arg(QString::fromLocal8Bit(std::strerror(err))));
        return;
    }
    emit stopRequested(runId, true, tr("Stop requested: the run checkpoints, then stops."));
    pollNow();
}

StorePollerThread::StorePollerThread(const QString& storePath, int intervalMs, QObject* parent)
    : QObject(parent), m_thread(new QThread(this)), m_poller(new StorePoller(storePath, intervalMs)) {
    m_thread->setObjectName(QStringLiteral("fts-store-poller"));
    m_poller->moveToThread(m_thread);
    connect(m_thread, &QThread::started, m_poller, &StorePoller::start);
    connect(m_thread, &QThread::finished, m_poller, &QObject::deleteLater);
}

StorePollerThread::~StorePollerThread() {
    if (m_thread->isRunning()) {
        QMetaObject::invokeMethod(m_poller, &StorePoller::stop, Qt::BlockingQueuedConnection);
        m_thread->quit();
        m_thread->wait();
    } else {
        delete m_poller;
    }
}

void StorePollerThread::start() { m_thread->start(); }

void StorePollerThread::watchRun(qint64 runId) {
    QMetaObject::invokeMethod(
        m_poller, [p = m_poller, runId] { p->watchRun(runId); }, Qt::QueuedConnection);
}

void StorePollerThread::requestStop(qint64 runId) {
    QMetaObject::invokeMethod(
        m_poller, [p = m_poller, runId] { p->requestStop(runId); }, Qt::QueuedConnection);
}

void StorePollerThread::pollNow() { QMetaObject::invokeMethod(m_poller, &StorePoller::pollNow, Qt::QueuedConnection); }

}  // namespace fts
