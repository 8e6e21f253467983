// The 4-bit weight on a CUDA device (label gpu; skipped without one): dequantize4bitOnDevice there equals the CPU
// kernel (and so bitsandbytes) bit for bit, NF4/FP4, with and without double quantization, into float32, bfloat16
// and float16; quant4Linear's forward and input gradient on the GPU match the CPU's within the products' rounding.
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

    void dequantizeEqualsTheCpuKernel() {
        torch::manual_seed(5);
        const torch::Tensor w = torch::randn({640, 96}) * 0.02;
        for (Quant4Type type : {Quant4Type::Nf4, Quant4Type::Fp4})
            for (bool dq : {false, true}) {
                const Quant4Weight q = quantize4bit(w, type, 64, dq);
                const Quant4Weight g = onDevice(q, torch::kCUDA);
                for (torch::Dtype dt : {torch::kFloat32, torch::kBFloat16, torch::kFloat16})
                    QVERIFY(torch::equal(dequantize4bitOnDevice(g, dt).cpu(), dequantize4bit(q, dt)));
            }
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
