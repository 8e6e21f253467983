// RunView: batches become chart points after the batching timer (NaN/inf dropped, one graph per
// (rank, device) for memory), many batches cost one replot, other runs' batches are ignored, and the
// ETA helpers compute from real step times.
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <limits>

#include "ui/chart_widget.h"
#include "ui/run_view.h"
#include "ui/memory_bars.h"
#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QProgressBar>
#include <QTabWidget>
#include <QTableWidget>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

RunRecord runningRun(int64_t id, int64_t total = 100) {
    RunRecord r;
    r.id = id;
    r.name = "run-" + std::to_string(id);
    r.status = RunStatus::Running;
    r.totalSteps = total;
    r.pid = 12345;
    r.startedAt = 1000;
    return r;
}

RunDataBatch batchOf(int64_t runId, int64_t fromStep, int64_t toStep, bool reset = false) {
    RunDataBatch b;
    b.runId = runId;
    b.reset = reset;
    for (int64_t s = fromStep; s <= toStep; ++s) {
        const double t = 1000.0 + 0.5 * static_cast<double>(s);  // 0.5 s per step
        b.metrics.push_back({s, "loss", 3.0 / static_cast<double>(s + 1), t});
        b.metrics.push_back({s, "tokens_per_s", 2048.0, t});
        DeviceSample d0;
        d0.step = s;
        d0.rank = 0;
        d0.device = "cuda:0";
        d0.allocated = int64_t(512) << 20;
        d0.peak = int64_t(768) << 20;
        d0.capacity = int64_t(1) << 34;
        DeviceSample d1 = d0;
        d1.rank = 1;
        d1.device = "cuda:1";
        d1.allocated = int64_t(256) << 20;
        b.samples.push_back(d0);
        b.samples.push_back(d1);
    }
    return b;
}

}  // namespace

class TestRunView : public QObject {
    Q_OBJECT
private slots:
    // fts train records its memory estimate with the run: each device's bar carries it next to the measured peak
    // (CUDA: the allocator estimate, as the allocator measures tensors; CPU: the total, as RSS is the whole).
    void estimateNextToThePeak() {
        RunView view;
        view.showRun(runningRun(6));
        RunDataBatch b;
        b.runId = 6;
        b.metrics = {{0, "memory_estimate_bytes", double(int64_t(3) << 30), 1.0},
                     {0, "memory_estimate_allocator_bytes", double(int64_t(5) << 29), 1.0}};
        DeviceSample gpu;
        gpu.step = 1;
        gpu.device = "cuda:0";
        gpu.allocated = int64_t(1) << 30;
        gpu.peak = int64_t(5) << 29;  // 2.5 GiB: the allocator estimate exactly
        gpu.capacity = int64_t(1) << 34;
        DeviceSample cpu = gpu;
        cpu.rank = 1;
        cpu.device = "cpu";
        cpu.peak = int64_t(3) << 29;  // 1.5 GiB of the 3 GiB total
        b.samples = {gpu, cpu};
        view.applyBatch(b);
        QTRY_VERIFY(view.memoryBars()->bars().size() >= 2);  // the bars follow on the next replot
        const QVector<MemoryBar>& bars = view.memoryBars()->bars();
        QCOMPARE(bars[0].estimate, int64_t(5) << 29);
        QCOMPARE(bars[1].estimate, int64_t(3) << 30);
        QVERIFY2(MemoryBars::barText(bars[0]).contains(QStringLiteral("estimate 2.5: peak 100%")),
                 qPrintable(MemoryBars::barText(bars[0])));
        QVERIFY2(MemoryBars::barText(bars[1]).contains(QStringLiteral("estimate 3.0: peak 50%")),
                 qPrintable(MemoryBars::barText(bars[1])));
    }

    // An out-of-memory failure leads with the studio's own sentence (step and phase), then fts's details; other
    // reasons are shown as they are.
    void outOfMemoryInTheStudiosWords() {
        const QString reason = QStringLiteral(
            "out of memory at step 12 (backward) on cuda:0: the peak was 22.10 GiB allocated (23.20 GiB reserved) of "
            "23.55 GiB. The estimate is 30.00 GiB per rank (peak at backward (start)). Each change estimated alone: "
            "model.activation_checkpointing = true (18.00 GiB, fits)");
        const QString text = RunView::failureText(reason);
        QVERIFY2(text.startsWith(QStringLiteral("Out of memory at step 12, in the backward pass.")), qPrintable(text));
        QVERIFY(text.endsWith(reason));
        QCOMPARE(RunView::failureText(QStringLiteral("the loss is nan")), QStringLiteral("the loss is nan"));
        QVERIFY(RunView::failureText(QStringLiteral("out of memory during set-up on cpu: x"))
                    .startsWith(QStringLiteral("Out of memory while setting up.")));
    }

