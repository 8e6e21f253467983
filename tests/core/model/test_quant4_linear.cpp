// quant4Linear (core/model/quant4_linear.h): the 4-bit Linear's forward equals the model's dense product
// (denseLinear: oneDNN for float32 on the CPU, else torch::linear) over the dequantized weight, its backward gives the input and bias gradients autograd gives for that product, in float32 and bfloat16,
// with and without a bias; the weight gets no gradient.
#include <QtTest>

#include <torch/torch.h>

#include "core/model/dense.h"
#include "core/model/quant4_linear.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

class TestQuant4Linear : public QObject {
    Q_OBJECT
private slots:
    void sameAsLinearOverTheDequantizedWeight_data() {
        QTest::addColumn<bool>("bf16");
        QTest::addColumn<bool>("withBias");
        QTest::addColumn<bool>("doubleQuant");
        QTest::newRow("fp32 bias dq") << false << true << true;
        QTest::newRow("fp32 no bias") << false << false << false;
        QTest::newRow("bf16 bias dq") << true << true << true;
    }
    void sameAsLinearOverTheDequantizedWeight() {
        QFETCH(bool, bf16);
        QFETCH(bool, withBias);
        QFETCH(bool, doubleQuant);
        const torch::Dtype dt = bf16 ? torch::kBFloat16 : torch::kFloat32;
        torch::manual_seed(4);
        const Quant4Weight w = quantize4bit(torch::randn({96, 128}) * 0.05, Quant4Type::Nf4, 64, doubleQuant);
        const torch::Tensor x0 = torch::randn({3, 5, 128}).to(dt);
        const torch::Tensor b0 = withBias ? torch::randn({96}).to(dt) : torch::Tensor();
        const torch::Tensor dy = torch::randn({3, 5, 96}).to(dt);

        torch::Tensor x = x0.clone().set_requires_grad(true);
        torch::Tensor b = withBias ? b0.clone().set_requires_grad(true) : torch::Tensor();
        const torch::Tensor y = quant4Linear(x, w, b);
        y.backward(dy);

        torch::Tensor xr = x0.clone().set_requires_grad(true);
        torch::Tensor br = withBias ? b0.clone().set_requires_grad(true) : torch::Tensor();
        const torch::Tensor weight = dequantize4bit(w, dt);
        const torch::Tensor yr = denseLinear(xr, weight, br);
        yr.backward(dy);

        QVERIFY(torch::equal(y, yr));
        QVERIFY2(torch::allclose(x.grad(), xr.grad(), 1e-6, 1e-6),
                 qPrintable(QString::number((x.grad() - xr.grad()).abs().max().item<double>())));
        if (withBias) QVERIFY(torch::allclose(b.grad(), br.grad(), 1e-5, 1e-5));
        QCOMPARE(y.scalar_type(), dt);
        QCOMPARE(x.grad().scalar_type(), dt);
    }
};

QTEST_MAIN(TestQuant4Linear)
#include "test_quant4_linear.moc"
