// The fused CPU float32 RMSNorm and RoPE (core/model/block_ops.h) against the ATen composition in transformers'
// order evaluated in float64: values and the gradients of every input, for widths that do and do not fill the
// kernels' 16 lanes, a frozen weight, transposed (B, T, H, D) projections, per-sequence (packed) tables, many
// threads' worth of rows; and the fused path is really the one taken.
#include "core/model/block_ops.h"

#include <QtTest>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

double relDiff(const torch::Tensor& a, const torch::Tensor& b) {
    const auto x = a.to(torch::kFloat64), y = b.to(torch::kFloat64);
    return ((x - y).norm() / y.norm().clamp_min(1e-30)).item<double>();
}

struct Result {
    torch::Tensor out;
    std::vector<torch::Tensor> grads;
    std::string gradFn;
};

// Runs f on fresh leaf copies of `inputs` (float64 copies when `reference`), back-propagates a fixed random
// upstream gradient and returns the output and each input's gradient (undefined where it needs none).
template <typename F>
Result run(F&& f, const std::vector<torch::Tensor>& inputs, const std::vector<bool>& needGrad,
           const torch::Tensor& upstream, bool reference) {
    setFusedBlockOpsEnabled(!reference);
    std::vector<torch::Tensor> leaves;
    for (size_t i = 0; i < inputs.size(); ++i) {
        torch::Tensor t = inputs[i].detach().clone();
        if (reference) t = t.to(torch::kFloat64);
        leaves.push_back(t.requires_grad_(needGrad[i]));
    }
    Result r;
    r.out = f(leaves);
    r.gradFn = r.out.grad_fn() ? r.out.grad_fn()->name() : "";
    r.out.backward(reference ? upstream.to(torch::kFloat64) : upstream);
    for (auto& l : leaves) r.grads.push_back(l.grad());
    setFusedBlockOpsEnabled(true);
    r.out = r.out.detach();
    return r;
}

}  // namespace

class TestBlockOps : public QObject {
    Q_OBJECT

private slots:
    void rmsNormMatchesComposition_data() {
        QTest::addColumn<QList<int>>("shape");
        QTest::addColumn<bool>("weightGrad");
        QTest::newRow("3x5x256") << QList<int>{3, 5, 256} << true;
        QTest::newRow("width 37 (lane tail)") << QList<int>{4, 9, 37} << true;
        QTest::newRow("frozen weight") << QList<int>{2, 7, 64} << false;
        QTest::newRow("4096 rows (many chunks)") << QList<int>{8, 512, 48} << true;
        QTest::newRow("one row") << QList<int>{1, 1, 16} << true;
    }
    void rmsNormMatchesComposition() {
        QFETCH(QList<int>, shape);
        QFETCH(bool, weightGrad);
        torch::manual_seed(11);
        std::vector<int64_t> s(shape.begin(), shape.end());
        const torch::Tensor x = torch::randn(s) * 3.0, w = torch::randn({s.back()}), up = torch::randn(s);
        const double eps = 1e-6;
        auto f = [eps](const std::vector<torch::Tensor>& in) { return rmsNorm(in[0], in[1], eps); };
        const Result fused = run(f, {x, w}, {true, weightGrad}, up, false);
        const Result ref = run(f, {x, w}, {true, weightGrad}, up, true);
        QVERIFY2(fused.gradFn.find("RmsNorm") != std::string::npos, fused.gradFn.c_str());
        QVERIFY2(ref.gradFn.find("RmsNorm") == std::string::npos, ref.gradFn.c_str());
        QCOMPARE(fused.out.scalar_type(), torch::kFloat32);
        QVERIFY2(relDiff(fused.out, ref.out) < 1e-6, qPrintable(QString::number(relDiff(fused.out, ref.out))));
        QVERIFY2(relDiff(fused.grads[0], ref.grads[0]) < 1e-5,
                 qPrintable(QString::number(relDiff(fused.grads[0], ref.grads[0]))));
        QCOMPARE(fused.grads[1].defined(), weightGrad);
        if (weightGrad)
            QVERIFY2(relDiff(fused.grads[1], ref.grads[1]) < 1e-5,
                     qPrintable(QString::number(relDiff(fused.grads[1], ref.grads[1]))));
    }

