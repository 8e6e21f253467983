// Packed sequences against real references: a row holding several samples (position ids restarting at 0,
// no attention mask) gives the logits and loss transformers 5 computes for the same batch (eager and sdpa,
// tests/data/models/scripts/packed_reference.py, run live), and each sample's logits equal those of the sample
// run on its own through our unpacked forward. Padding of packed and unpacked batches changes nothing; BERT
// refuses packing by name.
#include "core/model/hf_model.h"
#include "core/model/safetensors_torch.h"
#include "core/train/training_data.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(FTS_TEST_DATA_DIR) / "models";

double maxAbs(const torch::Tensor& a, const torch::Tensor& b) {
    return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

struct Packed {
    torch::Tensor ids, pos, labels;
    std::vector<std::vector<std::pair<int64_t, int64_t>>> samples;  // per row: (start, length)
};

// Rows of the given sample lengths (the rest of a row, if any, is left to the caller); random ids; labels = ids
// with the first token of every sample and a "prompt" prefix of some samples set to -100.
Packed makePacked(const std::vector<std::vector<int64_t>>& rows, int64_t vocab, uint64_t seed) {
    auto gen = at::detail::createCPUGenerator(seed);
    int64_t T = 0;
    for (const auto& r : rows) {
        int64_t n = 0;
        for (int64_t l : r) n += l;
        T = std::max(T, n);
    }
    const int64_t B = int64_t(rows.size());
    Packed p;
    p.ids = torch::randint(vocab, {B, T}, gen, torch::kInt64);
    p.pos = torch::zeros({B, T}, torch::kInt64);
    p.labels = p.ids.clone();
    for (int64_t b = 0; b < B; ++b) {
        std::vector<std::pair<int64_t, int64_t>> s;
        int64_t start = 0;
        for (size_t k = 0; k < rows[size_t(b)].size(); ++k) {
            const int64_t n = rows[size_t(b)][k];
            p.pos[b].narrow(0, start, n).copy_(torch::arange(n, torch::kInt64));
            const int64_t masked = k % 2 == 0 ? std::min<int64_t>(n - 1, 3) : 1;  // prompt tokens of even samples
            p.labels[b].narrow(0, start, masked).fill_(-100);
            s.emplace_back(start, n);
            start += n;
        }
        p.samples.push_back(s);
    }
    return p;
}

}  // namespace

class TestPackedForward : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { torch::set_num_threads(1); }
    void matchesTransformersAndSeparateSamples_data();
    void matchesTransformersAndSeparateSamples();
    void paddingChangesNothing();
    void bertRefusesPacking();
};

void TestPackedForward::matchesTransformersAndSeparateSamples_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("gpt2") << "gpt2";
    QTest::newRow("llama") << "llama";
    QTest::newRow("qwen2") << "qwen2";
}

