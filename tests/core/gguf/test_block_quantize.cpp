// Tests of the GGUF encodings without a reference program: float16/bfloat16 conversion over every half value and
// the rounding midpoints; each block type decodes what it encoded within its step (the error bound its scale
// implies), keeps zero and constant blocks exact, and puts the largest magnitude of a block on a level; sizes of
// rows. Byte equality with llama.cpp's quantizers is checked in integration_test_export_gguf (llama.cpp itself).
#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/gguf/block_quantize.h"
#include "core/gguf/kquant_lanes.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts::gguf;

namespace {

std::vector<float> randomValues(size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

std::vector<float> roundTrip(GgmlType type, const std::vector<float>& x) {
    std::vector<uint8_t> bytes(rowBytes(type, static_cast<int64_t>(x.size())));
    quantizeRow(type, x.data(), static_cast<int64_t>(x.size()), bytes.data());
    std::vector<float> y(x.size());
    dequantizeRow(type, bytes.data(), static_cast<int64_t>(x.size()), y.data());
    return y;
}

float bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

}  // namespace

class TestBlockQuantize : public QObject {
    Q_OBJECT
private slots:
    void halfRoundTripsEveryValue() {
        for (uint32_t h = 0; h < 65536; ++h) {
            const float f = halfToFloat(static_cast<uint16_t>(h));
            const uint16_t back = floatToHalf(f);
            if (std::isnan(f)) {
                QVERIFY(std::isnan(halfToFloat(back)));
                continue;
            }
            QCOMPARE(back, static_cast<uint16_t>(h));
        }
    }

    void halfRoundsToNearestEven() {
        // The float exactly between two adjacent halves rounds to the one with an even mantissa; just above it
        // rounds up. Checked for normal and subnormal halves and at the overflow edge.
        for (uint16_t h : {uint16_t(0x0001), uint16_t(0x0002), uint16_t(0x03ff), uint16_t(0x0400), uint16_t(0x3c00),
                           uint16_t(0x3c01), uint16_t(0x7bfe)}) {
            const double lo = halfToFloat(h), hi = halfToFloat(static_cast<uint16_t>(h + 1));
            const float mid = static_cast<float>((lo + hi) / 2);
            const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : h;
            QCOMPARE(floatToHalf(mid), even);
            QCOMPARE(floatToHalf(std::nextafter(mid, 1e9f)), static_cast<uint16_t>(h + 1));
            QCOMPARE(floatToHalf(-mid), static_cast<uint16_t>(even | 0x8000));
        }
        QCOMPARE(floatToHalf(65519.0f), uint16_t(0x7bff));
        QCOMPARE(floatToHalf(65520.0f), uint16_t(0x7c00));  // rounds to infinity
        QCOMPARE(floatToHalf(1e-9f), uint16_t(0));
        QCOMPARE(floatToHalf(-0.0f), uint16_t(0x8000));
        QCOMPARE(floatToHalf(bits(0x7fc00000)) & 0x7e00, 0x7e00);  // NaN stays NaN
    }

    void bfloat16RoundsToNearestEven() {
        QCOMPARE(floatToBfloat16(1.0f), uint16_t(0x3f80));
        QCOMPARE(floatToBfloat16(bits(0x3f808000)), uint16_t(0x3f80));  // midpoint, even below
        QCOMPARE(floatToBfloat16(bits(0x3f818000)), uint16_t(0x3f82));  // midpoint, even above
        QCOMPARE(floatToBfloat16(bits(0x3f808001)), uint16_t(0x3f81));
        QVERIFY(std::isnan(bfloat16ToFloat(floatToBfloat16(bits(0x7f800001)))));
        QCOMPARE(bfloat16ToFloat(0x4049), 3.140625f);
    }

    void blocksDecodeWithinTheirStep_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<double>("relativeStep");  // bound on |error| / (block max |x|)
        QTest::newRow("q8_0") << int(GgmlType::Q8_0) << 1.0 / 127;
        QTest::newRow("q4_0") << int(GgmlType::Q4_0) << 1.0 / 8;
        QTest::newRow("q4_1") << int(GgmlType::Q4_1) << 2.0 / 15;
        QTest::newRow("q5_0") << int(GgmlType::Q5_0) << 1.0 / 16;
        QTest::newRow("q5_1") << int(GgmlType::Q5_1) << 2.0 / 31;
        QTest::newRow("q4_K") << int(GgmlType::Q4_K) << 2.0 / 15;
        QTest::newRow("q5_K") << int(GgmlType::Q5_K) << 2.0 / 31;
        QTest::newRow("q6_K") << int(GgmlType::Q6_K) << 1.0 / 32;
        QTest::newRow("f16") << int(GgmlType::F16) << 1.0 / 1024;
        QTest::newRow("bf16") << int(GgmlType::BF16) << 1.0 / 128;
    }
    void blocksDecodeWithinTheirStep() {
        QFETCH(int, type);
        QFETCH(double, relativeStep);
        const GgmlType t = static_cast<GgmlType>(type);
        const int block = typeTraits(t).blockElements == 1 ? 32 : typeTraits(t).blockElements;
        const std::vector<float> x = randomValues(static_cast<size_t>(block) * 64, 7, 0.05f);
        const std::vector<float> y = roundTrip(t, x);
        double sumSq = 0, errSq = 0;
        for (size_t b = 0; b < x.size(); b += static_cast<size_t>(block)) {
            float amax = 0;
            for (int i = 0; i < block; ++i) amax = std::max(amax, std::fabs(x[b + i]));
            for (int i = 0; i < block; ++i) {
                const double err = std::fabs(double(x[b + i]) - y[b + i]);
                // a step of the block's scale (the k-quants' 6-bit sub-scales and float16 scales add a little)
                QVERIFY2(err <= relativeStep * amax * 1.25 + 1e-7,
                         qPrintable(QString("value %1: %2 decoded as %3").arg(b + i).arg(x[b + i]).arg(y[b + i])));
                sumSq += double(x[b + i]) * x[b + i];
                errSq += err * err;
            }
        }
        QVERIFY(errSq < sumSq * relativeStep * relativeStep);  // on average well inside the step
    }

