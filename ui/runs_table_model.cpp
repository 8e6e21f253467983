// RunsTableModel: presentation of RunRecord rows; no store access here (rows come from the poller).
#include "ui/runs_table_model.h"

#include "core/store/run_json.h"

#include <QApplication>
#include <algorithm>
#include <QDateTime>
#include <QFileInfo>
#include <QPalette>
#include <nlohmann/json.hpp>

#include "core/util/json_parse.h"

namespace fts {

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString RunsTableModel::statusText(RunStatus s) {
    switch (s) {
        case RunStatus::Pending:
            return tr("pending");
        case RunStatus::Running:
            return tr("running");
        case RunStatus::Completed:
            return tr("completed");
        case RunStatus::Failed:
            return tr("failed");
        case RunStatus::Stopped:
            return tr("stopped");
    }
    return {};
}

QString RunsTableModel::formatCount(double n) {
    if (n >= 1e9) return QString::number(n / 1e9, 'f', 2) + QLatin1Char('B');
    if (n >= 1e6) return QString::number(n / 1e6, 'f', 2) + QLatin1Char('M');
    if (n >= 1e3) return QString::number(n / 1e3, 'f', 1) + QLatin1Char('k');
    return QString::number(n, 'f', 0);
}

std::optional<double> RunsTableModel::bestEvalLoss(int row) const {
    if (row < 0 || row >= rowCount()) return std::nullopt;
    const auto it = m_bestEval.constFind(m_runs[size_t(row)].id);
    if (it != m_bestEval.constEnd()) return it.value();
    return m_figures[size_t(row)].finalEval;
}

QVariant RunsTableModel::sortValue(int row, int column) const {
    const RunRecord& r = m_runs[size_t(row)];
    const Figures& f = m_figures[size_t(row)];
    const auto opt = [](const std::optional<double>& v) { return v ? QVariant(*v) : QVariant(-1.0e300); };
    switch (column) {
        case NameColumn:
            return QString::fromStdString(r.name).toLower();
        case StatusColumn:
            return statusText(r.status);
        case ModelColumn:
            return data(index(row, ModelColumn)).toString().toLower();
        case DatasetColumn:
            return data(index(row, DatasetColumn)).toString().toLower();
        case StepsColumn:
            return qint64(r.lastStep);
        case FinalLossColumn:
            return opt(f.finalLoss);
        case BestEvalColumn:
            return opt(bestEvalLoss(row));
        case TokensColumn:
            return opt(f.tokens);
        case DurationColumn:
            return opt(f.duration);
        case WorldSizeColumn:
            return r.worldSize;
        case StartedColumn:
            return r.startedAt > 0 ? r.startedAt : r.createdAt;
        case TagsColumn:
            return data(index(row, TagsColumn)).toString().toLower();
        default:
            return {};
    }
}

std::optional<double> RunsTableModel::finalLoss(const RunRecord& r) {
    if (r.finalMetricsJson.empty()) return std::nullopt;
    const auto doc = parseJsonOrDiscarded(r.finalMetricsJson);
    if (!doc.is_object()) return std::nullopt;
    const auto it = doc.find("loss");
    if (it == doc.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const RunRecord& r = m_runs[static_cast<size_t>(index.row())];
    const Figures& f = m_figures[static_cast<size_t>(index.row())];
    if (role == RunIdRole) return QVariant::fromValue<qint64>(r.id);
    if (role == StatusRole) return static_cast<int>(r.status);
    if (role == SortRole) return sortValue(index.row(), index.column());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case NameColumn:
                return QString::fromStdString(r.name);
            case StatusColumn:
                return statusText(r.status);
            case ModelColumn: {
                const QString model = QString::fromStdString(r.model);
                const QString base = QFileInfo(model).fileName();  // pure string operation, no file access
                return base.isEmpty() ? model : base;
            }
            case DatasetColumn: {
                const QString dataset = QString::fromStdString(r.dataset);
                const QString base = QFileInfo(dataset).fileName();
                return base.isEmpty() ? dataset : base;
            }
            case BestEvalColumn: {
                const auto best = bestEvalLoss(index.row());
                return best ? QString::number(*best, 'f', 4) : QString();
            }
            case TokensColumn:
                return f.tokens ? formatCount(*f.tokens) : QString();
            case DurationColumn: {
                if (!f.duration) return QString();
                const qint64 s = qint64(*f.duration + 0.5);
                return s >= 3600 ? QStringLiteral("%1:%2:%3")
                                       .arg(s / 3600)
                                       .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
                                       .arg(s % 60, 2, 10, QLatin1Char('0'))
                                 : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
            }
            case WorldSizeColumn:
                return r.worldSize;
            case TagsColumn: {
                QStringList tags;
                for (const std::string& t : r.tags) tags << QString::fromStdString(t);
                return tags.join(QStringLiteral(", "));
            }
            case StepsColumn:
                return r.totalSteps > 0 ? QStringLiteral("%1 / %2").arg(r.lastStep).arg(r.totalSteps)
                                        : QString::number(r.lastStep);
            case FinalLossColumn:
                return f.finalLoss ? QString::number(*f.finalLoss, 'f', 4) : QString();
            case StartedColumn:
                if (r.startedAt <= 0) return QString();
                return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(r.startedAt * 1000.0))
                    .toString(QStringLiteral("yyyy-MM-dd HH:mm"));
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == ModelColumn) return QString::fromStdString(r.model);
        if (index.column() == DatasetColumn) return QString::fromStdString(r.dataset);
        if (index.column() == NameColumn && !r.notes.empty())
            return QString::fromStdString(r.name) + QLatin1Char('\n') + QString::fromStdString(r.notes);
        if (index.column() == StatusColumn && !r.failureReason.empty()) return QString::fromStdString(r.failureReason);
        if (index.column() == NameColumn)  // the whole name (the column may cut it) and where its config was
            return r.configPath.empty()
                       ? QString::fromStdString(r.name)
                       : QString::fromStdString(r.name) + QLatin1Char('\n') + QString::fromStdString(r.configPath);
    }
    if (role == Qt::ForegroundRole && index.column() == StatusColumn) {
        switch (r.status) {
            case RunStatus::Running:
                return QColor(0x1a, 0x7f, 0x37);
            case RunStatus::Failed:
                return QColor(0xc0, 0x1c, 0x28);
            case RunStatus::Stopped:
                return QColor(0x9a, 0x67, 0x00);
            default:
                return {};
        }
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
            case StepsColumn:
            case FinalLossColumn:
            case BestEvalColumn:
            case TokensColumn:
            case DurationColumn:
            case WorldSizeColumn:
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            default:
                return {};
        }
    }
    return {};
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn:
            return tr("Name");
        case StatusColumn:
            return tr("Status");
        case ModelColumn:
            return tr("Model");
        case DatasetColumn:
            return tr("Dataset");
        case StepsColumn:
            return tr("Steps");
        case FinalLossColumn:
            return tr("Final loss");
        case BestEvalColumn:
            return tr("Best eval");
        case TokensColumn:
            return tr("Tokens");
        case DurationColumn:
            return tr("Duration");
        case WorldSizeColumn:
            return tr("Ranks");
        case TagsColumn:
            return tr("Tags");
        case StartedColumn:
            return tr("Started");
        default:
            return {};
    }
}