    void ropeMatchesComposition_data() {
        QTest::addColumn<int>("B");
        QTest::addColumn<int>("H");
        QTest::addColumn<int>("T");
        QTest::addColumn<int>("D");
        QTest::addColumn<bool>("transposed");   // (B, T, H, D).transpose(1, 2), as the projections arrive
        QTest::addColumn<bool>("perSequence");  // (B, 1, T, D) tables (packed positions)
        QTest::newRow("transposed, shared tables") << 2 << 4 << 16 << 64 << true << false;
        QTest::newRow("contiguous, shared tables") << 3 << 2 << 5 << 8 << false << false;
        QTest::newRow("transposed, per-sequence tables") << 2 << 3 << 7 << 32 << true << true;
        QTest::newRow("head dim 6 (no full lane)") << 1 << 2 << 9 << 6 << true << false;
        QTest::newRow("many rows") << 4 << 8 << 128 << 32 << true << false;
    }
    void ropeMatchesComposition() {
        QFETCH(int, B);
        QFETCH(int, H);
        QFETCH(int, T);
        QFETCH(int, D);
        QFETCH(bool, transposed);
        QFETCH(bool, perSequence);
        torch::manual_seed(5);
        const torch::Tensor x = transposed ? torch::randn({B, T, H, D}).transpose(1, 2) : torch::randn({B, H, T, D});
        const torch::Tensor angles =
            torch::rand(perSequence ? std::vector<int64_t>{B, 1, T, D} : std::vector<int64_t>{T, D}) * 6.0;
        const torch::Tensor c = angles.cos(), s = angles.sin(), up = torch::randn({B, H, T, D});
        // The tables stay float32 as the model builds them; the reference promotes them inside the composition.
        auto f = [&](const std::vector<torch::Tensor>& in) {
            return applyRope(in[0], in[0].scalar_type() == torch::kFloat64 ? c.to(torch::kFloat64) : c,
                             in[0].scalar_type() == torch::kFloat64 ? s.to(torch::kFloat64) : s);
        };
        const Result fused = run(f, {x}, {true}, up, false);
        const Result ref = run(f, {x}, {true}, up, true);
        QVERIFY2(fused.gradFn.find("Rope") != std::string::npos, fused.gradFn.c_str());
        QVERIFY2(relDiff(fused.out, ref.out) < 1e-6, qPrintable(QString::number(relDiff(fused.out, ref.out))));
        QVERIFY2(relDiff(fused.grads[0], ref.grads[0]) < 1e-6,
                 qPrintable(QString::number(relDiff(fused.grads[0], ref.grads[0]))));
        // The output keeps the input's layout; the float32 composition rounds identically (same operation order).
        QCOMPARE(fused.out.strides().vec(), x.strides().vec());
        setFusedBlockOpsEnabled(false);
        const torch::Tensor composed = applyRope(x, c, s);
        setFusedBlockOpsEnabled(true);
        QVERIFY(torch::equal(fused.out, composed));
    }

    void otherDtypesCompose() {
        // float64 and bfloat16 inputs take the composition (no fused autograd node).
        for (auto dtype : {torch::kFloat64, torch::kBFloat16}) {
            torch::Tensor x = torch::randn({2, 3, 8}).to(dtype).requires_grad_(true);
            torch::Tensor w = torch::ones({8}, dtype);
            const torch::Tensor y = rmsNorm(x, w, 1e-5);
            QCOMPARE(y.scalar_type(), dtype);
            QVERIFY(std::string(y.grad_fn()->name()).find("RmsNorm") == std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(TestBlockOps)
#include "test_block_ops.moc"
