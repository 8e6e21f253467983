// Activation checkpointing per transformer block: the same loss and gradients as without (dropout included: the
// recompute replays the forward's random masks), the checkpoint nodes really are in the graph, and eval/no-grad
// forwards are unaffected. Every architecture, on the golden models.
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <set>

#include <ATen/autocast_mode.h>

#include "core/model/activation_checkpoint.h"
#include "core/model/hf_model.h"
#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

fs::path golden(const QString& arch) { return fs::path(FTS_TEST_DATA_DIR) / "models" / arch.toStdString(); }

// Names of every autograd node reachable from t.
std::set<std::string> graphNodeNames(const torch::Tensor& t) {
    std::set<std::string> names;
    std::vector<torch::autograd::Node*> stack{t.grad_fn().get()};
    std::set<torch::autograd::Node*> seen;
    while (!stack.empty()) {
        auto* n = stack.back();
        stack.pop_back();
        if (!n || !seen.insert(n).second) continue;
        names.insert(n->name());
        for (const auto& e : n->next_edges()) stack.push_back(e.function.get());
    }
    return names;
}

bool hasCheckpointNode(const torch::Tensor& t) {
    for (const auto& n : graphNodeNames(t))
        if (n.find("CheckpointFunction") != std::string::npos) return true;
    return false;
}

}  // namespace

class TestActivationCheckpoint : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { torch::set_num_threads(1); }
    void sameGradients_data();
    void sameGradients();
    void standaloneBlock();
    void autocastReplayLeavesNoStaleCast();
};

void TestActivationCheckpoint::sameGradients_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<double>("dropout");
    for (const char* a : {"gpt2", "llama", "qwen2", "bert", "bert_mlm"}) {
        QTest::newRow(a) << QString(a) << 0.0;
        if (QString(a) != "llama" && QString(a) != "qwen2")  // llama-family dropout is attention_dropout
            QTest::newRow(qPrintable(QString(a) + " dropout")) << QString(a) << 0.2;
    }
    QTest::newRow("llama attention dropout") << "llama" << 0.2;
}

void TestActivationCheckpoint::sameGradients() {
    QFETCH(QString, arch);
    QFETCH(double, dropout);
    QTemporaryDir tmp;
    fs::path dir = golden(arch);
    if (dropout > 0) {  // a copy of the model with every dropout probability set
        dir = fs::path(tmp.path().toStdString()) / "m";
        fs::create_directories(dir);
        fs::copy_file(golden(arch) / "model.safetensors", dir / "model.safetensors");
        auto c = nlohmann::json::parse(readFile(golden(arch) / "config.json"));
        for (const char* k : {"resid_pdrop", "embd_pdrop", "attn_pdrop", "hidden_dropout_prob",
                              "attention_probs_dropout_prob", "attention_dropout"})
            if (c.contains(k)) c[k] = dropout;
        writeFileAtomic(dir / "config.json", c.dump(2));
    }
    auto in = loadSafetensors(golden(arch) / "inputs.safetensors");
    auto run = [&](bool checkpointing, bool* sawNode) {
        auto model = loadPretrainedModel(dir, {});
        model->setActivationCheckpointing(checkpointing);
        torch::manual_seed(1234);
        auto logits = model->forward(in.at("input_ids"), in.at("attention_mask"));
        auto loss = model->loss(logits, in.at("labels"));
        *sawNode = hasCheckpointNode(loss);
        loss.backward();
        std::vector<torch::Tensor> out{loss.detach(), logits.detach()};
        for (auto& p : model->parameters()) out.push_back(p.tensor.grad());
        return out;
    };
    bool nodeOff = true, nodeOn = false;
    auto off = run(false, &nodeOff);
    auto on = run(true, &nodeOn);
    QVERIFY(!nodeOff);
    QVERIFY(nodeOn);
    QCOMPARE(on.size(), off.size());
    double worst = 0;
    for (size_t i = 0; i < on.size(); ++i) {
        QVERIFY2(on[i].defined() && off[i].defined(), qPrintable(QString::number(i)));
        const double d = (on[i] - off[i]).abs().max().item<double>();
        const double scale = std::max(1e-6, off[i].abs().max().item<double>());
        worst = std::max(worst, d / scale);
        QVERIFY2(d <= 1e-5 * scale, qPrintable(QString("tensor %1: max|diff| %2 (scale %3)").arg(i).arg(d).arg(scale)));
    }
    qInfo("%s dropout %.1f: worst relative difference %.3g", qPrintable(arch), dropout, worst);
    if (dropout > 0) {  // the masks were really random (a different seed changes the loss)
        auto model = loadPretrainedModel(dir, {});
        torch::manual_seed(99);
        auto other = model->loss(model->forward(in.at("input_ids"), in.at("attention_mask")), in.at("labels"));
        QVERIFY(std::fabs(other.item<double>() - off[0].item<double>()) > 1e-6);
    }
}

