// SeriesChart: graphs by key, sync copies a series only when its revision changed, auto-range follows
// the data until the user zooms (wheel) and comes back on double click.
#include <QTest>
#include <QElapsedTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#include <QWheelEvent>

#include "ui/chart_widget.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

class TestChartWidget : public QObject {
    Q_OBJECT
private slots:
    // A series of 1,000,000 points: the time of one full redraw (QCustomPlot's adaptive sampling), median and
    // worst of 20, after the data is in the graph; and the copy into the graph (sync). Skipped unless FTS_BENCH=1.
    void benchMillionPoints() {
        if (qEnvironmentVariableIntValue("FTS_BENCH") != 1) QSKIP("benchmark: set FTS_BENCH=1");
        fts::SeriesChart chart(QStringLiteral("bench"), QStringLiteral("step"), QStringLiteral("loss"));
        chart.resize(1200, 500);
        chart.show();
        fts::LiveSeries series(2'000'000);
        for (int i = 0; i < 1'000'000; ++i)
            series.append(double(i), 3.0 / std::sqrt(1.0 + i) + 0.05 * std::sin(i * 0.37));
        chart.ensureGraph(QStringLiteral("loss"), QStringLiteral("loss"), QPen(Qt::blue));
        QElapsedTimer t;
        t.start();
        chart.sync(QStringLiteral("loss"), series);
        const double syncMs = double(t.nsecsElapsed()) / 1e6;
        chart.refresh();
        std::vector<double> ms;
        for (int i = 0; i < 20; ++i) {
            t.restart();
            chart.replot(QCustomPlot::rpImmediateRefresh);
            ms.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf(
            "1M-point series: sync (copy into the graph) %.1f ms; full redraw median %.1f ms, worst %.1f ms "
            "(20 redraws, 1200x500)\n",
            syncMs, ms[10], ms.back());
        QCOMPARE(chart.pointCount(QStringLiteral("loss")), 1'000'000);
    }

    // A short chart (the run page's 120-pixel minimum, the tabs' lr, grad norm and tokens/s charts) keeps its value
    // labels apart: adjacent labels are at least a line of their font apart. (A log axis under a decade high gets
    // QCustomPlot's own ticks: the loss chart, the one with a log scale, is the page's tall chart.)
    void shortChartsKeepTheirLabelsApart() {
        for (const bool logScale : {false}) {
            SeriesChart chart(QStringLiteral("t"), QStringLiteral("step"), QStringLiteral("loss"));
            chart.show();
            QVERIFY(QTest::qWaitForWindowExposed(&chart));
            chart.ensureGraph(QStringLiteral("loss"), QStringLiteral("loss"), QPen(Qt::blue));
            LiveSeries s(256);
            for (int i = 1; i <= 200; ++i) s.append(i, 0.5 + 3.2 * std::exp(-i / 40.0));
            chart.sync(QStringLiteral("loss"), s);
            if (logScale) {
                chart.yAxis->setScaleType(QCPAxis::stLogarithmic);
                chart.yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
            }
            // laid out tall first (another page's size), then made short: one replot must already space them
            chart.resize(400, 400);
            chart.refresh();
            chart.replot(QCustomPlot::rpImmediateRefresh);
            chart.resize(400, 120);
            chart.replot(QCustomPlot::rpImmediateRefresh);
            std::vector<double> at;
            for (double v : chart.yAxis->tickVector())
                if (chart.yAxis->range().contains(v)) at.push_back(chart.yAxis->coordToPixel(v));
            std::sort(at.begin(), at.end());
            QVERIFY2(!at.empty(), qPrintable(QStringLiteral("%1 ticks in %2..%3 (log %4)")
                                                 .arg(at.size())
                                                 .arg(chart.yAxis->range().lower)
                                                 .arg(chart.yAxis->range().upper)
                                                 .arg(logScale)));
            const int line = QFontMetrics(chart.yAxis->tickLabelFont()).height();
            for (size_t i = 1; i < at.size(); ++i)
                QVERIFY2(at[i] - at[i - 1] >= line,
                         qPrintable(QStringLiteral("%1 labels %2 px apart, a line is %3 px (log %4)")
                                        .arg(at.size())
                                        .arg(at[i] - at[i - 1])
                                        .arg(line)
                                        .arg(logScale)));
        }
    }

    // After an append-only change the graph gets just the new points (a mark put into the graph's first point
    // survives); an insert in the middle or thinning copies the whole series again (the mark is gone). Either
    // way the graph ends equal to the series.
    // Auto-range fits the data's own values: a flat curve gets room around its value (a constant lr of 1e-3 stays
    // readable), and a log axis is fitted to the positive values only (an lr of 0 at the start of warm-up).
    void autoRangeFitsFlatAndLogCurves() {
        SeriesChart chart(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("y"));
        chart.resize(400, 300);
        chart.ensureGraph(QStringLiteral("lr"), QStringLiteral("lr"), QPen(Qt::blue));
        LiveSeries s(64);
        for (int i = 1; i <= 5; ++i) s.append(i, 1e-3);
        chart.sync(QStringLiteral("lr"), s);
        chart.refresh();
        QVERIFY2(chart.yAxis->range().lower > 8e-4 && chart.yAxis->range().upper < 1.2e-3,
                 qPrintable(QString("%1 .. %2").arg(chart.yAxis->range().lower).arg(chart.yAxis->range().upper)));
        LiveSeries w(64);
        w.append(0, 0.0);
        w.append(1, 1e-4);
        w.append(2, 1e-3);
        chart.sync(QStringLiteral("lr"), w);
        chart.yAxis->setScaleType(QCPAxis::stLogarithmic);
        chart.refresh();
        QVERIFY2(chart.yAxis->range().lower > 0 && chart.yAxis->range().lower < 1e-4,
                 qPrintable(QString::number(chart.yAxis->range().lower)));
    }

    void syncAppendsOnlyNewPoints() {
        SeriesChart chart(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("y"));
        QCPGraph* g = chart.ensureGraph(QStringLiteral("a"), QStringLiteral("A"), QPen(Qt::blue));
        LiveSeries s(64);
        for (int i = 0; i < 40; ++i) s.append(i, 100 - i);
        const auto sameAsSeries = [&] {
            if (g->data()->size() != s.size()) return false;
            for (int i = 0; i < s.size(); ++i)
                if (g->data()->at(i)->key != s.xs()[i] || g->data()->at(i)->value != s.ys()[i]) return false;
            return true;
        };
        QVERIFY(chart.sync(QStringLiteral("a"), s));
        QVERIFY(sameAsSeries());
        g->data()->begin()->value = -1;  // the mark
        for (int i = 40; i < 50; ++i) s.append(i, 100 - i);
        QVERIFY(chart.sync(QStringLiteral("a"), s));
        QCOMPARE(g->data()->size(), 50);
        QCOMPARE(g->data()->at(0)->value, -1.0);  // only the 10 new points were copied
        QCOMPARE(g->data()->at(49)->key, 49.0);
        s.append(10.5, 7);  // out of order: stored points move
        QVERIFY(chart.sync(QStringLiteral("a"), s));
        QVERIFY(sameAsSeries());  // the mark is gone: a full copy
        g->data()->begin()->value = -1;
        for (int i = 50; i < 80; ++i) s.append(i, 100 - i);  // past the capacity: thinned
        QVERIFY(s.size() < 80);
        QVERIFY(chart.sync(QStringLiteral("a"), s));
        QVERIFY(sameAsSeries());
    }

    void syncCopiesOnlyChangedSeries() {
        SeriesChart chart(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("y"));
        QCPGraph* g = chart.ensureGraph(QStringLiteral("a"), QStringLiteral("A"), QPen(Qt::blue));
        QCOMPARE(chart.ensureGraph(QStringLiteral("a"), QStringLiteral("other"), QPen(Qt::red)), g);  // existing
        QCOMPARE(g->name(), QStringLiteral("A"));
        LiveSeries s;
        s.append(1, 10);
        s.append(2, 20);
        QVERIFY(chart.sync(QStringLiteral("a"), s));
        QCOMPARE(chart.pointCount(QStringLiteral("a")), 2);
        QVERIFY(!chart.sync(QStringLiteral("a"), s));  // unchanged revision: nothing copied
        s.append(3, 30);
        QVERIFY(chart.sync(QStringLiteral("a"), s));
        QCOMPARE(chart.pointCount(QStringLiteral("a")), 3);
        QVERIFY(!chart.sync(QStringLiteral("missing"), s));
        chart.removeAllSeries();
        QVERIFY(chart.graphKeys().isEmpty());
        QCOMPARE(chart.graphCount(), 0);
    }

    void autoRangeFollowsUntilTheUserZooms() {
        SeriesChart chart(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("y"));
        chart.resize(400, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.ensureGraph(QStringLiteral("a"), QStringLiteral("A"), QPen(Qt::blue));
        LiveSeries s;
        for (int i = 0; i <= 10; ++i) s.append(i, i * i);
        chart.sync(QStringLiteral("a"), s);
        chart.refresh();
        QVERIFY(chart.xAxis->range().contains(10) && chart.yAxis->range().contains(100));
        // the first point (a step-0 eval) is drawn clear of the y axis, not on it
        QVERIFY2(chart.xAxis->range().lower < 0, qPrintable(QString::number(chart.xAxis->range().lower)));
        QVERIFY(chart.xAxis->coordToPixel(0) - chart.axisRect()->left() >= 3);

        const QPointF center = chart.axisRect()->rect().center();
        QWheelEvent wheel(center, chart.mapToGlobal(center), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(&chart, &wheel);
        QVERIFY(!chart.autoRange());
        const QCPRange zoomed = chart.xAxis->range();
        for (int i = 11; i <= 50; ++i) s.append(i, i * i);
        chart.sync(QStringLiteral("a"), s);
        chart.refresh();
        QCOMPARE(chart.xAxis->range(), zoomed);  // the user's view is kept

        QTest::mouseDClick(&chart, Qt::LeftButton, Qt::NoModifier, center.toPoint());
        QVERIFY(chart.autoRange());
        QVERIFY(chart.xAxis->range().contains(50) && chart.yAxis->range().contains(2500));
    }
};

QTEST_MAIN(TestChartWidget)
#include "test_chart_widget.moc"
