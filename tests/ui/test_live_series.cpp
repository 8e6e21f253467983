// LiveSeries: non-finite values are dropped, x stays sorted (equal x replaces), capacity bounds the size
// while the first and the most recent points survive thinning.
#include <QTest>
#include <cmath>
#include <limits>

#include "ui/live_series.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::LiveSeries;

class TestLiveSeries : public QObject {
    Q_OBJECT
private slots:
    void dropsNonFinite_data() {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("y");
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        QTest::newRow("nan y") << 3.0 << nan;
        QTest::newRow("+inf y") << 3.0 << inf;
        QTest::newRow("-inf y") << 3.0 << -inf;
        QTest::newRow("nan x") << nan << 1.5;
        QTest::newRow("inf x") << inf << 1.5;
    }
    void dropsNonFinite() {
        QFETCH(double, x);
        QFETCH(double, y);
        LiveSeries s;
        QVERIFY(s.append(1, 2.5));
        const auto rev = s.revision();
        QVERIFY(!s.append(x, y));
        QCOMPARE(s.size(), 1);
        QCOMPARE(s.droppedNonFinite(), 1);
        QCOMPARE(s.revision(), rev);
        QVERIFY(s.append(2, 2.25));
        QCOMPARE(s.size(), 2);
        QCOMPARE(s.lastY(), 2.25);
    }

    void keepsXSorted() {
        LiveSeries s;
        for (double x : {1.0, 2.0, 5.0, 7.0}) QVERIFY(s.append(x, x * 10));
        QVERIFY(s.append(3.0, 30));  // late point: inserted in order
        QVERIFY(s.append(5.0, 55));  // same x: replaces
        QVERIFY(s.append(0.5, 5));   // before the first
        const QVector<double> xs{0.5, 1, 2, 3, 5, 7};
        const QVector<double> ys{5, 10, 20, 30, 55, 70};
        QCOMPARE(s.xs(), xs);
        QCOMPARE(s.ys(), ys);
    }

    void boundedWithFirstAndRecentKept_data() {
        QTest::addColumn<int>("capacity");
        QTest::addColumn<int>("points");
        QTest::newRow("small") << 16 << 1000;
        QTest::newRow("odd capacity") << 37 << 5003;
        QTest::newRow("just over") << 100 << 101;
        QTest::newRow("big") << 1000 << 123457;
    }
    void boundedWithFirstAndRecentKept() {
        QFETCH(int, capacity);
        QFETCH(int, points);
        LiveSeries s(capacity);
        for (int i = 0; i < points; ++i) {
            QVERIFY(s.append(i, std::sin(i * 0.01)));
            QVERIFY(s.size() <= capacity);
        }
        QCOMPARE(s.xs().first(), 0.0);
        QCOMPARE(s.lastX(), double(points - 1));
        QCOMPARE(s.lastY(), std::sin((points - 1) * 0.01));
        // The newest quarter of the buffer is at full resolution (consecutive x).
        const int n = s.size();
        QVERIFY(n >= capacity / 2);
        for (int i = n - capacity / 4; i < n; ++i) QCOMPARE(s.xs()[i] - s.xs()[i - 1], 1.0);
        for (int i = 1; i < n; ++i) QVERIFY(s.xs()[i] > s.xs()[i - 1]);
    }

    void clearResets() {
        LiveSeries s;
        s.append(1, 1);
        s.append(1, std::numeric_limits<double>::quiet_NaN());
        const auto rev = s.revision();
        s.clear();
        QVERIFY(s.isEmpty());
        QCOMPARE(s.droppedNonFinite(), 0);
        QVERIFY(s.revision() != rev);
    }
};

QTEST_APPLESS_MAIN(TestLiveSeries)
#include "test_live_series.moc"
