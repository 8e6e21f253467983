// The sparse MoE feed-forward (core/model/moe.h) against transformers 5.23 (tests/data/moe/moe_reference.py, fresh
// random weights at test time): Mixtral's, Qwen3-MoE's and gpt-oss's blocks give the same output and the same
// gradients of the input, the router and every expert tensor; the load-balancing loss equals
// load_balancing_loss_func with and without an attention mask; gpt-oss's MXFP4 expert tensors dequantize to
// exactly convert_moe_packed_tensors' values; a top-k larger than the expert count and malformed MXFP4 tensors are
// errors naming the key or tensor.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/model/moe.h"
#include "core/model/mxfp4.h"
#include "core/model/safetensors_torch.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;

namespace {

double relativeL2(const torch::Tensor& got, const torch::Tensor& ref) {
    const torch::Tensor g = got.to(torch::kFloat64), r = ref.to(torch::kFloat64);
    return (g - r).norm().item<double>() / std::max(1e-30, r.norm().item<double>());
}

// The first of (what, got, reference) whose relative L2 is above 1e-6, described; empty when all agree.
using Comparison = std::tuple<const char*, torch::Tensor, torch::Tensor>;
std::string firstDisagreement(const std::vector<Comparison>& comparisons) {
    for (const auto& [what, got, ref] : comparisons) {
        const double rel = relativeL2(got, ref);
        if (!(rel <= 1e-6)) return std::string(what) + ": relative L2 " + std::to_string(rel);
    }
    return {};
}

}  // namespace

