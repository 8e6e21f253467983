// RunsFilterProxy: filters and sort over the runs history (see runs_filter_proxy.h).
#include "ui/runs_filter_proxy.h"

#include <set>

#include "ui/runs_table_model.h"

namespace fts {

RunsFilterProxy::RunsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(RunsTableModel::SortRole);
    setDynamicSortFilter(true);
}

void RunsFilterProxy::setRunsModel(RunsTableModel* model) {
    m_runs = model;
    setSourceModel(model);
}

void RunsFilterProxy::refilter() { invalidateFilter(); }

// Each setter re-filters only when its value changed, so re-applying the same filters is free.
void RunsFilterProxy::setSearchText(const QString& text) {
    const QStringList words = text.simplified().toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words == m_words) return;
    m_words = words;
    refilter();
}
void RunsFilterProxy::setStatusFilter(std::optional<RunStatus> status) {
    if (status == m_status) return;
    m_status = status;
    refilter();
}
void RunsFilterProxy::setModelFilter(const QString& model) {
    if (model == m_model) return;
    m_model = model;
    refilter();
}
void RunsFilterProxy::setDatasetFilter(const QString& dataset) {
    if (dataset == m_dataset) return;
    m_dataset = dataset;
    refilter();
}
void RunsFilterProxy::setTagFilter(const QString& tag) {
    if (tag == m_tag) return;
    m_tag = tag;
    refilter();
}
void RunsFilterProxy::setStartedSince(double unixSeconds) {
    if (unixSeconds == m_since) return;
    m_since = unixSeconds;
    refilter();
}

bool RunsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
    const RunRecord* r = m_runs ? m_runs->runAt(sourceRow) : nullptr;
    if (!r) return false;
    if (m_status && r->status != *m_status) return false;
    if (!m_model.isEmpty() && QString::fromStdString(r->model) != m_model) return false;
    if (!m_dataset.isEmpty() && QString::fromStdString(r->dataset) != m_dataset) return false;
    if (!m_tag.isEmpty()) {
        const std::string tag = m_tag.toStdString();
        bool found = false;
        for (const std::string& t : r->tags) found = found || t == tag;
        if (!found) return false;
    }
    if (m_since > 0 && (r->startedAt > 0 ? r->startedAt : r->createdAt) < m_since) return false;
    if (!m_words.isEmpty()) {
        QString hay = QString::fromStdString(r->name) + QLatin1Char('\n') + QString::fromStdString(r->model) +
                      QLatin1Char('\n') + QString::fromStdString(r->dataset) + QLatin1Char('\n') +
                      QString::fromStdString(r->notes);
        for (const std::string& t : r->tags) hay += QLatin1Char('\n') + QString::fromStdString(t);
        for (const QString& w : m_words)
            if (!hay.contains(w, Qt::CaseInsensitive)) return false;
    }
    return true;
}

bool RunsFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant a = left.data(RunsTableModel::SortRole), b = right.data(RunsTableModel::SortRole);
    if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString)
        return a.toString().localeAwareCompare(b.toString()) < 0;
    const double x = a.toDouble(), y = b.toDouble();
    if (x != y) return x < y;
    // Ties: the older run first, so the order is stable across refreshes.
    return left.data(RunsTableModel::RunIdRole).toLongLong() < right.data(RunsTableModel::RunIdRole).toLongLong();
}

namespace {
template <typename F>
QStringList distinct(const RunsTableModel* m, F field) {
    std::set<QString> values;
    if (m)
        for (const RunRecord& r : m->runs()) field(r, values);
    values.erase(QString());
    return QStringList(values.begin(), values.end());
}
}  // namespace

QStringList RunsFilterProxy::distinctModels() const {
    return distinct(m_runs,
                    [](const RunRecord& r, std::set<QString>& v) { v.insert(QString::fromStdString(r.model)); });
}
QStringList RunsFilterProxy::distinctDatasets() const {
    return distinct(m_runs,
                    [](const RunRecord& r, std::set<QString>& v) { v.insert(QString::fromStdString(r.dataset)); });
}
QStringList RunsFilterProxy::distinctTags() const {
    return distinct(m_runs, [](const RunRecord& r, std::set<QString>& v) {
        for (const std::string& t : r.tags) v.insert(QString::fromStdString(t));
    });
}

}  // namespace fts
