// model.chunked_loss: the output layer and cross-entropy run over chunks of tokens. The loss, the gradient of the
// output layer's input rows and every parameter's gradient equal the unchunked path's (logits, then
// tokenCrossEntropy): fp32 to 1e-6, bf16 autocast to 1e-2, for GPT-2, Llama, Qwen2 and BERT's MLM head, padded and
// packed, with -100 labels, and with chunks that do not divide the rows. A LoRA adapter on the output layer takes
// the logits path. The fused function alone is checked against linear + tokenCrossEntropy with a bias.
#include <QtTest>

#include <ATen/autocast_mode.h>

#include <filesystem>

#include "core/model/chunked_head_loss.h"
#include "core/model/hf_model.h"
#include "core/model/lora.h"
#include "core/model/safetensors_torch.h"
#include "core/model/token_cross_entropy.h"
#include "core/train/training_data.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

fs::path golden(const std::string& arch) { return fs::path(FTS_TEST_DATA_DIR) / "models" / arch; }

struct AutocastBf16 {  // CPU bf16 autocast, as the trainer's bf16 runs
    explicit AutocastBf16(bool on) : m_on(on) {
        if (!m_on) return;
        at::autocast::set_autocast_dtype(c10::DeviceType::CPU, at::kBFloat16);
        at::autocast::set_autocast_enabled(c10::DeviceType::CPU, true);
    }
    ~AutocastBf16() {
        if (!m_on) return;
        at::autocast::set_autocast_enabled(c10::DeviceType::CPU, false);
        at::autocast::clear_cache();
    }
    bool m_on;
};

// The batch of the golden inputs: padded (attention mask), or packed (position ids restart mid-row), with a few
// labels set to -100 as prompts and padding are.
TrainBatch goldenBatch(const std::string& arch, bool packed) {
    auto in = loadSafetensors(golden(arch) / "inputs.safetensors");
    TrainBatch b;
    b.inputIds = in.at("input_ids");
    const int64_t B = b.inputIds.size(0), T = b.inputIds.size(1);
    b.labels = in.count("labels") ? in.at("labels").clone() : b.inputIds.clone();
    if (b.labels.dim() != 2) b.labels = b.inputIds.clone();
    b.labels.index_put_({0, torch::indexing::Slice(0, std::min<int64_t>(3, T))}, kIgnoreTarget);
    if (packed) {
        b.positionIds = torch::cat({torch::arange(T / 2), torch::arange(T - T / 2)}).repeat({B, 1});
        b.labels.index_put_({torch::indexing::Slice(), T / 2}, kIgnoreTarget);  // first token of the second sample
    } else if (in.count("attention_mask")) {
        b.attentionMask = in.at("attention_mask");
    }
    if (arch == "bert_mlm") {  // masked LM: only some positions are predicted
        b.labels = torch::where(torch::arange(T).remainder(3).eq(0).expand({B, T}), b.inputIds,
                                torch::full({B, T}, kIgnoreTarget, torch::kInt64));
        b.lossTokens = b.labels.ne(kIgnoreTarget).sum().item<int64_t>();
    } else {
        b.lossTokens = b.labels.narrow(1, 1, T - 1).ne(kIgnoreTarget).sum().item<int64_t>();
    }
    return b;
}

struct Outcome {
    torch::Tensor loss;
    std::vector<torch::Tensor> grads;  // every parameter's, then the adapters'
};

// One forward + backward through forwardLossSum, as a training step runs it.
Outcome run(const std::string& arch, bool packed, bool bf16, bool chunked, int64_t chunkRows, bool loraOnHead) {
    auto model = loadPretrainedModel(golden(arch), {});
    if (loraOnHead) {
        LoraOptions o;
        o.r = 2;
        o.alpha = 4;
        o.targetModules = {arch == "bert_mlm" ? "decoder" : "lm_head"};
        attachLora(*model, o, 3);
    }
    const TrainBatch batch = goldenBatch(arch, packed);
    Outcome out;
    {
        AutocastBf16 autocast(bf16);
        out.loss = forwardLossSum(*model, batch, chunked, chunkRows);
    }
    out.loss.backward();
    for (auto& p : model->parameters())
        out.grads.push_back(p.tensor.grad().defined() ? p.tensor.grad().clone() : torch::Tensor());
    if (loraOnHead)
        for (auto& t : trainableTensors(*model)) out.grads.push_back(t.grad().clone());
    return out;
}

