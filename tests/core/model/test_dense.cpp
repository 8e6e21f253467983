// Dense layers through oneDNN (core/model/dense.h) against LibTorch's linear/addmm evaluated in float64: values and
// the gradients of input, weight and bias for nn.Linear and Conv1D layouts, 2-D and 3-D inputs, a transposed
// (non-contiguous) input, no bias, a frozen weight; the oneDNN node is really the one taken, and the switch, other
// dtypes and autocast regions fall back to LibTorch.
#include "core/model/dense.h"

#include <ATen/autocast_mode.h>
#include <QtTest>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

double relDiff(const torch::Tensor& a, const torch::Tensor& b) {
    const auto x = a.to(torch::kFloat64), y = b.to(torch::kFloat64);
    return ((x - y).norm() / y.norm().clamp_min(1e-30)).item<double>();
}

struct Result {
    torch::Tensor out, dx, dw, db;
    std::string gradFn;
};

Result run(const torch::Tensor& xIn, const torch::Tensor& wIn, const torch::Tensor& bIn, bool conv1d, bool weightGrad,
           const torch::Tensor& upstream, bool reference) {
    auto leaf = [&](const torch::Tensor& t, bool grad) {
        if (!t.defined()) return torch::Tensor();
        torch::Tensor c = t.detach().clone();
        if (reference) c = c.to(torch::kFloat64);
        return c.requires_grad_(grad);
    };
    torch::Tensor x = leaf(xIn, true), w = leaf(wIn, weightGrad), b = leaf(bIn, true);
    // A transposed input stays a non-contiguous view (clone keeps the strides).
    torch::Tensor y = conv1d ? denseConv1d(x, w, b) : denseLinear(x, w, b);
    Result r;
    // The node and the ones feeding it (the bias is added after the product).
    if (y.grad_fn()) {
        r.gradFn = y.grad_fn()->name();
        for (const auto& e : y.grad_fn()->next_edges())
            if (e.function) r.gradFn += " " + e.function->name();
    }
    y.backward(reference ? upstream.to(torch::kFloat64) : upstream);
    r.out = y.detach();
    r.dx = x.grad();
    r.dw = w.grad();
    if (b.defined()) r.db = b.grad();
    return r;
}

}  // namespace

class TestDense : public QObject {
    Q_OBJECT

private slots:
    void matchesLibTorch_data() {
        QTest::addColumn<bool>("conv1d");
        QTest::addColumn<QList<int>>("xShape");
        QTest::addColumn<int>("out");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("transposedInput");
        QTest::addColumn<bool>("weightGrad");
        QTest::newRow("linear 3-D") << false << QList<int>{4, 33, 64} << 96 << true << false << true;
        QTest::newRow("linear 2-D, no bias") << false << QList<int>{50, 40} << 7 << false << false << true;
        QTest::newRow("linear, transposed input") << false << QList<int>{24, 48} << 40 << true << true << true;
        QTest::newRow("linear, frozen weight") << false << QList<int>{3, 10, 16} << 16 << true << false << false;
        QTest::newRow("conv1d 3-D") << true << QList<int>{2, 17, 32} << 96 << true << false << true;
        QTest::newRow("conv1d, no bias, transposed input") << true << QList<int>{30, 20} << 12 << false << true << true;
    }
    void matchesLibTorch() {
        QFETCH(bool, conv1d);
        QFETCH(QList<int>, xShape);
        QFETCH(int, out);
        QFETCH(bool, bias);
        QFETCH(bool, transposedInput);
        QFETCH(bool, weightGrad);
        torch::manual_seed(3);
        std::vector<int64_t> s(xShape.begin(), xShape.end());
        const int64_t in = s.back();
        torch::Tensor x = torch::randn(s);
        if (transposedInput) x = torch::randn({s[1], s[0]}).t();  // same shape, column-major
        const torch::Tensor w = conv1d ? torch::randn({in, int64_t(out)}) : torch::randn({int64_t(out), in});
        const torch::Tensor b = bias ? torch::randn({int64_t(out)}) : torch::Tensor();
        auto upShape = s;
        upShape.back() = out;
        const torch::Tensor up = torch::randn(upShape);
        const Result ours = run(x, w, b, conv1d, weightGrad, up, false);
        const Result ref = run(x, w, b, conv1d, weightGrad, up, true);
        if (oneDnnGemmAvailable())
            QVERIFY2(ours.gradFn.find("OneDnnDense") != std::string::npos, ours.gradFn.c_str());
        else  // this CPU: LibTorch refuses its oneDNN matmul; the layers fall back to LibTorch's ops
            QVERIFY2(ours.gradFn.find("OneDnnDense") == std::string::npos, ours.gradFn.c_str());
        QVERIFY2(ref.gradFn.find("OneDnnDense") == std::string::npos, ref.gradFn.c_str());
        QCOMPARE(ours.out.sizes().vec(), ref.out.sizes().vec());
        QVERIFY2(relDiff(ours.out, ref.out) < 1e-6, qPrintable(QString::number(relDiff(ours.out, ref.out))));
        QVERIFY2(relDiff(ours.dx, ref.dx) < 1e-6, qPrintable(QString::number(relDiff(ours.dx, ref.dx))));
        QCOMPARE(ours.dw.defined(), weightGrad);
        if (weightGrad) {
            QCOMPARE(ours.dw.sizes().vec(), w.sizes().vec());
            QVERIFY2(relDiff(ours.dw, ref.dw) < 1e-6, qPrintable(QString::number(relDiff(ours.dw, ref.dw))));
        }
        if (bias) QVERIFY2(relDiff(ours.db, ref.db) < 1e-6, qPrintable(QString::number(relDiff(ours.db, ref.db))));
    }

    void fallsBackToLibTorch() {
        const torch::Tensor x = torch::randn({4, 8}).requires_grad_(true), w = torch::randn({5, 8});
        setOneDnnGemmEnabled(false);
        torch::Tensor y = denseLinear(x, w);
        setOneDnnGemmEnabled(true);
        QVERIFY(std::string(y.grad_fn()->name()).find("OneDnnDense") == std::string::npos);
        QVERIFY(torch::allclose(y, torch::linear(x, w)));
        y = denseLinear(x.to(torch::kFloat64), w.to(torch::kFloat64));
        QCOMPARE(y.scalar_type(), torch::kFloat64);
        QVERIFY(std::string(y.grad_fn()->name()).find("OneDnnDense") == std::string::npos);
        {  // a bf16 autocast region keeps LibTorch's autocast semantics (the product runs in bf16)
            at::autocast::set_autocast_enabled(torch::kCPU, true);
            at::autocast::set_autocast_dtype(torch::kCPU, torch::kBFloat16);
            y = denseLinear(x, w);
            at::autocast::set_autocast_enabled(torch::kCPU, false);
            at::autocast::clear_cache();
        }
        QCOMPARE(y.scalar_type(), torch::kBFloat16);
    }
};

QTEST_APPLESS_MAIN(TestDense)
#include "test_dense.moc"