namespace {
// The fields a row shows (or sorts/filters on): a refresh touches only the rows where one of them changed.
bool sameShownRow(const RunRecord& a, const RunRecord& b) {
    return a.name == b.name && a.status == b.status && a.createdAt == b.createdAt && a.startedAt == b.startedAt &&
           a.endedAt == b.endedAt && a.model == b.model && a.dataset == b.dataset &&
           a.finalMetricsJson == b.finalMetricsJson && a.failureReason == b.failureReason && a.pid == b.pid &&
           a.worldSize == b.worldSize && a.totalSteps == b.totalSteps && a.lastStep == b.lastStep &&
           a.notes == b.notes && a.tags == b.tags && a.configPath == b.configPath && a.outputDir == b.outputDir &&
           a.configJson == b.configJson;
}
}  // namespace

void RunsTableModel::setRuns(const std::vector<RunRecord>& runs) {
    bool sameIds = runs.size() == m_runs.size();
    for (size_t i = 0; sameIds && i < runs.size(); ++i) sameIds = runs[i].id == m_runs[i].id;
    if (!sameIds) {
        // Rows added or removed: a reset; views re-select by run id (MainWindow does).
        beginResetModel();
        m_runs = runs;
        rebuildIndex();
        endResetModel();
        return;
    }
    // Same rows: only the changed ones are replaced and signalled (contiguous changes as one range), so a
    // sorting proxy moves those rows instead of re-sorting the whole list.
    int first = -1;
    const auto flush = [&](int endRow) {
        if (first >= 0) emit dataChanged(index(first, 0), index(endRow - 1, ColumnCount - 1));
        first = -1;
    };
    for (size_t i = 0; i < runs.size(); ++i) {
        if (sameShownRow(runs[i], m_runs[i])) {
            flush(int(i));
            continue;
        }
        m_runs[i] = runs[i];
        m_figures[i] = figuresOf(m_runs[i]);
        if (first < 0) first = int(i);
    }
    flush(int(runs.size()));
}

