// Unit tests of the supervisor's pure helpers (progress line, durations); the supervisor itself is
// exercised end to end by tests/integration/test_train_cli.cpp.
#include <QtTest>

#include <cmath>

#include "core/launch/supervisor.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

class TestSupervisor : public QObject {
    Q_OBJECT
private slots:
    void formatEta_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << 0.0 << "0:00";
        QTest::newRow("rounds") << 59.6 << "1:00";
        QTest::newRow("minutes") << 245.0 << "4:05";
        QTest::newRow("hours") << 3723.0 << "1:02:03";
        QTest::newRow("unknown") << double(NAN) << "?";
        QTest::newRow("negative") << -3.0 << "?";
    }
    void formatEta() {
        QFETCH(double, seconds);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(fts::formatEta(seconds)), expected);
    }
    void progressLineShowsStepLossSpeedEta() {
        const std::string line = fts::progressLine(50, 200, 2.345678, 12345.6, 90.0, 20);
        QCOMPARE(QString::fromStdString(line),
                 QString("[#####...............] step 50/200  loss 2.3457  12346 tok/s  ETA 1:30"));
        const std::string done = fts::progressLine(200, 200, 1.0, 1.0, 0.0, 4);
        QVERIFY(done.rfind("[####]", 0) == 0);
    }
};

QTEST_APPLESS_MAIN(TestSupervisor)
#include "test_supervisor.moc"
