// The fp16 loss scaler against DeepSpeed's own DynamicLossScaler (run in the venv through QProcess, one
// process for the whole table): the same scale after every update and the same stop (an overflow at the
// minimum scale) on a table of configs and overflow sequences. Plus the fixed scale and the disabled scaler.
#include <QProcess>
#include <QtTest>

#include <random>

#include <nlohmann/json.hpp>

#include "core/optim/loss_scaler.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {

struct Case {
    std::string name;
    Fp16Config cfg;
    std::vector<int> overflows;
};

std::vector<int> pattern(const std::string& s) {
    std::vector<int> v;
    for (char c : s) v.push_back(c == '1' ? 1 : 0);
    return v;
}

std::vector<int> randomOverflows(unsigned seed, int n, double p) {
    std::mt19937 gen(seed);
    std::bernoulli_distribution d(p);
    std::vector<int> v;
    for (int i = 0; i < n; ++i) v.push_back(d(gen) ? 1 : 0);
    return v;
}

Fp16Config dyn(int power, int window, double minScale, int hysteresis, bool consecutive) {
    Fp16Config c;
    c.enabled = true;
    c.lossScale = 0;
    c.initialScalePower = power;
    c.lossScaleWindow = window;
    c.minLossScale = minScale;
    c.hysteresis = hysteresis;
    c.consecutiveHysteresis = consecutive;
    return c;
}

std::vector<Case> cases() {
    std::vector<Case> v;
    v.push_back({"defaults, early overflows", dyn(16, 1000, 1, 2, false), pattern("1111000000")});
    v.push_back({"window 2, hysteresis 2", dyn(4, 2, 1, 2, false), pattern("1100011111111")});
    v.push_back({"window 3, hysteresis 1, growth", dyn(3, 3, 1, 1, false), pattern("0000000100000001000000")});
    v.push_back({"hysteresis 3, not consecutive", dyn(8, 4, 1, 3, false), pattern("101010100000000011100000")});
    v.push_back({"hysteresis 3, consecutive", dyn(8, 4, 1, 3, true), pattern("101010100000000011100000")});
    v.push_back({"min scale 4 reached and stops", dyn(5, 10, 4, 1, false), pattern("11111")});
    v.push_back({"min scale 0.25, fractional", dyn(1, 2, 0.25, 1, false), pattern("1111001111")});
    v.push_back({"min not a power of two", dyn(4, 2, 3, 1, false), pattern("111000111")});
    v.push_back({"window 1", dyn(2, 1, 1, 2, false), pattern("0001101100011")});
    v.push_back({"random p=0.2, hysteresis 2", dyn(12, 5, 1, 2, false), randomOverflows(1, 200, 0.2)});
    v.push_back({"random p=0.4, consecutive", dyn(10, 3, 1, 2, true), randomOverflows(2, 200, 0.4)});
    v.push_back({"random p=0.05, window 7", dyn(14, 7, 1, 4, false), randomOverflows(3, 300, 0.05)});
    v.push_back({"random p=0.6 runs into the minimum", dyn(6, 4, 1, 2, false), randomOverflows(4, 200, 0.6)});
    return v;
}

}  // namespace

class TestLossScaler : public QObject {
    Q_OBJECT
    json m_reference;

private slots:
    void initTestCase() {
        json in = json::array();
        for (const auto& c : cases())
            in.push_back({{"initial_scale_power", c.cfg.initialScalePower},
                          {"loss_scale_window", c.cfg.lossScaleWindow},
                          {"min_loss_scale", c.cfg.minLossScale},
                          {"hysteresis", c.cfg.hysteresis},
                          {"consecutive_hysteresis", c.cfg.consecutiveHysteresis},
                          {"overflows", c.overflows}});
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                {QString::fromUtf8(FTS_TEST_DATA_DIR) + "/optim/deepspeed_loss_scaler.py"});
        QVERIFY(p.waitForStarted());
        p.write(QByteArray::fromStdString(in.dump()));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(180000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');  // DeepSpeed logs first
        m_reference = json::parse(lines.last().toStdString());
        QCOMPARE(m_reference.size(), cases().size());
    }

    void sameTrajectoryAsDeepSpeed_data() {
        QTest::addColumn<int>("index");
        const auto cs = cases();
        for (size_t i = 0; i < cs.size(); ++i) QTest::newRow(cs[i].name.c_str()) << int(i);
    }
    void sameTrajectoryAsDeepSpeed() {
        QFETCH(int, index);
        const Case c = cases()[size_t(index)];
        const json& ref = m_reference.at(size_t(index));
        LossScaler s(c.cfg);
        QVERIFY(s.dynamic());
        QCOMPARE(s.scale(), std::ldexp(1.0, c.cfg.initialScalePower));
        std::vector<double> scales;
        int stoppedAt = -1;
        std::string message;
        for (size_t i = 0; i < c.overflows.size(); ++i) {
            try {
                s.update(c.overflows[i] != 0);
            } catch (const LossScaleError& e) {
                stoppedAt = int(i);
                message = e.what();
                break;
            }
            scales.push_back(s.scale());
        }
        const auto want = ref.at("scales").get<std::vector<double>>();
        QCOMPARE(scales.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            QVERIFY2(scales[i] == want[i],
                     qPrintable(QString("update %1: scale %2, DeepSpeed %3").arg(i).arg(scales[i]).arg(want[i])));
        QCOMPARE(stoppedAt, ref.at("stopped_at").get<int>());
        if (stoppedAt >= 0) {
            QVERIFY2(
                message.find("minimum") != std::string::npos && message.find("min_loss_scale") != std::string::npos,
                message.c_str());
        }
    }

    void fixedScaleNeverMoves() {
        Fp16Config c;
        c.enabled = true;
        c.lossScale = 128;
        LossScaler s(c);
        QVERIFY(!s.dynamic());
        for (int i = 0; i < 20; ++i) s.update(i % 3 == 0);
        QCOMPARE(s.scale(), 128.0);
        LossScaler off{Fp16Config{}};  // fp16 disabled: scale 1
        QCOMPARE(off.scale(), 1.0);
    }

    // A checkpointed scaler continues as the uninterrupted one.
    void stateRoundTrip() {
        const Fp16Config cfg = dyn(6, 3, 1, 2, false);
        const auto seq = randomOverflows(9, 60, 0.2);
        LossScaler a(cfg), b(cfg);
        for (size_t i = 0; i < 30; ++i) a.update(seq[i] != 0);
        b.restore(a.state());
        for (size_t i = 30; i < seq.size(); ++i) {
            a.update(seq[i] != 0);
            b.update(seq[i] != 0);
            QCOMPARE(b.scale(), a.scale());
        }
    }
};

QTEST_APPLESS_MAIN(TestLossScaler)
#include "test_loss_scaler.moc"
