// Compare: EMA smoothing against its closed form, config flattening and "diff only", curves on the three
// x axes, and the CompareView over two runs written to a real store (only the keys the test changed
// appear in the diff; summary figures; PNG/CSV export).
#include <QCheckBox>
#include <QFile>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "ui/chart_widget.h"
#include "ui/compare_view.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

nlohmann::json quickStart() {
    std::ifstream in((std::string(FTS_SOURCE_DIR) + "/resources/quickstart/quickstart.json"));
    return nlohmann::json::parse(in);
}

std::set<QString> diffKeys(const QTableWidget* t) {
    std::set<QString> keys;
    for (int r = 0; r < t->rowCount(); ++r) keys.insert(t->item(r, 0)->text());
    return keys;
}

// Writes a run with a loss curve y = start - slope * step, tokens_seen = 1000 * step, one second per step.
int64_t writeRun(RunStore& store, const std::string& name, const nlohmann::json& config, double start, double slope,
                 int64_t peakBytes) {
    RunRecord r;
    r.name = name;
    r.configJson = config.dump();
    r.configPath = (std::string(FTS_SOURCE_DIR) + "/resources/quickstart/") + name + ".json";
    r.model = "model";
    r.totalSteps = 10;
    const int64_t id = store.createRun(r);
    store.markStarted(id, 0, 5000.0);
    std::vector<MetricPoint> points;
    for (int64_t s = 1; s <= 10; ++s) {
        const double t = 5000.0 + double(s);
        points.push_back({s, "loss", start - slope * double(s), t});
        points.push_back({s, "tokens_seen", 1000.0 * double(s), t});
        points.push_back({s, "tokens_per_s", 100.0 * double(s), t});
    }
    points.push_back({5, "eval_loss", start - 1.0, 5005.0});
    points.push_back({10, "eval_loss", start - 0.5, 5010.0});  // worse than at step 5: best != final
    store.addMetrics(id, points);
    DeviceSample d;
    d.step = 10;
    d.device = "cpu";
    d.allocated = peakBytes / 2;
    d.peak = peakBytes;
    store.addDeviceSamples(id, {d});
    store.finishRun(id, RunStatus::Completed, 5012.0, R"({"loss": 1.0})", "");
    return id;
}

}  // namespace

class TestCompareView : public QObject {
    Q_OBJECT
private slots:
    void emaMatchesClosedForm_data() {
        QTest::addColumn<double>("weight");
        QTest::newRow("raw") << 0.0;
        QTest::newRow("light") << 0.3;
        QTest::newRow("heavy") << 0.9;
    }
    void emaMatchesClosedForm() {
        QFETCH(double, weight);
        const QVector<double> ys = {4.0, 3.5, 3.9, 2.0, 2.5, 1.0, 1.2};
        const QVector<double> got = emaSmooth(ys, weight);
        QCOMPARE(got.size(), ys.size());
        for (int i = 0; i < ys.size(); ++i) {
            // Weighted average of y_0..y_i with weights w^(i-j), normalised.
            double num = 0, den = 0;
            for (int j = 0; j <= i; ++j) {
                num += std::pow(weight, i - j) * ys[j];
                den += std::pow(weight, i - j);
            }
            QVERIFY2(std::abs(got[i] - num / den) < 1e-12, qPrintable(QString::number(i)));
        }
    }

    void flattenJsonPaths() {
        const auto flat = flattenJson(nlohmann::json::parse(R"({"b": {"c": [1, {"d": "x"}], "e": {}}, "a": true})"));
        std::vector<std::pair<QString, QString>> expected = {
            {"a", "true"}, {"b.c[0]", "1"}, {"b.c[1].d", "\"x\""}, {"b.e", "{}"}};
        QCOMPARE(flat.size(), expected.size());
        for (size_t i = 0; i < flat.size(); ++i) {
            QCOMPARE(flat[i].first, expected[i].first);
            QCOMPARE(flat[i].second, expected[i].second);
        }
    }