// max |a - b| over max |b|, or over `floor` when that is larger (a gradient that is float noise around 0, e.g. where
// contributions of the other tokens cancel: measured against the model's gradient scale).
double relDiff(const torch::Tensor& a, const torch::Tensor& b, double floor = 1e-6) {
    const double scale = std::max(floor, b.abs().max().item<double>());
    return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>() / scale;
}

}  // namespace

class TestChunkedLoss : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { torch::set_num_threads(1); }
    void sameAsLogitsPath_data();
    void sameAsLogitsPath();
    void loraOnOutputLayerUsesLogits();
    void fusedFunction_data();
    void fusedFunction();
    void badShapesAndTargets();
};

void TestChunkedLoss::sameAsLogitsPath_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<bool>("packed");
    QTest::addColumn<bool>("bf16");
    for (const char* a : {"gpt2", "llama", "qwen2", "bert_mlm"})
        for (bool bf16 : {false, true}) {
            const QString name = QString(a) + (bf16 ? " bf16" : " fp32");
            QTest::newRow(qPrintable(name)) << QString(a) << false << bf16;
            if (QString(a) != "bert_mlm") QTest::newRow(qPrintable(name + " packed")) << QString(a) << true << bf16;
        }
}

void TestChunkedLoss::sameAsLogitsPath() {
    QFETCH(QString, arch);
    QFETCH(bool, packed);
    QFETCH(bool, bf16);
    const double tol = bf16 ? 1e-2 : 1e-6;
    const Outcome ref = run(arch.toStdString(), packed, bf16, false, 0, false);
    for (int64_t rows : {int64_t(7), int64_t(0)}) {  // 7 rows: chunks that do not divide B*T; 0: one chunk here
        const Outcome got = run(arch.toStdString(), packed, bf16, true, rows, false);
        const double dl = relDiff(got.loss, ref.loss);
        QVERIFY2(dl <= tol,
                 qPrintable(QString("loss %1 vs %2").arg(got.loss.item<double>()).arg(ref.loss.item<double>())));
        QCOMPARE(got.grads.size(), ref.grads.size());
        double worst = 0, largest = 0;
        for (const auto& g : ref.grads)
            if (g.defined()) largest = std::max(largest, g.abs().max().item<double>());
        for (size_t i = 0; i < ref.grads.size(); ++i) {
            QCOMPARE(got.grads[i].defined(), ref.grads[i].defined());
            if (!ref.grads[i].defined()) continue;
            const double d = relDiff(got.grads[i], ref.grads[i], 1e-2 * largest);
            worst = std::max(worst, d);
            QVERIFY2(d <= tol, qPrintable(QString("parameter %1: relative difference %2 (max |grad| %3)")
                                              .arg(i)
                                              .arg(d)
                                              .arg(ref.grads[i].abs().max().item<double>())));
        }
        qInfo("%s rows %lld: loss %.3g, worst parameter gradient %.3g", qPrintable(arch), (long long)rows, dl, worst);
    }
}

void TestChunkedLoss::loraOnOutputLayerUsesLogits() {
    // An adapter on lm_head / decoder: the model keeps returning logits (the chunked path cannot add the adapter),
    // and the result equals the unchunked one exactly.
    for (const std::string arch : {"llama"}) {  // the golden GPT-2, Qwen2 and BERT tie their head (no layer to adapt)
        auto model = loadPretrainedModel(golden(arch), {});
        LoraOptions o;
        o.targetModules = {arch == "bert_mlm" ? "decoder" : "lm_head"};
        attachLora(*model, o, 3);
        model->setDeferOutputHead(true);
        const TrainBatch batch = goldenBatch(arch, false);
        const torch::Tensor out = model->forward(batch.inputIds, batch.attentionMask);
        QVERIFY(!model->deferredOutputHead().has_value());
        QCOMPARE(out.size(-1), model->info().vocabSize);
        model->setDeferOutputHead(false);
        const Outcome a = run(arch, false, false, true, 5, true), b = run(arch, false, false, false, 0, true);
        QCOMPARE(a.loss.item<double>(), b.loss.item<double>());
        for (size_t i = 0; i < a.grads.size(); ++i)
            if (a.grads[i].defined()) QVERIFY(torch::equal(a.grads[i], b.grads[i]));
    }
}