void TestActivationCheckpoint::standaloneBlock() {
    // checkpointedBlock on its own: gradients to the input and to parameters; no graph under no_grad.
    torch::manual_seed(0);
    auto w = torch::randn({8, 8}).requires_grad_(true);
    auto x = torch::randn({4, 8}).requires_grad_(true);
    BlockFn f = [w](const torch::Tensor& h) { return torch::tanh(torch::dropout(h.matmul(w), 0.3, true)).square(); };
    torch::manual_seed(5);
    f(x).sum().backward();
    auto gx = x.grad().clone(), gw = w.grad().clone();
    x.mutable_grad() = torch::Tensor();
    w.mutable_grad() = torch::Tensor();
    torch::manual_seed(5);
    auto y = checkpointedBlock(f, x, {w});
    QVERIFY(hasCheckpointNode(y));
    torch::randn({100});  // advance the generator between forward and backward: the recompute must not see it
    y.sum().backward();
    QVERIFY(torch::allclose(x.grad(), gx, 1e-6, 1e-7));
    QVERIFY(torch::allclose(w.grad(), gw, 1e-6, 1e-7));
    torch::NoGradGuard noGrad;
    QVERIFY(!checkpointedBlock(f, x, {w}).requires_grad());
}

void TestActivationCheckpoint::autocastReplayLeavesNoStaleCast() {
    // bf16 autocast over float32 weights (stage 0 bf16) with checkpointing: backward replays the blocks under
    // autocast. After an optimizer-like in-place update, the next forward must use the new weights, not bit16
    // casts the replay left in autocast's (process-wide) cache.
    auto in = loadSafetensors(golden("llama") / "inputs.safetensors");
    auto autocastForward = [&](LanguageModel& m) {
        at::autocast::set_autocast_dtype(c10::DeviceType::CPU, at::kBFloat16);
        at::autocast::set_autocast_enabled(c10::DeviceType::CPU, true);
        torch::Tensor logits = m.forward(in.at("input_ids"), in.at("attention_mask"));
        at::autocast::set_autocast_enabled(c10::DeviceType::CPU, false);
        at::autocast::clear_cache();  // as the trainer's scope does on exit
        return logits;
    };
    auto model = loadPretrainedModel(golden("llama"), {});
    model->setActivationCheckpointing(true);
    model->loss(autocastForward(*model), in.at("labels")).backward();  // the replay runs here, under autocast
    {
        torch::NoGradGuard noGrad;
        for (auto& p : model->parameters()) p.tensor.add_(0.05);  // the optimizer's in-place step
    }
    torch::Tensor after = autocastForward(*model).detach();
    auto fresh = loadPretrainedModel(golden("llama"), {});
    {
        torch::NoGradGuard noGrad;
        for (auto& p : fresh->parameters()) p.tensor.add_(0.05);
    }
    torch::Tensor expected = autocastForward(*fresh).detach();
    QVERIFY2(torch::equal(after, expected),
             qPrintable(QString("max |diff| %1").arg((after - expected).abs().max().item<double>())));
}

QTEST_APPLESS_MAIN(TestActivationCheckpoint)
#include "test_activation_checkpoint.moc"
