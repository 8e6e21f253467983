// The 4-bit weight on a CUDA device (label gpu; skipped without one): the CUDA kernel and the LibTorch-ops path there
// equal the CPU kernel (and so bitsandbytes) bit for bit, NF4/FP4, with and without double quantization, into
// float32, bfloat16 and float16, for sizes and block sizes that leave partial groups, odd counts and unaligned
// codes; quant4Linear's forward and input gradient on the GPU match the CPU's within the products' rounding.
#include <QtTest>

#include <torch/torch.h>

#include "core/model/quant4_linear.h"
#include "core/model/quant4bit.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

Quant4Weight onDevice(Quant4Weight q, torch::Device device) {
    q.packed = q.packed.to(device);
    q.absmax = q.absmax.to(device);
    if (q.nested()) {
        q.nestedAbsmax = q.nestedAbsmax.to(device);
        q.nestedCode = q.nestedCode.to(device);
    }
    return q;
}

}  // namespace

class TestQuant4bitCuda : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!torch::cuda::is_available()) QSKIP("no CUDA device here (label gpu: runs on the device machine)");
    }

    void dequantizeEqualsTheCpuKernel_data() {
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<qint64>("cols");
        QTest::addColumn<qint64>("blocksize");
        QTest::newRow("640x96, blocks of 64") << qint64(640) << qint64(96) << qint64(64);
        QTest::newRow("odd count 37x29, blocks of 64") << qint64(37) << qint64(29) << qint64(64);
        QTest::newRow("1000x3 (a partial group of 8), blocks of 128") << qint64(1000) << qint64(3) << qint64(128);
        QTest::newRow("more than 256 blocks, blocks of 32") << qint64(300) << qint64(64) << qint64(32);
        QTest::newRow("a single value") << qint64(1) << qint64(1) << qint64(64);
    }
    void dequantizeEqualsTheCpuKernel() {
        QFETCH(qint64, rows);
        QFETCH(qint64, cols);
        QFETCH(qint64, blocksize);
        torch::manual_seed(5);
        const torch::Tensor w = torch::randn({rows, cols}) * 0.02;
        QVERIFY(quant4CudaKernelBuilt());
        for (Quant4Type type : {Quant4Type::Nf4, Quant4Type::Fp4})
            for (bool dq : {false, true}) {
                const Quant4Weight q = quantize4bit(w, type, blocksize, dq);
                const Quant4Weight g = onDevice(q, torch::kCUDA);
                for (torch::Dtype dt : {torch::kFloat32, torch::kBFloat16, torch::kFloat16}) {
                    const torch::Tensor want = dequantize4bit(q, dt);
                    QVERIFY2(torch::equal(dequantize4bitCuda(g, dt).cpu(), want), "the CUDA kernel differs");
                    QVERIFY2(torch::equal(dequantize4bitOps(g, dt).cpu(), want), "the LibTorch-ops path differs");
                    QVERIFY(torch::equal(dequantize4bitOnDevice(g, dt).cpu(), want));
                }
            }
    }

    // Codes that start one byte into their storage (a view, as a sliced state dict can give): the scalar path.
    void unalignedCodes() {
        torch::manual_seed(7);
        const Quant4Weight q = quantize4bit(torch::randn({64, 48}), Quant4Type::Nf4, 64, true);
        Quant4Weight g = onDevice(q, torch::kCUDA);
        const torch::Tensor shifted = torch::empty({g.packed.size(0) + 1, 1}, g.packed.options());
        shifted.narrow(0, 1, g.packed.size(0)).copy_(g.packed);
        g.packed = shifted.narrow(0, 1, g.packed.size(0));
        QVERIFY(reinterpret_cast<uintptr_t>(g.packed.data_ptr()) % 4 != 0);
        QVERIFY(torch::equal(dequantize4bitCuda(g, torch::kBFloat16).cpu(), dequantize4bit(q, torch::kBFloat16)));
    }

    void linearOnTheGpu() {
        torch::manual_seed(6);
        const Quant4Weight q = quantize4bit(torch::randn({256, 512}) * 0.05, Quant4Type::Nf4, 64, true);
        const torch::Tensor x0 = torch::randn({4, 512}), dy = torch::randn({4, 256});
        torch::Tensor xc = x0.clone().set_requires_grad(true);
        torch::Tensor xg = x0.cuda().set_requires_grad(true);
        const torch::Tensor yc = quant4Linear(xc, q), yg = quant4Linear(xg, onDevice(q, torch::kCUDA));
        yc.backward(dy);
        yg.backward(dy.cuda());
        QVERIFY(torch::allclose(yg.cpu(), yc, 1e-4, 1e-4));
        QVERIFY(torch::allclose(xg.grad().cpu(), xc.grad(), 1e-4, 1e-4));
    }
};

QTEST_MAIN(TestQuant4bitCuda)
#include "test_quant4bit_cuda.moc"