void TestChunkedLoss::fusedFunction_data() {
    QTest::addColumn<bool>("bf16");
    QTest::addColumn<bool>("withBias");
    QTest::addColumn<bool>("mean");
    QTest::newRow("fp32 sum") << false << false << false;
    QTest::newRow("fp32 bias mean") << false << true << true;
    QTest::newRow("bf16 bias sum") << true << true << false;
}

void TestChunkedLoss::fusedFunction() {
    QFETCH(bool, bf16);
    QFETCH(bool, withBias);
    QFETCH(bool, mean);
    torch::manual_seed(11);
    const int64_t N = 37, C = 24, V = 301;
    const auto dtype = bf16 ? torch::kBFloat16 : torch::kFloat32;
    auto make = [&](std::vector<int64_t> shape) { return torch::randn(shape).to(dtype).requires_grad_(true); };
    torch::Tensor h = make({N, C}), w = make({V, C}), b = withBias ? make({V}) : torch::Tensor();
    torch::Tensor targets = torch::randint(0, V, {N}, torch::kInt64);
    targets.index_put_({torch::indexing::Slice(0, 5)}, kIgnoreTarget);
    const auto reduction = mean ? TokenLossReduction::Mean : TokenLossReduction::Sum;
    const torch::Tensor ref =
        tokenCrossEntropy(torch::nn::functional::linear(h, w, b).to(torch::kFloat32), targets, reduction);
    ref.backward();
    const torch::Tensor gh = h.grad().clone(), gw = w.grad().clone(),
                        gb = withBias ? b.grad().clone() : torch::Tensor();
    h.mutable_grad() = torch::Tensor();
    w.mutable_grad() = torch::Tensor();
    if (withBias) b.mutable_grad() = torch::Tensor();
    const torch::Tensor got = chunkedHeadCrossEntropy(h, w, b, targets, reduction, dtype, 8);
    got.backward();
    const double tol = bf16 ? 1e-2 : 1e-6;
    QVERIFY(relDiff(got, ref) <= tol);
    QVERIFY2(relDiff(h.grad(), gh) <= tol, qPrintable(QString::number(relDiff(h.grad(), gh))));
    QVERIFY2(relDiff(w.grad(), gw) <= tol, qPrintable(QString::number(relDiff(w.grad(), gw))));
    if (withBias) QVERIFY2(relDiff(b.grad(), gb) <= tol, qPrintable(QString::number(relDiff(b.grad(), gb))));
    QCOMPARE(h.grad().scalar_type(), dtype);
    // A frozen weight gets no gradient and costs none.
    torch::Tensor frozen = w.detach();
    h.mutable_grad() = torch::Tensor();
    chunkedHeadCrossEntropy(h, frozen, torch::Tensor(), targets, reduction, dtype, 8).backward();
    QVERIFY(h.grad().defined());
    QVERIFY(!frozen.grad().defined());
}

void TestChunkedLoss::badShapesAndTargets() {
    const torch::Tensor h = torch::randn({4, 8}), w = torch::randn({10, 8});
    auto fails = [](const std::function<void()>& f, const char* needle) {
        try {
            f();
        } catch (const std::exception& e) {
            return std::string(e.what()).find(needle) != std::string::npos;
        }
        return false;
    };
    QVERIFY(fails(
        [&] {
            chunkedHeadCrossEntropy(h, torch::randn({10, 7}), {}, torch::zeros({4}, torch::kInt64),
                                    TokenLossReduction::Sum, torch::kFloat32);
        },
        "output weight"));
    QVERIFY(fails(
        [&] {
            chunkedHeadCrossEntropy(h, w, {}, torch::full({4}, 10, torch::kInt64), TokenLossReduction::Sum,
                                    torch::kFloat32);
        },
        "found 10"));
    QVERIFY(fails(
        [&] {
            chunkedHeadCrossEntropy(h, w, {}, torch::zeros({5}, torch::kInt64), TokenLossReduction::Sum,
                                    torch::kFloat32);
        },
        "targets must have shape"));
    // Mean over no counted target is NaN, as torch's.
    QVERIFY(std::isnan(chunkedHeadCrossEntropy(h, w, {}, torch::full({4}, kIgnoreTarget, torch::kInt64),
                                               TokenLossReduction::Mean, torch::kFloat32)
                           .item<double>()));
}

QTEST_MAIN(TestChunkedLoss)
#include "test_chunked_loss.moc"
