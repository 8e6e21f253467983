// RunsTableModel: the runs history (name, status, model, dataset, steps, final loss, best eval loss, tokens,
// duration, world size, started, tags) over RunRecord rows, newest first, fed by StorePoller::runsListed.
// Updates keep row identity when the id order is unchanged; per-row figures are parsed once per update.
#pragma once
#include <QAbstractTableModel>
#include <QHash>
#include <optional>
#include <vector>

#include "core/store/run_store.h"

namespace fts {

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        StatusColumn,
        ModelColumn,
        DatasetColumn,
        StepsColumn,
        FinalLossColumn,
        BestEvalColumn,
        TokensColumn,
        DurationColumn,
        WorldSizeColumn,
        StartedColumn,
        TagsColumn,
        ColumnCount
    };
    static constexpr int RunIdRole = Qt::UserRole + 1;
    static constexpr int StatusRole = Qt::UserRole + 2;  // RunStatus as int
    static constexpr int SortRole = Qt::UserRole + 3;    // numbers as numbers (missing values sort first)

    explicit RunsTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void setRuns(const std::vector<RunRecord>& runs);
    // Replaces the rows of these runs (by id; unknown ids are ignored) and signals only those rows.
    void updateRuns(const std::vector<RunRecord>& changedRows);
    // The smallest eval_loss of each run (StorePoller::bestEvalListed); runs without one fall back to the
    // final metrics' eval_loss.
    void setBestEval(const std::vector<std::pair<int64_t, double>>& best);
    const std::vector<RunRecord>& runs() const { return m_runs; }
    const RunRecord* runAt(int row) const;
    const RunRecord* runById(qint64 id) const;
    int rowOfRun(qint64 id) const;  // -1 when absent

    static QString statusText(RunStatus s);                      // translated
    static std::optional<double> finalLoss(const RunRecord& r);  // "loss" from finalMetricsJson
    std::optional<double> bestEvalLoss(int row) const;
    static QString formatCount(double n);  // 1234567 -> "1.23M"

private:
    struct Figures {
        std::optional<double> finalLoss, finalEval, tokens, duration;
    };
    void rebuildIndex();
    QVariant sortValue(int row, int column) const;

    std::vector<RunRecord> m_runs;
    std::vector<Figures> m_figures;  // parallel to m_runs
    static Figures figuresOf(const RunRecord& run);
    QHash<qint64, int> m_rowById;
    QHash<qint64, double> m_bestEval;
};

}  // namespace fts