    void configDiffOnly_data() {
        QTest::addColumn<bool>("diffOnly");
        QTest::addColumn<QStringList>("keys");
        QTest::newRow("diff only") << true << QStringList{"lr", "only_b", "sched.warmup"};
        QTest::newRow("all") << false << QStringList{"lr", "only_b", "same", "sched.type", "sched.warmup"};
    }
    void configDiffOnly() {
        QFETCH(bool, diffOnly);
        QFETCH(QStringList, keys);
        const auto a = nlohmann::json::parse(R"({"lr": 0.1, "same": 1, "sched": {"type": "x", "warmup": 5}})");
        const auto b =
            nlohmann::json::parse(R"({"lr": 0.2, "same": 1, "sched": {"type": "x", "warmup": 6}, "only_b": 1})");
        const auto rows = configDiff({a, b}, diffOnly);
        QStringList got;
        for (const auto& r : rows) got << r.key;
        QCOMPARE(got, keys);
        for (const auto& r : rows) {
            if (r.key == "only_b") {
                QCOMPARE(r.values, (QStringList{QString(), "1"}));
                QVERIFY(r.differs);
            }
            if (r.key == "same") QVERIFY(!r.differs);
        }
    }

    void curveAxes_data() {
        QTest::addColumn<int>("axis");
        QTest::addColumn<QVector<double>>("xs");
        QTest::newRow("step") << int(CompareXAxis::Step) << QVector<double>{0, 2, 4};
        // step 4 has no tokens_seen point: left out; step 0 is 0 tokens.
        QTest::newRow("tokens") << int(CompareXAxis::TokensSeen) << QVector<double>{0, 256};
        QTest::newRow("wall time") << int(CompareXAxis::WallTime) << QVector<double>{1.5, 3.5, 7.0};
    }
    void curveAxes() {
        QFETCH(int, axis);
        QFETCH(QVector<double>, xs);
        CompareRunData d;
        d.run.startedAt = 100.0;
        d.metrics = {{4, "loss", 1.0, 107.0},        {2, "loss", 2.0, 103.5},        {0, "loss", 3.0, 101.5},
                     {2, "tokens_seen", 256, 103.5}, {3, "loss", std::nan(""), 105}, {2, "lr", 9.0, 103.5}};
        const CompareCurve c = compareCurve(d, "loss", CompareXAxis(axis));
        QCOMPARE(c.x, xs);
        QCOMPARE(c.y.size(), xs.size());
        QCOMPARE(c.y.first(), 3.0);
    }

    // A run stopped for a while and resumed: the wall-time axis is its training time (elapsed_s), so the
    // stopped minutes are not in it and nothing falls below zero; eval points take the time of their step.
    void wallTimeOfAResumedRun() {
        CompareRunData d;
        d.run.startedAt = 1000.0;  // the resume's start; the first segment ran at 100..110
        d.metrics = {{0, "eval_loss", 5.0, 100.0}, {1, "loss", 4.0, 105.0},       {1, "elapsed_s", 5.0, 105.0},
                     {2, "loss", 3.0, 110.0},      {2, "elapsed_s", 10.0, 110.0}, {2, "eval_loss", 3.5, 110.5},
                     {3, "loss", 2.0, 1004.0},     {3, "elapsed_s", 14.0, 1004.0}};
        QCOMPARE(compareCurve(d, "loss", CompareXAxis::WallTime).x, (QVector<double>{5.0, 10.0, 14.0}));
        QCOMPARE(compareCurve(d, "eval_loss", CompareXAxis::WallTime).x, (QVector<double>{0.0, 10.0}));
        // its duration in the summary is the training time of both sessions, not the last one's wall time
        d.run.endedAt = 1005.0;
        QCOMPARE(*summarizeRun(d).durationS, 14.0);
        d.run.finalMetricsJson = R"({"loss": 2.0, "elapsed_s": 14.5})";  // the end's figure wins
        QCOMPARE(*summarizeRun(d).durationS, 14.5);
        d.run.endedAt = 0;
        d.run.finalMetricsJson.clear();
        // Recorded without elapsed_s: seconds since the first point, never below zero.
        d.metrics = {{1, "loss", 4.0, 105.0}, {3, "loss", 2.0, 1004.0}};
        QCOMPARE(compareCurve(d, "loss", CompareXAxis::WallTime).x, (QVector<double>{0.0, 899.0}));
    }

