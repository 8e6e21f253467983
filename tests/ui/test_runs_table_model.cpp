// RunsTableModel: what each column shows for a RunRecord, the final loss read from finalMetricsJson,
// and updates that keep rows (dataChanged) when the run ids are unchanged, a reset when they are not.
#include <QDateTime>
#include <cmath>
#include <QSignalSpy>
#include <QTest>

#include "ui/runs_table_model.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

RunRecord run(int64_t id, RunStatus status, int64_t last, int64_t total, const std::string& metrics = "") {
    RunRecord r;
    r.id = id;
    r.name = "run" + std::to_string(id);
    r.status = status;
    r.model = "/data/models/gpt2-small";
    r.lastStep = last;
    r.totalSteps = total;
    r.finalMetricsJson = metrics;
    r.startedAt = 0;
    return r;
}

QString cell(const RunsTableModel& m, int row, int column) { return m.data(m.index(row, column)).toString(); }

}  // namespace

class TestRunsTableModel : public QObject {
    Q_OBJECT
private slots:
    // A refresh with the same runs signals only the rows that changed (so a sorting proxy moves just those).
    void refreshSignalsOnlyChangedRows() {
        fts::RunsTableModel model;
        std::vector<fts::RunRecord> runs(50);
        for (int i = 0; i < 50; ++i) {
            runs[size_t(i)].id = 100 + i;
            runs[size_t(i)].name = "r" + std::to_string(i);
            runs[size_t(i)].finalMetricsJson = R"({"loss": 1.5})";
            runs[size_t(i)].status = fts::RunStatus::Completed;  // (final metrics are an ended run's)
        }
        model.setRuns(runs);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setRuns(runs);
        QCOMPARE(changed.count(), 0);
        runs[7].lastStep = 12;
        runs[8].finalMetricsJson = R"({"loss": 0.5})";
        runs[30].status = fts::RunStatus::Failed;
        model.setRuns(runs);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 2);  // rows 7-8 as one range, then row 30
        QCOMPARE(changed[0][0].toModelIndex().row(), 7);
        QCOMPARE(changed[0][1].toModelIndex().row(), 8);
        QCOMPARE(changed[1][0].toModelIndex().row(), 30);
        QCOMPARE(changed[1][1].toModelIndex().row(), 30);
        QCOMPARE(model.index(8, fts::RunsTableModel::FinalLossColumn).data(Qt::DisplayRole).toString().left(3),
                 QStringLiteral("0.5"));
    }

    // The poller's changed rows: replaced by id, signalled over the columns that show what changed only (a
    // new step touches Steps, so a list sorted by start time is not re-sorted); unchanged or unknown: nothing.
    void updateRunsSignalsChangedColumns() {
        fts::RunsTableModel model;
        std::vector<fts::RunRecord> runs{run(1, RunStatus::Running, 3, 10), run(2, RunStatus::Completed, 10, 10),
                                         run(3, RunStatus::Running, 1, 10)};
        model.setRuns(runs);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        RunRecord stepped = runs[2];
        stepped.lastStep = 2;
        model.updateRuns({runs[1], stepped, run(99, RunStatus::Running, 1, 1)});
        QCOMPARE(changed.count(), 2);  // the steps, and a running run's duration that goes on with them
        QCOMPARE(changed[0][0].toModelIndex().row(), 2);
        QCOMPARE(changed[0][0].toModelIndex().column(), int(RunsTableModel::StepsColumn));
        QCOMPARE(changed[0][1].toModelIndex().column(), int(RunsTableModel::StepsColumn));
        QCOMPARE(changed[1][0].toModelIndex().column(), int(RunsTableModel::DurationColumn));
        QCOMPARE(cell(model, 2, RunsTableModel::StepsColumn), QStringLiteral("2 / 10"));
        QCOMPARE(model.rowCount(), 3);

        RunRecord done = runs[0];
        done.status = RunStatus::Completed;
        done.endedAt = 60;
        done.finalMetricsJson = R"({"loss": 0.25})";
        model.updateRuns({done});
        QCOMPARE(changed.count(), 3);
        QCOMPARE(changed[2][0].toModelIndex().column(), int(RunsTableModel::StatusColumn));
        QVERIFY(changed[2][1].toModelIndex().column() >= int(RunsTableModel::DurationColumn));
        QCOMPARE(cell(model, 0, RunsTableModel::StatusColumn), RunsTableModel::statusText(RunStatus::Completed));
        QCOMPARE(cell(model, 0, RunsTableModel::FinalLossColumn), QStringLiteral("0.2500"));
    }

    void finalLoss_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<bool>("present");
        QTest::addColumn<double>("loss");
        QTest::newRow("loss") << R"({"loss": 2.5, "eval_loss": 2.75})" << true << 2.5;
        QTest::newRow("integer") << R"({"loss": 3})" << true << 3.0;
        QTest::newRow("no loss") << R"({"eval_loss": 1.0})" << false << 0.0;
        QTest::newRow("string loss") << R"({"loss": "2.5"})" << false << 0.0;
        QTest::newRow("empty") << "" << false << 0.0;
        QTest::newRow("broken json") << R"({"loss": )" << false << 0.0;
        QTest::newRow("array") << "[1, 2]" << false << 0.0;
    }
    void finalLoss() {
        QFETCH(QString, json);
        QFETCH(bool, present);
        QFETCH(double, loss);
        const auto got = RunsTableModel::finalLoss(run(1, RunStatus::Completed, 1, 1, json.toStdString()));
        QCOMPARE(got.has_value(), present);
        if (present) QCOMPARE(*got, loss);
    }

    void columns() {
        RunsTableModel m;
        RunRecord r = run(7, RunStatus::Completed, 120, 200, R"({"loss": 1.23456})");
        r.startedAt = 1.7e9;
        m.setRuns({r, run(3, RunStatus::Running, 5, 0)});
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.columnCount(), int(RunsTableModel::ColumnCount));
        QCOMPARE(cell(m, 0, RunsTableModel::NameColumn), QStringLiteral("run7"));
        QCOMPARE(cell(m, 0, RunsTableModel::StatusColumn), QStringLiteral("completed"));
        QCOMPARE(cell(m, 0, RunsTableModel::ModelColumn), QStringLiteral("gpt2-small"));
        QCOMPARE(m.data(m.index(0, RunsTableModel::ModelColumn), Qt::ToolTipRole).toString(),
                 QStringLiteral("/data/models/gpt2-small"));
        QCOMPARE(cell(m, 0, RunsTableModel::StepsColumn), QStringLiteral("120 / 200"));
        QCOMPARE(cell(m, 0, RunsTableModel::FinalLossColumn), QStringLiteral("1.2346"));
        QVERIFY(cell(m, 0, RunsTableModel::StartedColumn).startsWith(QLatin1String("20")));
        QCOMPARE(cell(m, 1, RunsTableModel::StepsColumn), QStringLiteral("5"));  // total unknown yet
        QCOMPARE(cell(m, 1, RunsTableModel::FinalLossColumn), QString());
        QCOMPARE(cell(m, 1, RunsTableModel::StartedColumn), QString());
        QCOMPARE(m.data(m.index(1, 0), RunsTableModel::RunIdRole).toLongLong(), qint64(3));
        QCOMPARE(m.rowOfRun(3), 1);
        QCOMPARE(m.rowOfRun(99), -1);
        QVERIFY(m.runById(7) && m.runById(7)->lastStep == 120);
        QVERIFY(!m.runAt(2));
    }

    // Stopped at 0.9141 after 22 s of training, then resumed: while it runs again the list shows no final loss
    // (the stop's is not this session's); once it ends, its duration is the training time of both sessions, not the
    // last session's wall time.
    void aResumedRunShowsThisSessionsFigures() {
        RunsTableModel m;
        RunRecord r = run(4, RunStatus::Running, 153, 200, R"({"loss": 0.9141, "elapsed_s": 22.46})");
        r.createdAt = 1.7e9;
        r.startedAt = 1.7e9 + 3600;
        m.setRuns({r});
        QCOMPARE(cell(m, 0, RunsTableModel::FinalLossColumn), QString());
        // its duration goes on while it trains: the first session's 22 s and this one's so far
        const double shown = m.data(m.index(0, RunsTableModel::DurationColumn), RunsTableModel::SortRole).toDouble();
        const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
        QVERIFY2(std::abs(shown - (22.46 + now - r.startedAt)) < 5.0, qPrintable(QString::number(shown)));
        r.status = RunStatus::Completed;
        r.endedAt = r.startedAt + 20;
        r.finalMetricsJson = R"({"loss": 0.6566, "elapsed_s": 41.0})";
        m.setRuns({r});
        QCOMPARE(cell(m, 0, RunsTableModel::FinalLossColumn), QStringLiteral("0.6566"));
        QCOMPARE(m.data(m.index(0, RunsTableModel::DurationColumn), RunsTableModel::SortRole).toDouble(), 41.0);
        QCOMPARE(cell(m, 0, RunsTableModel::DurationColumn), QStringLiteral("0:41"));
    }

    void updatesKeepRowsWhenIdsAreTheSame() {
        RunsTableModel m;
        m.setRuns({run(2, RunStatus::Running, 1, 10), run(1, RunStatus::Completed, 10, 10)});
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setRuns({run(2, RunStatus::Running, 4, 10), run(1, RunStatus::Completed, 10, 10)});
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(cell(m, 0, RunsTableModel::StepsColumn), QStringLiteral("4 / 10"));
        // A new run (newest first): rows change, so a reset.
        m.setRuns({run(3, RunStatus::Running, 0, 10), run(2, RunStatus::Stopped, 4, 10),
                   run(1, RunStatus::Completed, 10, 10)});
        QCOMPARE(reset.count(), 1);
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(cell(m, 1, RunsTableModel::StatusColumn), QStringLiteral("stopped"));
    }
};

QTEST_MAIN(TestRunsTableModel)
#include "test_runs_table_model.moc"