class TestMoeGolden : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_ref;

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        m_ref = fs::path(m_tmp.path().toStdString()) / "moe";
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                {QString::fromStdString((fs::path(FTS_TEST_DATA_DIR) / "moe" / "moe_reference.py").string()),
                 QString::fromStdString(m_ref.string())});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 p.readAllStandardError().right(3000).constData());
    }

    void blockEqualsTransformers_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("topK");
        QTest::addColumn<bool>("normalize");
        QTest::addColumn<bool>("weightsInLogitsDtype");
        QTest::newRow("mixtral: top-2 of 8") << "mixtral" << 2 << true << false;
        QTest::newRow("qwen3_moe: top-3 of 6, norm_topk_prob") << "qwen3_moe_norm" << 3 << true << true;
        QTest::newRow("qwen3_moe: top-3 of 6, unnormalised") << "qwen3_moe" << 3 << false << true;
    }
    void blockEqualsTransformers() {
        QFETCH(QString, name);
        QFETCH(int, topK);
        QFETCH(bool, normalize);
        QFETCH(bool, weightsInLogitsDtype);
        auto t = fts::loadSafetensors(m_ref / (name.toStdString() + ".safetensors"));
        const torch::Tensor x = t["input"].clone().requires_grad_(true);
        const torch::Tensor router = t["gate.weight"].clone().requires_grad_(true);
        const torch::Tensor gateUp = t["experts.gate_up_proj"].clone().requires_grad_(true);
        const torch::Tensor down = t["experts.down_proj"].clone().requires_grad_(true);
        const torch::Tensor flat = x.reshape({-1, x.size(-1)});
        const fts::Routing routing = fts::routeSoftmaxTopK(flat, router, {topK, normalize, weightsInLogitsDtype});
        const torch::Tensor y = fts::groupedSwigluExperts(flat, routing, gateUp, down).reshape(x.sizes());
        (y * t["grad_output"]).sum().backward();
        const std::string disagreement =
            firstDisagreement({{"output", y.detach(), t["output"]},
                               {"input gradient", x.grad(), t["grad_input"]},
                               {"router gradient", router.grad(), t["grad.gate.weight"]},
                               {"gate_up_proj gradient", gateUp.grad(), t["grad.experts.gate_up_proj"]},
                               {"down_proj gradient", down.grad(), t["grad.experts.down_proj"]}});
        QVERIFY2(disagreement.empty(), disagreement.c_str());
        // every expert was chosen by some token here, so every expert's weights have a gradient
        QVERIFY(gateUp.grad().abs().sum({1, 2}).gt(0).all().item<bool>());
    }

    // gpt-oss's block: the biased top-k-then-softmax router and the clamped SwiGLU experts with biases, in its
    // interleaved, transposed layout; at limit 0.8 many gate and up values are clamped (their gradients are 0 there).
    void gptOssBlockEqualsTransformers_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("limit");
        QTest::newRow("gpt_oss: top-2 of 6, swiglu_limit 7") << "gpt_oss" << 7.0;
        QTest::newRow("gpt_oss: swiglu_limit 0.8") << "gpt_oss_clamped" << 0.8;
    }
    void gptOssBlockEqualsTransformers() {
        QFETCH(QString, name);
        QFETCH(double, limit);
        auto t = fts::loadSafetensors(m_ref / (name.toStdString() + ".safetensors"));
        const auto leaf = [&](const char* key) { return t[key].clone().requires_grad_(true); };
        const torch::Tensor x = leaf("input"), router = leaf("router.weight"), routerBias = leaf("router.bias"),
                            gateUp = leaf("experts.gate_up_proj"), gateUpBias = leaf("experts.gate_up_proj_bias"),
                            down = leaf("experts.down_proj"), downBias = leaf("experts.down_proj_bias");
        const torch::Tensor flat = x.reshape({-1, x.size(-1)});
        const fts::Routing routing = fts::routeTopKSoftmax(flat, router, routerBias, 2);
        const torch::Tensor y =
            fts::groupedClampedSwigluExperts(flat, routing, gateUp, gateUpBias, down, downBias, {1.702, limit})
                .reshape(x.sizes());
        (y * t["grad_output"]).sum().backward();
        const std::string disagreement =
            firstDisagreement({{"output", y.detach(), t["output"]},
                               {"input gradient", x.grad(), t["grad_input"]},
                               {"router gradient", router.grad(), t["grad.router.weight"]},
                               {"router bias gradient", routerBias.grad(), t["grad.router.bias"]},
                               {"gate_up_proj gradient", gateUp.grad(), t["grad.experts.gate_up_proj"]},
                               {"gate_up_proj_bias gradient", gateUpBias.grad(), t["grad.experts.gate_up_proj_bias"]},
                               {"down_proj gradient", down.grad(), t["grad.experts.down_proj"]},
                               {"down_proj_bias gradient", downBias.grad(), t["grad.experts.down_proj_bias"]}});
        QVERIFY2(disagreement.empty(), disagreement.c_str());
        if (limit < 1) {  // the clamp was exercised: some of expert 0's gate pre-activations are above the limit
            const torch::Tensor pre =
                torch::addmm(t["experts.gate_up_proj_bias"][0], flat.detach(), t["experts.gate_up_proj"][0]);
            QVERIFY(pre.gt(limit).sum().item<int64_t>() > 0);
        }
    }

    void loadBalancingLossEqualsTransformers() {
        auto t = fts::loadSafetensors(m_ref / "balance.safetensors");
        const std::vector<torch::Tensor> logits{t["logits0"], t["logits1"], t["logits2"]};
        const double plain = fts::loadBalancingLoss(logits, 8, 2).item<double>();
        const double masked = fts::loadBalancingLoss(logits, 8, 2, t["mask"]).item<double>();
        QVERIFY2(std::abs(plain - t["loss"].item<double>()) <= 1e-6 * plain,
                 qPrintable(QString("%1 vs %2").arg(plain).arg(t["loss"].item<double>())));
        QVERIFY2(std::abs(masked - t["loss_masked"].item<double>()) <= 1e-6 * masked,
                 qPrintable(QString("%1 vs %2").arg(masked).arg(t["loss_masked"].item<double>())));
        QVERIFY(std::abs(plain - masked) > 1e-6);  // the mask changed something
        // uniform router probabilities (1/E each) give exactly k, however the picks fall: E x sum_e share_e / E = k
        const double uniform = fts::loadBalancingLoss({torch::zeros({16, 4})}, 4, 2).item<double>();
        QVERIFY2(std::abs(uniform - 2.0) < 1e-6, qPrintable(QString::number(uniform)));
    }

    // gpt-oss's MXFP4 expert tensors dequantize to exactly transformers' values, in its (experts, in, out) layout
    void mxfp4DequantizesAsTransformers() {
        auto t = fts::loadSafetensors(m_ref / "mxfp4.safetensors");
        for (const auto& [dtype, key] :
             {std::pair{torch::kFloat32, "float32"}, std::pair{torch::kBFloat16, "bfloat16"}}) {
            const torch::Tensor got = fts::dequantizeMxfp4(t["blocks"], t["scales"], dtype, "experts.down_proj");
            QCOMPARE(got.sizes(), t[key].sizes());  // (3, 64, 10): the 2 x 32 values of a row, then the rows
            QCOMPARE(got.scalar_type(), t[key].scalar_type());
            QVERIFY2(torch::equal(got, t[key]), key);
        }
    }
    void badMxfp4TensorsNameTheTensor_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("15-byte blocks")
            << "blocks"
            << "experts.gate_up_proj_blocks: shape [2, 4, 3, 15]; an MXFP4 block is 16 bytes";
        QTest::newRow("scales of another shape") << "scales"
                                                 << "experts.gate_up_proj_scales: shape [2, 4, 2], expected [2, 4, 3]";
        QTest::newRow("float blocks") << "dtype"
                                      << "MXFP4 tensors must be U8, got Float";
    }
    void badMxfp4TensorsNameTheTensor() {
        QFETCH(QString, what);
        QFETCH(QString, message);
        torch::Tensor blocks = torch::zeros({2, 4, 3, 16}, torch::kUInt8),
                      scales = torch::zeros({2, 4, 3}, torch::kUInt8);
        if (what == "blocks") blocks = torch::zeros({2, 4, 3, 15}, torch::kUInt8);
        if (what == "scales") scales = torch::zeros({2, 4, 2}, torch::kUInt8);
        if (what == "dtype") blocks = blocks.to(torch::kFloat32);
        try {
            fts::dequantizeMxfp4(blocks, scales, torch::kFloat32, "experts.gate_up_proj");
            QFAIL("no error");
        } catch (const fts::Error& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // no tokens (an empty batch): an empty output
    void noTokensGiveAnEmptyOutput() {
        const torch::Tensor router = torch::randn({4, 8}), gateUp = torch::randn({4, 6, 8}),
                            down = torch::randn({4, 8, 3});
        const torch::Tensor none = torch::zeros({0, 8});
        const fts::Routing routing = fts::routeSoftmaxTopK(none, router, {2, true, false});
        const torch::Tensor y = fts::groupedSwigluExperts(none, routing, gateUp, down);
        QCOMPARE(y.sizes(), none.sizes());
    }

    void topKLargerThanExpertsIsAnError() {
        try {
            fts::routeSoftmaxTopK(torch::randn({4, 8}), torch::randn({3, 8}), {4, true, false});
            QFAIL("no error");
        } catch (const fts::Error& e) {
            QVERIFY2(std::string(e.what()).find("num_experts_per_tok is 4, but the router has 3 experts") !=
                         std::string::npos,
                     e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestMoeGolden)
#include "test_moe_golden.moc"
