// resolveLocalLaunch: DeepSpeed's one-host launcher rules (--num_gpus, --include, --exclude, with
// CUDA_VISIBLE_DEVICES) and --nproc, including the contradictions it refuses.
#include <QtTest>

#include "core/launch/supervisor.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

Q_DECLARE_METATYPE(std::vector<int>)

class TestLocalLaunch : public QObject {
    Q_OBJECT
private slots:
    void resolves_data() {
        QTest::addColumn<int>("nproc");
        QTest::addColumn<int>("numGpus");
        QTest::addColumn<QString>("include");
        QTest::addColumn<QString>("exclude");
        QTest::addColumn<QString>("visible");  // "-" = unset
        QTest::addColumn<int>("world");
        QTest::addColumn<std::vector<int>>("gpus");
        QTest::newRow("default") << 0 << 0 << ""
                                 << ""
                                 << "-" << 1 << std::vector<int>{};
        QTest::newRow("nproc cpu") << 3 << 0 << ""
                                   << ""
                                   << "-" << 3 << std::vector<int>{};
        QTest::newRow("num_gpus") << 0 << 2 << ""
                                  << ""
                                  << "-" << 2 << std::vector<int>{0, 1};
        QTest::newRow("num_gpus visible") << 0 << 2 << ""
                                          << ""
                                          << "3,5,7" << 2 << std::vector<int>{3, 5};
        QTest::newRow("include") << 0 << 0 << "localhost:1,3"
                                 << ""
                                 << "-" << 2 << std::vector<int>{1, 3};
        QTest::newRow("include all") << 0 << 0 << "localhost"
                                     << ""
                                     << "2,4" << 2 << std::vector<int>{2, 4};
        QTest::newRow("exclude") << 0 << 0 << ""
                                 << "localhost:1"
                                 << "0,1,2,3" << 3 << std::vector<int>{0, 2, 3};
        QTest::newRow("nproc agrees") << 2 << 0 << "localhost:0,1"
                                      << ""
                                      << "-" << 2 << std::vector<int>{0, 1};
    }
    void resolves() {
        QFETCH(int, nproc);
        QFETCH(int, numGpus);
        QFETCH(QString, include);
        QFETCH(QString, exclude);
        QFETCH(QString, visible);
        QFETCH(int, world);
        QFETCH(std::vector<int>, gpus);
        const std::string vis = visible.toStdString();
        LocalLaunch l = resolveLocalLaunch(nproc, numGpus, include.toStdString(), exclude.toStdString(),
                                           visible == "-" ? nullptr : vis.c_str());
        QCOMPARE(l.worldSize, world);
        QCOMPARE(l.gpus, gpus);
    }
    void refuses_data() {
        QTest::addColumn<int>("nproc");
        QTest::addColumn<int>("numGpus");
        QTest::addColumn<QString>("include");
        QTest::addColumn<QString>("exclude");
        QTest::addColumn<QString>("visible");
        QTest::addColumn<QString>("message");
        QTest::newRow("remote") << 0 << 0 << "worker-2:0"
                                << ""
                                << "-"
                                << "only localhost";
        QTest::newRow("both") << 0 << 0 << "localhost:0"
                              << "localhost:1"
                              << "-"
                              << "one or the other";
        QTest::newRow("exclude unknown") << 0 << 0 << ""
                                         << "localhost:0"
                                         << "-"
                                         << "CUDA_VISIBLE_DEVICES";
        QTest::newRow("exclude all") << 0 << 0 << ""
                                     << "localhost"
                                     << "0,1"
                                     << "no GPU is left";
        QTest::newRow("not visible") << 0 << 0 << "localhost:4"
                                     << ""
                                     << "0,1"
                                     << "not in CUDA_VISIBLE_DEVICES";
        QTest::newRow("too many") << 0 << 3 << ""
                                  << ""
                                  << "0,1"
                                  << "only 2 GPUs";
        QTest::newRow("contradiction") << 3 << 0 << "localhost:0,1"
                                       << ""
                                       << "-"
                                       << "contradicts";
        QTest::newRow("bad id") << 0 << 0 << "localhost:a"
                                << ""
                                << "-"
                                << "not a GPU id";
        QTest::newRow("twice") << 0 << 0 << "localhost:1,1"
                               << ""
                               << "-"
                               << "listed twice";
        QTest::newRow("num_gpus and include") << 0 << 1 << "localhost:0"
                                              << ""
                                              << "-"
                                              << "--num_gpus cannot";
    }
    void refuses() {
        QFETCH(int, nproc);
        QFETCH(int, numGpus);
        QFETCH(QString, include);
        QFETCH(QString, exclude);
        QFETCH(QString, visible);
        QFETCH(QString, message);
        const std::string vis = visible.toStdString();
        try {
            resolveLocalLaunch(nproc, numGpus, include.toStdString(), exclude.toStdString(),
                               visible == "-" ? nullptr : vis.c_str());
            QFAIL("accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestLocalLaunch)
#include "test_local_launch.moc"
