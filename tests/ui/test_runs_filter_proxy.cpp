// RunsFilterProxy over RunsTableModel: each filter alone and combined, distinct values for the combos,
// and numeric sorting (best eval loss, tokens) with missing values first.
#include <QTest>

#include "ui/runs_filter_proxy.h"
#include "ui/runs_table_model.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

RunRecord run(int64_t id, const std::string& name, RunStatus status, const std::string& model,
              const std::string& dataset, std::vector<std::string> tags, double started, const std::string& notes = "",
              const std::string& finalMetrics = "") {
    RunRecord r;
    r.id = id;
    r.name = name;
    r.status = status;
    r.model = model;
    r.dataset = dataset;
    r.tags = std::move(tags);
    r.startedAt = started;
    r.createdAt = started;
    r.notes = notes;
    r.finalMetricsJson = finalMetrics;
    return r;
}

std::vector<RunRecord> sampleRuns() {
    return {run(5, "gpt2 lr sweep a", RunStatus::Completed, "/m/gpt2", "/d/stories.jsonl", {"sweep"}, 5000, "",
                R"({"loss": 2.0, "tokens_seen": 5000})"),
            run(4, "gpt2 lr sweep b", RunStatus::Failed, "/m/gpt2", "/d/stories.jsonl", {"sweep", "bad"}, 4000,
                "diverged at step 40", R"({"loss": 9.0, "tokens_seen": 400})"),
            run(3, "llama chat", RunStatus::Running, "/m/llama", "/d/chat.jsonl", {}, 3000),
            run(2, "Qwen baseline", RunStatus::Completed, "/m/qwen", "/d/chat.jsonl", {"baseline"}, 2000, "",
                R"({"loss": 1.5, "tokens_seen": 90000})"),
            run(1, "old", RunStatus::Stopped, "/m/gpt2", "/d/stories.jsonl", {}, 1000)};
}

QList<qint64> shownIds(const RunsFilterProxy& p) {
    QList<qint64> ids;
    for (int r = 0; r < p.rowCount(); ++r) ids << p.index(r, 0).data(RunsTableModel::RunIdRole).toLongLong();
    return ids;
}

}  // namespace

class TestRunsFilterProxy : public QObject {
    Q_OBJECT
private slots:
    void filters_data() {
        QTest::addColumn<QString>("search");
        QTest::addColumn<int>("status");  // -1: any
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("tag");
        QTest::addColumn<double>("since");
        QTest::addColumn<QList<qint64>>("ids");
        const QList<qint64> all{5, 4, 3, 2, 1};
        QTest::newRow("nothing") << "" << -1 << ""
                                 << ""
                                 << "" << 0.0 << all;
        QTest::newRow("search name words, any order") << "sweep GPT2" << -1 << ""
                                                      << ""
                                                      << "" << 0.0 << QList<qint64>{5, 4};
        QTest::newRow("search case-insensitive") << "qwen" << -1 << ""
                                                 << ""
                                                 << "" << 0.0 << QList<qint64>{2};
        QTest::newRow("search notes") << "diverged" << -1 << ""
                                      << ""
                                      << "" << 0.0 << QList<qint64>{4};
        QTest::newRow("search tags") << "baseline" << -1 << ""
                                     << ""
                                     << "" << 0.0 << QList<qint64>{2};
        QTest::newRow("search dataset") << "chat.jsonl" << -1 << ""
                                        << ""
                                        << "" << 0.0 << QList<qint64>{3, 2};
        QTest::newRow("search no match") << "mistral" << -1 << ""
                                         << ""
                                         << "" << 0.0 << QList<qint64>{};
        QTest::newRow("status") << "" << int(RunStatus::Completed) << ""
                                << ""
                                << "" << 0.0 << QList<qint64>{5, 2};
        QTest::newRow("model") << "" << -1 << "/m/gpt2"
                               << ""
                               << "" << 0.0 << QList<qint64>{5, 4, 1};
        QTest::newRow("dataset") << "" << -1 << ""
                                 << "/d/chat.jsonl"
                                 << "" << 0.0 << QList<qint64>{3, 2};
        QTest::newRow("tag") << "" << -1 << ""
                             << ""
                             << "sweep" << 0.0 << QList<qint64>{5, 4};
        QTest::newRow("since") << "" << -1 << ""
                               << ""
                               << "" << 3000.0 << QList<qint64>{5, 4, 3};
        QTest::newRow("combined") << "lr" << int(RunStatus::Failed) << "/m/gpt2"
                                  << "/d/stories.jsonl"
                                  << "bad" << 1500.0 << QList<qint64>{4};
    }
    void filters() {
        QFETCH(QString, search);
        QFETCH(int, status);
        QFETCH(QString, model);
        QFETCH(QString, dataset);
        QFETCH(QString, tag);
        QFETCH(double, since);
        QFETCH(QList<qint64>, ids);
        RunsTableModel m;
        m.setRuns(sampleRuns());
        RunsFilterProxy p;
        p.setRunsModel(&m);
        p.setSearchText(search);
        p.setStatusFilter(status < 0 ? std::nullopt : std::optional<RunStatus>(RunStatus(status)));
        p.setModelFilter(model);
        p.setDatasetFilter(dataset);
        p.setTagFilter(tag);
        p.setStartedSince(since);
        QCOMPARE(shownIds(p), ids);
    }

    void distinctValues() {
        RunsTableModel m;
        m.setRuns(sampleRuns());
        RunsFilterProxy p;
        p.setRunsModel(&m);
        QCOMPARE(p.distinctModels(), (QStringList{"/m/gpt2", "/m/llama", "/m/qwen"}));
        QCOMPARE(p.distinctDatasets(), (QStringList{"/d/chat.jsonl", "/d/stories.jsonl"}));
        QCOMPARE(p.distinctTags(), (QStringList{"bad", "baseline", "sweep"}));
    }

    void sorting_data() {
        QTest::addColumn<int>("column");
        QTest::addColumn<int>("order");
        QTest::addColumn<QList<qint64>>("ids");
        // Runs without a value sort first in ascending order (ties by id).
        QTest::newRow("final loss asc") << int(RunsTableModel::FinalLossColumn) << int(Qt::AscendingOrder)
                                        << QList<qint64>{1, 3, 2, 5, 4};
        QTest::newRow("tokens desc") << int(RunsTableModel::TokensColumn) << int(Qt::DescendingOrder)
                                     << QList<qint64>{2, 5, 4, 3, 1};
        QTest::newRow("best eval asc") << int(RunsTableModel::BestEvalColumn) << int(Qt::AscendingOrder)
                                       << QList<qint64>{1, 2, 4, 5, 3};
        QTest::newRow("name asc") << int(RunsTableModel::NameColumn) << int(Qt::AscendingOrder)
                                  << QList<qint64>{5, 4, 3, 1, 2};
        QTest::newRow("started asc") << int(RunsTableModel::StartedColumn) << int(Qt::AscendingOrder)
                                     << QList<qint64>{1, 2, 3, 4, 5};
    }
    void sorting() {
        QFETCH(int, column);
        QFETCH(int, order);
        QFETCH(QList<qint64>, ids);
        RunsTableModel m;
        m.setRuns(sampleRuns());
        m.setBestEval({{3, 4.0}, {5, 3.0}, {4, 2.5}, {2, 1.0}});  // run 1 has none
        RunsFilterProxy p;
        p.setRunsModel(&m);
        p.sort(column, Qt::SortOrder(order));
        QCOMPARE(shownIds(p), ids);
    }
};

QTEST_MAIN(TestRunsFilterProxy)
#include "test_runs_filter_proxy.moc"
