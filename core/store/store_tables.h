// The store's tables as their row structs hold them: one column list per table, from which the SELECT list, the
// row reader, the INSERT statement and its bindings are all made (core/store's own header). A column added to a
// table's schema (a migration in run_store.cpp) and to its row struct is added here once.
#pragma once
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/store/run_store.h"
#include "core/store/sqlite_statement.h"

namespace fts::store_sql {

template <class Row>
struct Column {
    std::string name;
    std::function<void(Row&, const Statement&, int column)> read;
    std::function<void(Statement&, int index, const Row&)> bind;  // null: the database fills it (id, defaults)
};

// A column stored as the member's own type (integers, doubles, text). inserted false: read only.
template <class Row, class T>
Column<Row> field(const char* name, T Row::*member, bool inserted = true) {
    Column<Row> c{name, {}, {}};
    c.read = [member](Row& r, const Statement& st, int col) {
        if constexpr (std::is_same_v<T, std::string>)
            r.*member = st.text(col);
        else if constexpr (std::is_floating_point_v<T>)
            r.*member = st.real(col);
        else
            r.*member = static_cast<T>(st.int64(col));
    };
    if (inserted) c.bind = [member](Statement& st, int i, const Row& r) { st.bind(i, r.*member); };
    return c;
}

template <class Row>
class Table {
public:
    // childOfRun: the table has a run_id column (the row structs do not hold it): inserts bind it first.
    Table(const char* name, bool childOfRun, std::vector<Column<Row>> columns)
        : m_name(name), m_childOfRun(childOfRun), m_columns(std::move(columns)) {}

    // "c1, c2, ..." in the columns' order; `replace` swaps a column for an expression (max(step)).
    std::string columns(const std::pair<std::string, std::string>& replace = {}) const {
        std::string out;
        for (const Column<Row>& c : m_columns)
            out += (out.empty() ? "" : ", ") + (c.name == replace.first ? replace.second : c.name);
        return out;
    }
    // "SELECT <columns> FROM <table> <rest>".
    std::string select(const std::string& rest) const { return "SELECT " + columns() + " FROM " + m_name + " " + rest; }

    Row read(const Statement& st) const {
        Row r;
        for (size_t i = 0; i < m_columns.size(); ++i) m_columns[i].read(r, st, int(i));
        return r;
    }

    // "INSERT INTO <table> ([run_id,] inserted columns) VALUES (?, ...)".
    std::string insertSql() const {
        std::string names = m_childOfRun ? "run_id" : "", marks = m_childOfRun ? "?" : "";
        for (const Column<Row>& c : m_columns)
            if (c.bind) {
                names += (names.empty() ? "" : ", ") + c.name;
                marks += marks.empty() ? "?" : ",?";
            }
        return "INSERT INTO " + m_name + " (" + names + ") VALUES (" + marks + ")";
    }
    void bindInsert(Statement& st, const Row& r, int64_t runId = 0) const {
        int i = 1;
        if (m_childOfRun) st.bind(i++, runId);
        for (const Column<Row>& c : m_columns)
            if (c.bind) c.bind(st, i++, r);
    }

private:
    std::string m_name;
    bool m_childOfRun;
    std::vector<Column<Row>> m_columns;
};

// ---- the tables ----

std::vector<std::string> splitTags(const std::string& joined);  // "a,b" -> {"a", "b"}

inline const Table<RunRecord>& runsTable() {
    static const Table<RunRecord> t("runs", false, [] {
        using R = RunRecord;
        Column<R> status{"status", [](R& r, const Statement& st, int c) { r.status = runStatusFromString(st.text(c)); },
                         [](Statement& st, int i, const R& r) { st.bind(i, toString(r.status)); }};
        Column<R> created{
            "created_at", [](R& r, const Statement& st, int c) { r.createdAt = st.real(c); },
            [](Statement& st, int i, const R& r) { st.bind(i, r.createdAt > 0 ? r.createdAt : unixNow()); }};
        Column<R> host{
            "host", [](R& r, const Statement& st, int c) { r.host = st.text(c); },
            [](Statement& st, int i, const R& r) { st.bind(i, r.host.empty() ? RunStore::localHostName() : r.host); }};
        // Notes and tags are the user's, set by their own calls (setRunNotes, setRunTags: cleaned and sorted).
        Column<R> tags{"tags", [](R& r, const Statement& st, int c) { r.tags = splitTags(st.text(c)); }, nullptr};
        return std::vector<Column<R>>{field("id", &R::id, false),
                                      field("name", &R::name),
                                      status,
                                      created,
                                      field("started_at", &R::startedAt),
                                      field("ended_at", &R::endedAt),
                                      field("config_json", &R::configJson),
                                      field("config_path", &R::configPath),
                                      field("model", &R::model),
                                      field("dataset", &R::dataset),
                                      field("output_dir", &R::outputDir),
                                      host,
                                      field("versions_json", &R::versionsJson),
                                      field("final_metrics_json", &R::finalMetricsJson),
                                      field("failure_reason", &R::failureReason),
                                      field("pid", &R::pid),
                                      field("world_size", &R::worldSize),
                                      field("total_steps", &R::totalSteps),
                                      field("last_step", &R::lastStep),
                                      field("notes", &R::notes, false),
                                      tags,
                                      field("hosts_json", &R::hostsJson),
                                      field("resolved_config_json", &R::resolvedConfigJson)};
    }());
    return t;
}

inline const Table<MetricPoint>& metricsTable() {
    using M = MetricPoint;
    static const Table<M> t("metrics", true,
                            {field("id", &M::id, false), field("step", &M::step), field("name", &M::name),
                             field("value", &M::value), field("time", &M::time)});
    return t;
}

inline const Table<DeviceSample>& deviceSamplesTable() {
    using D = DeviceSample;
    static const Table<D> t(
        "device_samples", true,
        {field("id", &D::id, false), field("step", &D::step), field("time", &D::time), field("rank", &D::rank),
         field("device", &D::device), field("allocated", &D::allocated), field("reserved", &D::reserved),
         field("peak", &D::peak), field("capacity", &D::capacity), field("host", &D::host)});
    return t;
}

inline const Table<LogLine>& logsTable() {
    using L = LogLine;
    static const Table<L> t("logs", true,
                            {field("id", &L::id, false), field("time", &L::time), field("rank", &L::rank),
                             field("level", &L::level), field("message", &L::message)});
    return t;
}

inline const Table<SampleText>& samplesTable() {
    using S = SampleText;
    static const Table<S> t("samples", true,
                            {field("id", &S::id, false), field("step", &S::step), field("time", &S::time),
                             field("idx", &S::index), field("prompt", &S::prompt), field("text", &S::text)});
    return t;
}

}  // namespace fts::store_sql
