// The fused token cross-entropy against LibTorch's own at::cross_entropy_loss (log_softmax + nll_loss): loss and
// gradient of the logits for sum and mean, ignored targets, blocks that do not divide the rows (a vocabulary large
// enough for several blocks), float64/bfloat16 logits, the causal shift, mean over nothing, and bad targets.
#include "core/model/token_cross_entropy.h"

#include <QtTest>

#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

struct LossAndGrad {
    torch::Tensor loss, grad;
};

LossAndGrad reference(const torch::Tensor& logitsIn, const torch::Tensor& targets, bool mean, double gradScale) {
    torch::Tensor logits = logitsIn.detach().clone().requires_grad_(true);
    const auto acc = logits.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
    torch::Tensor loss =
        at::cross_entropy_loss(logits.to(acc).reshape({-1, logits.size(-1)}), targets.reshape({-1}), {},
                               mean ? at::Reduction::Mean : at::Reduction::Sum, kIgnoreTarget, 0.0);
    (loss * gradScale).backward();
    return {loss.detach(), logits.grad()};
}

LossAndGrad ours(const torch::Tensor& logitsIn, const torch::Tensor& targets, bool mean, double gradScale) {
    torch::Tensor logits = logitsIn.detach().clone().requires_grad_(true);
    torch::Tensor loss = tokenCrossEntropy(logits, targets, mean ? TokenLossReduction::Mean : TokenLossReduction::Sum);
    (loss * gradScale).backward();
    return {loss.detach(), logits.grad()};
}

double relDiff(const torch::Tensor& a, const torch::Tensor& b) {
    const auto x = a.to(torch::kFloat64), y = b.to(torch::kFloat64);
    return ((x - y).norm() / y.norm().clamp_min(1e-30)).item<double>();
}

}  // namespace

class TestTokenCrossEntropy : public QObject {
    Q_OBJECT

private slots:
    void matchesLibTorch_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("vocab");
        QTest::addColumn<int>("dtype");  // 0 float32, 1 float64, 2 bfloat16
        QTest::addColumn<bool>("mean");
        QTest::addColumn<double>("ignoredShare");
        QTest::newRow("f32 mean, one block") << 64 << 300 << 0 << true << 0.2;
        QTest::newRow("f32 sum, one block") << 64 << 300 << 0 << false << 0.2;
        // 4 MiB blocks of float32 rows: 70,000 columns -> 14 rows per block, 45 rows -> a partial last block
        QTest::newRow("f32 mean, several blocks") << 45 << 70000 << 0 << true << 0.3;
        QTest::newRow("f32 sum, several blocks") << 45 << 70000 << 0 << false << 0.0;
        QTest::newRow("f64 mean, several blocks") << 40 << 70000 << 1 << true << 0.1;
        QTest::newRow("bf16 mean, several blocks") << 45 << 70000 << 2 << true << 0.2;
        QTest::newRow("bf16 sum") << 33 << 513 << 2 << false << 0.5;
    }

    void matchesLibTorch() {
        QFETCH(int, rows);
        QFETCH(int, vocab);
        QFETCH(int, dtype);
        QFETCH(bool, mean);
        QFETCH(double, ignoredShare);
        torch::manual_seed(rows * 7 + vocab);
        const auto type = dtype == 1 ? torch::kFloat64 : dtype == 2 ? torch::kBFloat16 : torch::kFloat32;
        const torch::Tensor logits = (torch::randn({rows, vocab}, torch::kFloat64) * 3).to(type);
        torch::Tensor targets = torch::randint(0, vocab, {rows}, torch::kInt64);
        targets.masked_fill_(torch::rand({rows}).lt(ignoredShare), kIgnoreTarget);
        const auto ref = reference(logits, targets, mean, 0.37);
        const auto got = ours(logits, targets, mean, 0.37);
        QCOMPARE(got.loss.scalar_type(), ref.loss.scalar_type());
        QCOMPARE(got.grad.scalar_type(), logits.scalar_type());
        const double tol = dtype == 1 ? 1e-12 : dtype == 2 ? 1e-2 : 1e-5;
        QVERIFY2(relDiff(got.loss, ref.loss) < 1e-6 || dtype == 2 && relDiff(got.loss, ref.loss) < 1e-4,
                 qPrintable(QString("loss %1 vs %2").arg(got.loss.item<double>()).arg(ref.loss.item<double>())));
        QVERIFY2(relDiff(got.grad, ref.grad) < tol,
                 qPrintable(QString("grad rel diff %1").arg(relDiff(got.grad, ref.grad))));
        // ignored rows get no gradient at all
        const torch::Tensor ignored = targets.eq(kIgnoreTarget);
        if (ignored.any().item<bool>()) QCOMPARE(got.grad.index({ignored}).abs().max().item<double>(), 0.0);
    }

    void causalShiftMatchesShiftedLogits() {
        // transformers shifts labels; the old way shifted logits: both must give the same loss and gradient.
        torch::manual_seed(3);
        const torch::Tensor logits = torch::randn({3, 9, 50});
        torch::Tensor labels = torch::randint(0, 50, {3, 9}, torch::kInt64);
        labels.index_put_({1, 4}, kIgnoreTarget);
        torch::Tensor a = logits.clone().requires_grad_(true);
        torch::Tensor lossA =
            at::cross_entropy_loss(a.narrow(1, 0, 8).reshape({-1, 50}), labels.narrow(1, 1, 8).reshape({-1}), {},
                                   at::Reduction::Mean, kIgnoreTarget, 0.0);
        lossA.backward();
        torch::Tensor b = logits.clone().requires_grad_(true);
        torch::Tensor lossB = tokenCrossEntropy(b, nextTokenTargets(labels), TokenLossReduction::Mean);
        lossB.backward();
        QVERIFY(relDiff(lossB, lossA) < 1e-6);
        QVERIFY(relDiff(b.grad(), a.grad()) < 1e-5);
        QCOMPARE(b.grad().select(1, 8).abs().max().item<double>(), 0.0);  // the last position predicts nothing
        QCOMPARE(nextTokenTargets(labels).select(1, 8).eq(kIgnoreTarget).all().item<bool>(), true);
    }

    void meanOverNothingIsNan() {
        const torch::Tensor logits = torch::randn({4, 10}, torch::requires_grad());
        const torch::Tensor targets = torch::full({4}, kIgnoreTarget, torch::kInt64);
        const torch::Tensor ref = at::cross_entropy_loss(logits, targets, {}, at::Reduction::Mean, kIgnoreTarget, 0.0);
        QVERIFY(std::isnan(ref.item<double>()));
        QVERIFY(std::isnan(tokenCrossEntropy(logits, targets, TokenLossReduction::Mean).item<double>()));
        QCOMPARE(tokenCrossEntropy(logits, targets, TokenLossReduction::Sum).item<double>(), 0.0);
    }

    void badInputNamed() {
        const torch::Tensor logits = torch::randn({2, 5, 10});
        try {
            tokenCrossEntropy(logits, torch::tensor({{1, 2, 3, 4, 10}, {0, 0, 0, 0, 0}}), TokenLossReduction::Sum);
            QFAIL("a target of 10 with a vocabulary of 10 was accepted");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("[0, 10)") && QString(e.what()).contains("found 10"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(
            Error, tokenCrossEntropy(logits, torch::zeros({2, 4}, torch::kInt64), TokenLossReduction::Sum));
    }
};

QTEST_APPLESS_MAIN(TestTokenCrossEntropy)
#include "test_token_cross_entropy.moc"