    void comparesTwoStoredRuns() {
        QTemporaryDir dir;
        const QString storePath = dir.filePath(QStringLiteral("runs.sqlite"));
        nlohmann::json a = quickStart();
        nlohmann::json b = quickStart();
        b["deepspeed"]["optimizer"]["params"]["lr"] = 0.001;
        b["training"]["eval_interval"] = 25;
        int64_t idA = 0, idB = 0;
        {
            RunStore store(storePath.toStdString());
            idA = writeRun(store, "qs_a", a, 5.0, 0.2, 300ll << 20);
            idB = writeRun(store, "qs_b", b, 4.0, 0.1, 500ll << 20);
        }
        CompareView view;
        view.resize(1100, 750);
        QSignalSpy loaded(&view, &CompareView::loaded);
        view.compareRuns(storePath, {idA, idB});
        QVERIFY(view.isLoading());
        QTRY_VERIFY_WITH_TIMEOUT(!view.isLoading(), 10000);
        QVERIFY2(view.loadError().isEmpty(), qPrintable(view.loadError()));
        QCOMPARE(view.runIds(), (QList<qint64>{idA, idB}));

        // Only the keys this test changed differ (the resolved configs fill in every default identically).
        QVERIFY(view.diffOnlyCheck()->isChecked());
        QCOMPARE(diffKeys(view.diffTable()),
                 (std::set<QString>{"deepspeed.optimizer.params.lr", "training.eval_interval"}));
        QCOMPARE(view.diffTable()->columnCount(), 3);
        // All keys: many more rows, and the differing ones are still there.
        view.diffOnlyCheck()->setChecked(false);
        QVERIFY(view.diffTable()->rowCount() > 20);
        QVERIFY(diffKeys(view.diffTable()).count("training.seed") == 1);
        view.diffOnlyCheck()->setChecked(true);

        // Summary: final/best eval loss, tokens/s mean, peak memory per run.
        const QTableWidget* s = view.summaryTable();
        QCOMPARE(s->rowCount(), 2);
        auto column = [&](const QString& header) {
            for (int c = 0; c < s->columnCount(); ++c)
                if (s->horizontalHeaderItem(c)->text() == header) return c;
            return -1;
        };
        QCOMPARE(s->item(0, column("Final loss"))->text(), QString::number(5.0 - 0.2 * 10, 'f', 4));
        QCOMPARE(s->item(0, column("Best eval loss"))->text(), QString::number(4.0, 'f', 4));
        QCOMPARE(s->item(1, column("Final eval loss"))->text(), QString::number(3.5, 'f', 4));
        QCOMPARE(s->item(1, column("Tokens/s"))->text(), QString::number(550.0, 'f', 0));
        QCOMPARE(s->item(1, column("Peak memory"))->text(), QStringLiteral("500.0 MiB"));

        // Curves: one per run; smoothing changes the drawn line, not the raw curve; x axes switch.
        QCOMPARE(int(view.curves().size()), 2);
        QCOMPARE(view.curves()[1].y.first(), 4.0 - 0.1);
        view.setSmoothing(0.0);
        QCOMPARE(view.chart()->pointCount(QStringLiteral("run:0")), 10);
        view.setXAxis(CompareXAxis::TokensSeen);
        QCOMPARE(view.curves()[0].x.last(), 10000.0);
        view.setLogScale(true);
        QCOMPARE(view.chart()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(view.chart()->yAxis->range().lower > 0);

        // Exports.
        const QString png = dir.filePath(QStringLiteral("c.png"));
        const QString csv = dir.filePath(QStringLiteral("c.csv"));
        QString why;
        QVERIFY2(view.exportPng(png, &why), qPrintable(why));
        QVERIFY(QFileInfo(png).size() > 1000);
        QVERIFY2(view.exportCsv(csv, &why), qPrintable(why));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 20);
        QCOMPARE(lines.first(), QStringLiteral("run,tokens_seen,value"));
        QVERIFY(lines[1].startsWith(QStringLiteral("qs_a (#")));
        QVERIFY(lines[1].endsWith(QStringLiteral(",1000,4.8")));
    }

    void missingStoreReportsError() {
        QTemporaryDir dir;
        CompareView view;
        view.compareRuns(dir.filePath(QStringLiteral("none.sqlite")), {1, 2});
        QTRY_VERIFY_WITH_TIMEOUT(!view.isLoading(), 10000);
        QVERIFY(!view.loadError().isEmpty());
        QCOMPARE(view.runIds().size(), 0);
    }
};

QTEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