    void zeroAndConstantBlocksAreExact_data() {
        QTest::addColumn<int>("type");
        for (GgmlType t : {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_1,
                           GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K})
            QTest::newRow(std::string(typeName(t)).c_str()) << int(t);
    }
    void zeroAndConstantBlocksAreExact() {
        QFETCH(int, type);
        const GgmlType t = static_cast<GgmlType>(type);
        const std::vector<float> zeros(256, 0.0f);
        for (float v : roundTrip(t, zeros)) QCOMPARE(v, 0.0f);
        // a block of -0.5 (exact in float16 scales): every decoded value -0.5 within float16's step of it
        const std::vector<float> constant(256, -0.5f);
        for (float v : roundTrip(t, constant)) QVERIFY2(std::fabs(v + 0.5f) < 2e-3f, qPrintable(QString::number(v)));
    }

    void largestMagnitudeSitsOnALevel() {
        // q8_0 and q4_0 scale by the block's largest |x|: that value decodes to itself within float16's rounding
        std::vector<float> x = randomValues(32, 3);
        x[5] = -3.0f;
        for (GgmlType t : {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_0}) {
            const std::vector<float> y = roundTrip(t, x);
            QVERIFY2(std::fabs(y[5] + 3.0f) < 3.0f / 1024,
                     qPrintable(QString("%1: %2").arg(typeName(t).data()).arg(y[5])));
        }
    }

    void laneSearchesEqualOneBlockAtATime_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("baseline");  // the x86-64 baseline form even on an AVX2 machine
        for (bool baseline : {false, true})
            for (GgmlType t : {GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K})
                QTest::newRow(qPrintable(QString("%1%2").arg(typeName(t).data(), baseline ? " baseline" : "")))
                    << int(t) << baseline;
    }
    void laneSearchesEqualOneBlockAtATime() {
        // 400 super-blocks of every kind of data a weight tensor has: normal values at several scales, all positive,
        // all negative, zeros, a constant, one outlier, tiny values, sub-blocks that are flat beside ones that are not
        QFETCH(int, type);
        QFETCH(bool, baseline);
        forceBaselineLanes(baseline);
        const GgmlType t = static_cast<GgmlType>(type);
        std::mt19937 rng(11);
        std::vector<float> x;
        for (int block = 0; block < 400; ++block) {
            std::normal_distribution<float> dist(0.0f, std::pow(10.0f, float(block % 7) - 4.0f));
            for (int i = 0; i < kSuperBlock; ++i) {
                float v = dist(rng);
                switch (block % 9) {
                    case 1:
                        v = std::fabs(v);
                        break;
                    case 2:
                        v = -std::fabs(v);
                        break;
                    case 3:
                        v = (i / 32) % 2 ? 0.0f : v;
                        break;  // flat sub-blocks beside others
                    case 4:
                        v = (i / 16) % 3 ? 0.25f : v;
                        break;  // constant sub-blocks
                    case 5:
                        v = i == 77 ? 40.0f : v;
                        break;  // an outlier
                    case 6:
                        v *= 1e-20f;
                        break;  // tiny values
                    default:
                        break;
                }
                x.push_back(v);
            }
        }
        const auto n = static_cast<int64_t>(x.size());
        std::vector<uint8_t> lanes(rowBytes(t, n)), plain(rowBytes(t, n));
        quantizeRow(t, x.data(), n, lanes.data());
        quantizeRowOneBlockAtATime(t, x.data(), n, plain.data());
        forceBaselineLanes(false);
        for (size_t i = 0; i < lanes.size(); ++i)
            if (lanes[i] != plain[i])
                QFAIL(qPrintable(QString("byte %1 (super-block %2) differs").arg(i).arg(i / typeTraits(t).blockBytes)));
    }

    void rowSizes() {
        QCOMPARE(rowBytes(GgmlType::F32, 64), size_t(256));
        QCOMPARE(rowBytes(GgmlType::Q8_0, 64), size_t(68));
        QCOMPARE(rowBytes(GgmlType::Q4_K, 512), size_t(288));
        QCOMPARE(rowBytes(GgmlType::Q6_K, 256), size_t(210));
        std::vector<uint8_t> out(64);
        const std::vector<float> x(48, 1.0f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, quantizeRow(GgmlType::Q8_0, x.data(), 48, out.data()));
    }
};

QTEST_MAIN(TestBlockQuantize)
#include "test_block_quantize.moc"