// The columns whose text, tooltip or sort value depends on a field that differs between a and b, as one
// range [first, last] (first > last: none). A live run's new step touches the Steps column only, so a list
// sorted by another column is not re-sorted.
static std::pair<int, int> changedColumns(const RunRecord& a, const RunRecord& b) {
    int first = RunsTableModel::ColumnCount, last = -1;
    const auto mark = [&](bool differs, std::initializer_list<int> columns) {
        if (!differs) return;
        for (int c : columns) first = std::min(first, c), last = std::max(last, c);
    };
    using M = RunsTableModel;
    mark(a.name != b.name || a.notes != b.notes || a.configPath != b.configPath || a.configJson != b.configJson,
         {M::NameColumn});
    mark(a.status != b.status || a.failureReason != b.failureReason, {M::StatusColumn});
    mark(a.model != b.model, {M::ModelColumn});
    mark(a.dataset != b.dataset, {M::DatasetColumn});
    mark(a.lastStep != b.lastStep || a.totalSteps != b.totalSteps, {M::StepsColumn});
    mark(a.finalMetricsJson != b.finalMetricsJson, {M::FinalLossColumn, M::BestEvalColumn, M::TokensColumn});
    mark(a.startedAt != b.startedAt || a.endedAt != b.endedAt || a.createdAt != b.createdAt,
         {M::DurationColumn, M::StartedColumn});
    mark(a.worldSize != b.worldSize, {M::WorldSizeColumn});
    mark(a.tags != b.tags, {M::TagsColumn});
    mark(a.pid != b.pid || a.outputDir != b.outputDir, {M::NameColumn});
    return {first, last};
}

void RunsTableModel::updateRuns(const std::vector<RunRecord>& changedRows) {
    for (const RunRecord& r : changedRows) {
        const int row = rowOfRun(r.id);
        if (row < 0) continue;
        const auto [first, last] = changedColumns(m_runs[size_t(row)], r);
        if (first > last) continue;
        m_runs[size_t(row)] = r;
        m_figures[size_t(row)] = figuresOf(r);
        emit dataChanged(index(row, first), index(row, last));
        // a running run's duration goes on with each change of it (its clock is not in the record)
        if (r.status == RunStatus::Running && (first > DurationColumn || last < DurationColumn))
            emit dataChanged(index(row, DurationColumn), index(row, DurationColumn));
    }
}

void RunsTableModel::setBestEval(const std::vector<std::pair<int64_t, double>>& best) {
    QHash<qint64, double> next;
    next.reserve(qsizetype(best.size()));
    for (const auto& [id, value] : best) next.insert(id, value);
    // Signal only the runs whose best value appeared, vanished or changed.
    QList<int> rows;
    for (auto it = next.cbegin(); it != next.cend(); ++it) {
        const auto old = m_bestEval.constFind(it.key());
        if (old == m_bestEval.cend() || old.value() != it.value()) rows << rowOfRun(it.key());
    }
    for (auto it = m_bestEval.cbegin(); it != m_bestEval.cend(); ++it)
        if (!next.contains(it.key())) rows << rowOfRun(it.key());
    m_bestEval = std::move(next);
    for (int row : rows)
        if (row >= 0) emit dataChanged(index(row, BestEvalColumn), index(row, BestEvalColumn));
}

void RunsTableModel::rebuildIndex() {
    m_rowById.clear();
    m_rowById.reserve(qsizetype(m_runs.size()));
    m_figures.assign(m_runs.size(), Figures{});
    for (size_t i = 0; i < m_runs.size(); ++i) {
        m_rowById.insert(m_runs[i].id, int(i));
        m_figures[i] = figuresOf(m_runs[i]);
    }
}

RunsTableModel::Figures RunsTableModel::figuresOf(const RunRecord& r) {
    Figures f;
    {
        // A run that is running again after a stop still holds the stop's final metrics: they are not this
        // session's, so it shows nothing until it ends, as a fresh run does.
        const bool ended =
            r.status == RunStatus::Completed || r.status == RunStatus::Failed || r.status == RunStatus::Stopped;
        if (ended && !r.finalMetricsJson.empty()) {
            const auto doc = parseJsonOrDiscarded(r.finalMetricsJson);
            if (doc.is_object()) {
                const auto num = [&](const char* key) -> std::optional<double> {
                    const auto it = doc.find(key);
                    if (it == doc.end() || !it->is_number()) return std::nullopt;
                    return it->get<double>();
                };
                f.finalLoss = num("loss");
                f.finalEval = num("eval_loss");
                f.tokens = num("tokens_seen");
            }
        }
        // the training time over every session (a resumed run's clock goes on, live while it trains); else the
        // last session's wall time (run_json.h)
        if (const double d = runDurationSeconds(r); d >= 0) f.duration = d;
    }
    return f;
}

const RunRecord* RunsTableModel::runAt(int row) const {
    if (row < 0 || row >= rowCount()) return nullptr;
    return &m_runs[static_cast<size_t>(row)];
}

const RunRecord* RunsTableModel::runById(qint64 id) const {
    const int row = rowOfRun(id);
    return row < 0 ? nullptr : &m_runs[static_cast<size_t>(row)];
}

int RunsTableModel::rowOfRun(qint64 id) const { return m_rowById.value(id, -1); }

}  // namespace fts