void TestPackedForward::matchesTransformersAndSeparateSamples() {
    QFETCH(QString, model);
    const fs::path dir = kModels / model.toStdString();
    ModelLoadOptions lo;
    lo.disableDropout = true;
    auto m = loadPretrainedModel(dir, lo);
    m->setTraining(false);
    QVERIFY(m->supportsPacking());
    torch::NoGradGuard noGrad;
    const Packed p = makePacked({{7, 5, 8}, {12, 8}}, m->info().vocabSize, 17);
    const torch::Tensor logits = m->forwardPacked(p.ids, p.pos);
    QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{2, 20, m->info().vocabSize}));

    // 1. every sample alone through the ordinary (unpacked) forward
    double worstSeparate = 0;
    for (int64_t b = 0; b < 2; ++b)
        for (auto [start, n] : p.samples[size_t(b)]) {
            torch::Tensor alone = m->forward(p.ids[b].narrow(0, start, n).unsqueeze(0), torch::Tensor())[0];
            worstSeparate = std::max(worstSeparate, maxAbs(logits[b].narrow(0, start, n), alone));
        }
    QVERIFY2(worstSeparate <= 1e-5, qPrintable(QString("packed vs separate: max |diff| %1").arg(worstSeparate)));
    // The same rows without position ids (plain causal over the whole row) differ: the test can fail.
    QVERIFY(maxAbs(m->forward(p.ids, torch::Tensor()), logits) > 1e-3);

    // 2. transformers on the same packed batch
    QTemporaryDir tmp;
    const fs::path in = fs::path(tmp.path().toStdString()) / "in.safetensors";
    const fs::path out = fs::path(tmp.path().toStdString()) / "out.safetensors";
    saveSafetensors(in, {{"input_ids", p.ids}, {"position_ids", p.pos}, {"labels", p.labels}});
    QProcess py;
    py.start(QString::fromUtf8(FTS_TEST_PYTHON),
             {QString::fromStdString((kModels / "scripts" / "packed_reference.py").string()),
              QString::fromStdString(dir.string()), QString::fromStdString(in.string()),
              QString::fromStdString(out.string())});
    QVERIFY2(py.waitForFinished(240000), "packed_reference.py did not finish");
    QVERIFY2(
        py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0,
        qPrintable(QStringLiteral("the transformers reference (venv python ") + QString::fromUtf8(FTS_TEST_PYTHON) +
                   ") failed: " + QString::fromUtf8(py.readAllStandardError().right(3000))));
    auto ref = loadSafetensors(out);
    const torch::Tensor lossSum = causalLmLossSum(logits, p.labels);
    const int64_t counted = p.labels.narrow(1, 1, 19).ne(-100).sum().item<int64_t>();
    const double ourLoss = lossSum.item<double>() / double(counted);
    for (const char* attn : {"eager", "sdpa"}) {
        const torch::Tensor& refLogits = ref.at(std::string("logits_") + attn);
        const double d = maxAbs(logits, refLogits);
        QVERIFY2(d <= 2e-5, qPrintable(QString("%1: max |logits diff| %2").arg(attn).arg(d)));
        const double refLoss = ref.at(std::string("loss_") + attn).item<double>();
        QVERIFY2(
            std::abs(ourLoss - refLoss) <= 1e-5 * std::abs(refLoss),
            qPrintable(
                QString("%1: loss %2 vs transformers %3").arg(attn).arg(ourLoss, 0, 'g', 10).arg(refLoss, 0, 'g', 10)));
    }
}

// Right padding as training_data.cpp lays it out: packed rows pad with position 0 (a one-token sample each),
// unpacked rows with attention mask 0; the real tokens' logits do not move.
void TestPackedForward::paddingChangesNothing() {
    ModelLoadOptions lo;
    lo.disableDropout = true;
    auto m = loadPretrainedModel(kModels / "llama", lo);
    m->setTraining(false);
    torch::NoGradGuard noGrad;
    const Packed p = makePacked({{6, 4}}, m->info().vocabSize, 5);
    const torch::Tensor base = m->forwardPacked(p.ids, p.pos);
    torch::Tensor ids = torch::cat({p.ids, torch::zeros({1, 5}, torch::kInt64)}, 1);
    torch::Tensor pos = torch::cat({p.pos, torch::zeros({1, 5}, torch::kInt64)}, 1);
    QVERIFY(maxAbs(m->forwardPacked(ids, pos).narrow(1, 0, 10), base) <= 1e-5);
    const torch::Tensor one = m->forward(p.ids.narrow(1, 0, 6), torch::Tensor());
    torch::Tensor mask = torch::cat({torch::ones({1, 6}, torch::kInt64), torch::zeros({1, 3}, torch::kInt64)}, 1);
    torch::Tensor padded = torch::cat({p.ids.narrow(1, 0, 6), torch::zeros({1, 3}, torch::kInt64)}, 1);
    QVERIFY(maxAbs(m->forward(padded, mask).narrow(1, 0, 6), one) <= 1e-5);
}

void TestPackedForward::bertRefusesPacking() {
    auto m = loadPretrainedModel(kModels / "bert_mlm", ModelLoadOptions{});
    QVERIFY(!m->supportsPacking());
    const auto ids = torch::zeros({1, 4}, torch::kInt64);
    QVERIFY_THROWS_EXCEPTION(std::exception, m->forwardPacked(ids, ids));
    DataSection d;
    d.format = "alpaca";
    d.packing = true;
    try {
        checkModelForData(d, *m);
        QFAIL("BERT accepted packed instruction data");
    } catch (const ConfigError& e) {
        QVERIFY2(std::string(e.what()).find("data.") == 0, e.what());
        QVERIFY2(std::string(e.what()).find("BertForMaskedLM") != std::string::npos, e.what());
    }
}

QTEST_APPLESS_MAIN(TestPackedForward)
#include "test_packed_forward.moc"