    // training.sample_prompts: no Samples tab until the first text; then newest step first, the prompts of a step in
    // their order; another run's texts are ignored; a new run empties the table and hides the tab again.
    void samplesTab() {
        RunView view;
        view.resize(1000, 700);
        view.show();
        view.showRun(runningRun(4));
        QCOMPARE(view.chartTabs()->indexOf(view.samplesTable()), -1);
        RunDataBatch b;
        b.runId = 4;
        b.texts = {{0, 1.0, 0, "Hi", "reply a0", 1}, {0, 1.0, 1, "Why?", "reply b0", 2}};
        view.applyBatch(b);
        QVERIFY(view.chartTabs()->indexOf(view.samplesTable()) >= 0);
        b.texts = {{8, 2.0, 0, "Hi", "reply a8", 3}, {8, 2.0, 1, "Why?", "reply b8\nsecond line", 4}};
        view.applyBatch(b);
        QTableWidget* t = view.samplesTable();
        QCOMPARE(t->rowCount(), 4);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("8"));
        QCOMPARE(t->item(0, 2)->text(), QStringLiteral("reply a8"));
        QCOMPARE(t->item(1, 2)->text(), QStringLiteral("reply b8\nsecond line"));
        QCOMPARE(t->item(3, 1)->text(), QStringLiteral("Why?"));
        QCOMPARE(t->item(3, 0)->text(), QStringLiteral("0"));
        b.runId = 5;
        view.applyBatch(b);
        QCOMPARE(t->rowCount(), 4);
        view.showRun(runningRun(5));
        QCOMPARE(t->rowCount(), 0);
        QCOMPARE(view.chartTabs()->indexOf(view.samplesTable()), -1);
    }

    // lr, grad norm, loss scale and tokens/s charts; the smoothed loss is the debiased EMA of the raw points
    // (and the raw loss itself at weight 0); log scale; memory bars with reserved/peak/capacity and host RAM;
    // progress; Stop now asks through its own signal.
    void liveAdditions() {
        RunView view;
        view.resize(1000, 900);
        view.show();
        view.showRun(runningRun(9, 200));
        RunDataBatch b = batchOf(9, 1, 50);
        for (int64_t s = 1; s <= 50; ++s) {
            const double t = 1000.0 + 0.5 * double(s);
            b.metrics.push_back({s, "lr", 1e-3 * double(s) / 50.0, t});
            b.metrics.push_back({s, "grad_norm", 2.0 / double(s), t});
            b.metrics.push_back({s, "loss_scale", 65536.0, t});
        }
        for (DeviceSample& d : b.samples) d.reserved = int64_t(1) << 30;
        view.applyBatch(b);
        QTRY_COMPARE(view.lrChart()->pointCount(QStringLiteral("lr")), 50);
        QCOMPARE(view.gradNormChart()->pointCount(QStringLiteral("grad_norm")), 50);
        QCOMPARE(view.lossScaleChart()->pointCount(QStringLiteral("loss_scale")), 50);
        QCOMPARE(view.tokensChart()->pointCount(QStringLiteral("tokens_per_s")), 50);
        QCOMPARE(view.progressBar()->value(), 50);
        QCOMPARE(view.progressBar()->maximum(), 200);
        QVERIFY(!view.etaText().isEmpty() && view.etaText() != QStringLiteral("–"));

        // Smoothed loss = debiased EMA, computed here independently.
        const auto smoothedAt = [&](int i) {
            return view.lossChart()->graphByKey(QStringLiteral("loss_smoothed"))->data()->at(i)->value;
        };
        QTRY_COMPARE(view.lossChart()->pointCount(QStringLiteral("loss_smoothed")), 50);
        const double w = view.smoothingSpin()->value();
        QVERIFY(w > 0);
        double ema = 0, wp = 1;
        for (int i = 0; i < 50; ++i) {
            ema = w * ema + (1 - w) * (3.0 / double(i + 2));
            wp *= w;
            QVERIFY(std::abs(smoothedAt(i) - ema / (1 - wp)) < 1e-12);
        }
        view.smoothingSpin()->setValue(0.0);
        QTRY_VERIFY(std::abs(smoothedAt(49) - 3.0 / 51.0) < 1e-12);
        QTest::mouseClick(view.logScaleCheck(), Qt::LeftButton);
        QCOMPARE(view.lossChart()->yAxis->scaleType(), QCPAxis::stLogarithmic);

        // Memory bars: the latest sample of each rank against its capacity, then the host's RAM.
        const QVector<MemoryBar>& bars = view.memoryBars()->bars();
        QVERIFY(bars.size() >= 2);
        QCOMPARE(bars[0].allocated, int64_t(512) << 20);
        QCOMPARE(bars[0].reserved, int64_t(1) << 30);
        QCOMPARE(bars[0].peak, int64_t(768) << 20);
        QCOMPARE(bars[0].capacity, int64_t(1) << 34);
        QVERIFY(bars[1].label.contains(QStringLiteral("cuda:1")));
        QCOMPARE(MemoryBars::barText(bars[0]), QStringLiteral("0.50 / 16.0 GiB (reserved 1.0, peak 0.75)"));
        const auto [used, total] = hostMemory();
        if (total > 0) {
            QCOMPARE(bars.back().capacity, total);
            QVERIFY(bars.back().allocated > 0 && bars.back().allocated <= total);
        }

        QVERIFY(view.stopNowButton()->isEnabled());
        QSignalSpy now(&view, &RunView::stopNowClicked);
        QTest::mouseClick(view.stopNowButton(), Qt::LeftButton);
        QCOMPARE(now.count(), 1);
        QCOMPARE(now.first().first().toLongLong(), qint64(9));
        QDir().mkpath((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")));
        view.grab().save((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots/run_view_live.png")));
    }

    void batchesBecomePoints() {
        RunView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showRun(runningRun(7));
        RunDataBatch b = batchOf(7, 1, 10, /*reset=*/true);
        b.metrics.push_back({11, "loss", std::numeric_limits<double>::quiet_NaN(), 1005.5});
        b.metrics.push_back({12, "loss", std::numeric_limits<double>::infinity(), 1006.0});
        b.metrics.push_back({10, "eval_loss", 0.9, 1005.2});
        view.applyBatch(b);
        SeriesChart* loss = view.lossChart();
        QTRY_COMPARE(loss->pointCount(QStringLiteral("loss")), 10);
        QCOMPARE(loss->pointCount(QStringLiteral("eval_loss")), 1);
        QCPGraph* g = loss->graphByKey(QStringLiteral("loss"));
        QCOMPARE(g->data()->at(0)->key, 1.0);
        QCOMPARE(g->data()->at(0)->value, 1.5);
        QCOMPARE((g->data()->end() - 1)->key, 10.0);

        SeriesChart* mem = view.memoryChart();
        QCOMPARE(mem->graphKeys().size(), 4);  // (allocated, peak) x 2 devices
        QCPGraph* a0 = mem->graphByKey(QStringLiteral("alloc:0:cuda:0"));
        QVERIFY(a0);
        QCOMPARE(a0->data()->at(0)->value, 512.0);  // MiB
        QCOMPARE(mem->graphByKey(QStringLiteral("peak:0:cuda:0"))->data()->at(0)->value, 768.0);
        QCOMPARE(mem->graphByKey(QStringLiteral("alloc:1:cuda:1"))->data()->at(3)->value, 256.0);
        QVERIFY(a0->name().contains(QLatin1String("16384")));  // capacity in the legend, MiB
        QVERIFY(view.stopButton()->isEnabled());
    }

    // Classification metrics get their own tab (first), one graph per metric; an LM run has no such tab.
    void evalMetricsTab() {
        RunView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showRun(runningRun(8));
        QCOMPARE(view.chartTabs()->indexOf(view.evalMetricsChart()), -1);
        RunDataBatch b = batchOf(8, 1, 4, /*reset=*/true);
        for (int64_t s : {2, 4}) {
            b.metrics.push_back({s, "eval_loss", 0.7, 1000.0 + s});
            b.metrics.push_back({s, "eval_accuracy", 0.5 + 0.1 * double(s), 1000.0 + s});
            b.metrics.push_back({s, "eval_f1", 0.4 + 0.1 * double(s), 1000.0 + s});
        }
        view.applyBatch(b);
        SeriesChart* chart = view.evalMetricsChart();
        QTRY_COMPARE(chart->pointCount(QStringLiteral("eval_accuracy")), 2);
        QCOMPARE(chart->pointCount(QStringLiteral("eval_f1")), 2);
        QCOMPARE(chart->graphByKey(QStringLiteral("eval_loss")), nullptr);  // eval loss stays on the loss chart
        QCOMPARE(view.lossChart()->pointCount(QStringLiteral("eval_loss")), 2);
        QCOMPARE(view.chartTabs()->indexOf(chart), 0);
        QCOMPARE(chart->graphByKey(QStringLiteral("eval_accuracy"))->name(), QStringLiteral("accuracy"));
        QCOMPARE(chart->graphByKey(QStringLiteral("eval_f1"))->data()->at(1)->value, 0.8);
        view.chartTabs()->setCurrentIndex(0);
        QDir().mkpath((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")));
        view.grab().save(
            (QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots/run_view_eval_metrics.png")));
        view.showRun(runningRun(9));  // another run: the tab goes
        QCOMPARE(view.chartTabs()->indexOf(chart), -1);
    }

    // Preference runs: the rewards (chosen, rejected, margin) get a tab that comes forward; eval rewards join the
    // eval metrics, the eval log-probs and logits do not (they stay in the store, for the compare page).
    void rewardsTab() {
        RunView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showRun(runningRun(8));
        QCOMPARE(view.chartTabs()->indexOf(view.rewardsChart()), -1);
        RunDataBatch b = batchOf(8, 1, 4, /*reset=*/true);
        for (int64_t s = 1; s <= 4; ++s) {
            b.metrics.push_back({s, "rewards/chosen", -0.1 * double(s), 1000.0 + s});
            b.metrics.push_back({s, "rewards/rejected", -0.3 * double(s), 1000.0 + s});
            b.metrics.push_back({s, "rewards/margins", 0.2 * double(s), 1000.0 + s});
            b.metrics.push_back({s, "rewards/accuracies", 1.0, 1000.0 + s});
            b.metrics.push_back({s, "logps/chosen", -40.0, 1000.0 + s});
        }
        b.metrics.push_back({4, "eval_rewards/margins", 0.5, 1004.0});
        b.metrics.push_back({4, "eval_logps/chosen", -42.0, 1004.0});
        view.applyBatch(b);
        SeriesChart* chart = view.rewardsChart();
        QTRY_COMPARE(chart->pointCount(QStringLiteral("rewards/margins")), 4);
        QCOMPARE(chart->pointCount(QStringLiteral("rewards/chosen")), 4);
        QCOMPARE(chart->graphByKey(QStringLiteral("rewards/accuracies")), nullptr);
        QCOMPARE(chart->graphByKey(QStringLiteral("rewards/margins"))->data()->at(3)->value, 0.8);
        QCOMPARE(view.chartTabs()->currentWidget(), chart);
        QVERIFY(chart->graphByKey(QStringLiteral("rewards/margins"))->name().contains(QLatin1String("margin")));
        QCOMPARE(view.evalMetricsChart()->pointCount(QStringLiteral("eval_rewards/margins")), 1);
        QCOMPARE(view.evalMetricsChart()->graphByKey(QStringLiteral("eval_logps/chosen")), nullptr);
        QDir().mkpath((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")));
        view.grab().save((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots/run_view_rewards.png")));
        view.showRun(runningRun(9));
        QCOMPARE(view.chartTabs()->indexOf(chart), -1);
    }

    // A mixture of experts with output_router_logits: its load-balancing loss (aux_loss) gets a Router tab.
    void routerTab() {
        RunView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showRun(runningRun(10));
        QCOMPARE(view.chartTabs()->indexOf(view.routerChart()), -1);
        RunDataBatch b = batchOf(10, 1, 5, /*reset=*/true);
        for (int64_t s = 1; s <= 5; ++s) b.metrics.push_back({s, "aux_loss", 1.0 + 0.5 / double(s), 1000.0 + s});
        view.applyBatch(b);
        QVERIFY(view.chartTabs()->indexOf(view.routerChart()) >= 0);
        QTRY_COMPARE(view.routerChart()->pointCount(QStringLiteral("aux_loss")), 5);
        QCOMPARE(view.routerChart()->graphByKey(QStringLiteral("aux_loss"))->data()->at(1)->value, 1.25);
        view.chartTabs()->setCurrentWidget(view.routerChart());
        QDir().mkpath((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")));
        view.grab().save((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots/run_view_router.png")));
        view.showRun(runningRun(11));
        QCOMPARE(view.chartTabs()->indexOf(view.routerChart()), -1);
    }

    void manyBatchesOneReplot() {
        RunView view;
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showRun(runningRun(3, 1000));
        const int before = view.replotCount();
        for (int64_t s = 1; s <= 300; ++s)  // arrives faster than the replot timer: no event processing here
            view.applyBatch(batchOf(3, s, s));
        QCOMPARE(view.replotCount(), before);  // nothing drawn synchronously
        QTRY_COMPARE(view.lossChart()->pointCount(QStringLiteral("loss")), 300);
        QCOMPARE(view.replotCount(), before + 1);
        QCOMPARE(view.memoryChart()->pointCount(QStringLiteral("alloc:1:cuda:1")), 300);
    }

    void otherRunsAndResetBatches() {
        RunView view;
        view.showRun(runningRun(5));
        view.applyBatch(batchOf(6, 1, 5));  // another run: ignored
        view.applyBatch(batchOf(5, 1, 4));
        QTRY_COMPARE(view.lossChart()->pointCount(QStringLiteral("loss")), 4);
        view.applyBatch(batchOf(5, 1, 2, /*reset=*/true));  // history replayed: replaces what was shown
        QTRY_COMPARE(view.lossChart()->pointCount(QStringLiteral("loss")), 2);
        view.showRun(runningRun(9));  // a different run clears the charts
        QTRY_COMPARE(view.lossChart()->pointCount(QStringLiteral("loss")), 0);
        QCOMPARE(view.memoryChart()->graphKeys().size(), 0);
    }

    void stopButtonFollowsStatus() {
        RunView view;
        QSignalSpy stop(&view, &RunView::stopClicked);
        RunRecord r = runningRun(11);
        view.showRun(r);
        QVERIFY(view.stopButton()->isEnabled());
        QTest::mouseClick(view.stopButton(), Qt::LeftButton);
        QCOMPARE(stop.count(), 1);
        QCOMPARE(stop.at(0).at(0).toLongLong(), qint64(11));
        view.setStopPending(true);
        QVERIFY(!view.stopButton()->isEnabled());
        r.status = RunStatus::Stopped;
        r.endedAt = 1090;
        view.updateRun(r);
        QVERIFY(!view.stopButton()->isEnabled());
        QCOMPARE(view.statusText(), QStringLiteral("stopped"));
    }

    void secondsPerStep_data() {
        QTest::addColumn<QVector<double>>("steps");
        QTest::addColumn<QVector<double>>("times");
        QTest::addColumn<double>("expected");  // < 0: unknown
        QTest::newRow("steady") << QVector<double>{1, 2, 3, 4} << QVector<double>{10, 10.5, 11, 11.5} << 0.5;
        QTest::newRow("log every 5") << QVector<double>{5, 10, 15} << QVector<double>{0, 3, 6} << 0.6;
        QTest::newRow("one point") << QVector<double>{1} << QVector<double>{3} << -1.0;
        QTest::newRow("no time passed") << QVector<double>{1, 2} << QVector<double>{3, 3} << -1.0;
    }
    void secondsPerStep() {
        QFETCH(QVector<double>, steps);
        QFETCH(QVector<double>, times);
        QFETCH(double, expected);
        std::vector<std::pair<int64_t, double>> st;
        for (int i = 0; i < steps.size(); ++i) st.emplace_back(static_cast<int64_t>(steps[i]), times[i]);
        const auto got = RunView::secondsPerStep(st);
        if (expected < 0) {
            QVERIFY(!got);
        } else {
            QVERIFY(got);
            QVERIFY(std::abs(*got - expected) < 1e-12);
        }
    }

    // An ended run's "took": its training time over every session; a stopped and resumed run also names the wall
    // time since it was created (the pause), a run that never stopped only its time.
    void tookCountsEverySession() {
        RunRecord r;
        r.createdAt = 1000;
        r.startedAt = 1005;
        r.endedAt = 1065;
        r.finalMetricsJson = R"({"loss": 1.0, "elapsed_s": 58.0})";
        QCOMPARE(RunView::tookText(r), QStringLiteral("took %1").arg(RunView::formatDuration(58.0)));
        r.startedAt = 4000;  // resumed an hour later, 20 s more of training
        r.endedAt = 4025;
        r.finalMetricsJson = R"({"loss": 0.9, "elapsed_s": 78.0})";
        const QString text = RunView::tookText(r);
        QVERIFY2(text.contains(RunView::formatDuration(78.0)) && text.contains(RunView::formatDuration(3025.0)),
                 qPrintable(text));
        r.finalMetricsJson = R"({"loss": 0.9})";  // recorded before the end carried its training time
        QCOMPARE(RunView::tookText(r), QStringLiteral("took %1").arg(RunView::formatDuration(25.0)));
    }

    void formatDuration_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("s") << 42.4 << "42 s";
        QTest::newRow("min") << 125.0 << "2 min 5 s";
        QTest::newRow("h") << 7260.0 << "2 h 1 min";
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "";
    }
    void formatDuration() {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(RunView::formatDuration(seconds), text);
    }
};

QTEST_MAIN(TestRunView)
#include "test_run_view.moc"
