// The 4-bit dequantization's vector variants (kernels/cpu/bnb4bit_avx2.cpp, bnb4bit_avx512.cpp): every variant this
// CPU runs against the scalar reference, bit for bit, NF4 and FP4, every byte value, block sizes from 32 to 4096 (and
// 24, which no vector fits), counts that leave a partial last block and an odd last value; and the default entry
// point equal to the variant bestCpuIsa names.
#include <QtTest>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/bnb4bit.h"
#include "kernels/kernel_types.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts::kernels;

namespace {

struct Input {
    std::vector<uint8_t> packed;
    std::vector<float> absmax;
};

Input randomInput(int64_t n, int64_t blocksize, uint32_t seed) {
    std::mt19937 rng(seed);
    Input in;
    in.packed.resize(size_t((n + 1) / 2));
    for (auto& b : in.packed) b = uint8_t(rng() & 0xFF);
    std::uniform_real_distribution<float> scale(1e-4f, 3.0f);
    in.absmax.resize(size_t(quant4Blocks(n, blocksize)));
    for (auto& a : in.absmax) a = scale(rng);
    return in;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

class TestBnb4bitSimd : public QObject {
    Q_OBJECT
private slots:
    void variantsEqualTheReference_data() {
        QTest::addColumn<qint64>("n");
        QTest::addColumn<qint64>("blocksize");
        for (qint64 blocksize : {32, 64, 128, 256, 4096, 24})
            for (qint64 n : {qint64(1), qint64(7), blocksize, 3 * blocksize + 5, qint64(4096 + 13), qint64(65536)})
                QTest::addRow("n %lld, blocks of %lld", n, blocksize) << n << blocksize;
    }
    void variantsEqualTheReference() {
        QFETCH(qint64, n);
        QFETCH(qint64, blocksize);
        const Input in = randomInput(n, blocksize, uint32_t(n * 31 + blocksize));
        for (Quant4Type type : {Quant4Type::Nf4, Quant4Type::Fp4}) {
            std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
            dequantize4bitReference(in.packed.data(), in.absmax.data(), n, blocksize, type, want.data());
            int ran = 0;
            for (CpuIsa isa : {CpuIsa::Scalar, CpuIsa::Avx2, CpuIsa::Avx512}) {
                if (!cpuIsaSupported(isa)) continue;
                std::fill(got.begin(), got.end(), -7.0f);
                dequantize4bit(in.packed.data(), in.absmax.data(), n, blocksize, type, got.data(), isa);
                QVERIFY2(sameBits(got, want), cpuIsaName(isa));
                ++ran;
            }
            QVERIFY(ran >= 1);
            std::fill(got.begin(), got.end(), -7.0f);
            dequantize4bit(in.packed.data(), in.absmax.data(), n, blocksize, type, got.data());
            QVERIFY(sameBits(got, want));
        }
    }

    // Every code in both nibble positions decodes to its codebook value times the scale.
    void everyByteValue() {
        std::vector<uint8_t> packed(256);
        for (int b = 0; b < 256; ++b) packed[size_t(b)] = uint8_t(b);
        const std::vector<float> absmax(512 / 64, 0.5f);
        for (Quant4Type type : {Quant4Type::Nf4, Quant4Type::Fp4}) {
            std::vector<float> got(512);
            dequantize4bit(packed.data(), absmax.data(), 512, 64, type, got.data());
            for (int b = 0; b < 256; ++b) {
                QCOMPARE(got[size_t(2 * b)], quant4Codebook(type)[b >> 4] * 0.5f);
                QCOMPARE(got[size_t(2 * b + 1)], quant4Codebook(type)[b & 15] * 0.5f);
            }
        }
    }

    void aVariantThisCpuLacksIsRefused() {
        for (CpuIsa isa : {CpuIsa::Avx2, CpuIsa::Avx512}) {
            if (cpuIsaSupported(isa)) continue;
            float out[64];
            const uint8_t packed[32] = {};
            const float absmax[1] = {1.0f};
            QVERIFY_THROWS_EXCEPTION(KernelError, dequantize4bit(packed, absmax, 64, 64, Quant4Type::Nf4, out, isa));
        }
    }
};

QTEST_MAIN(TestBnb4bitSimd)
#include "test_bnb4bit_simd.moc"
