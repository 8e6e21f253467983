// Llama, Qwen2, BERT (classification and masked LM), and GPT-2 against transformers' golden numerics through
// debugForward (logits, loss, every gradient, loss after one AdamW step), parameter order, and broken folders.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <functional>

#include "core/model/debug_forward.h"
#include "core/model/hf_model.h"
#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

fs::path golden(const QString& arch) { return fs::path(FTS_TEST_DATA_DIR) / "models" / arch.toStdString(); }

double relL2(const torch::Tensor& got, const torch::Tensor& ref) {
    auto g = got.to(torch::kFloat64), r = ref.to(torch::kFloat64);
    double denom = r.norm().item<double>();
    return (g - r).norm().item<double>() / (denom > 0 ? denom : 1.0);
}
double maxAbs(const torch::Tensor& got, const torch::Tensor& ref) {
    return (got.to(torch::kFloat64) - ref.to(torch::kFloat64)).abs().max().item<double>();
}
nlohmann::json readJson(const fs::path& p) { return nlohmann::json::parse(readFile(p)); }

fs::path copyModel(const QTemporaryDir& tmp, const fs::path& src) {
    fs::path dir = fs::path(tmp.path().toStdString()) / "model";
    fs::create_directories(dir);
    fs::copy_file(src / "config.json", dir / "config.json");
    fs::copy_file(src / "model.safetensors", dir / "model.safetensors");
    return dir;
}

void addArchRows() {
    QTest::addColumn<QString>("arch");
    for (const char* a : {"gpt2", "llama", "qwen2", "bert", "bert_mlm"}) QTest::newRow(a) << QString(a);
}

}  // namespace

class TestArchGolden : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { torch::set_num_threads(1); }
    void debugForwardParity_data() { addArchRows(); }
    void debugForwardParity();
    void parameterOrderAndInfo_data() { addArchRows(); }
    void parameterOrderAndInfo();
    void paddingDoesNotLeak_data();
    void paddingDoesNotLeak();
    void badFolders_data();
    void badFolders();
    void classifierInitialisedFromBaseCheckpoint();
};

void TestArchGolden::debugForwardParity() {
    QFETCH(QString, arch);
    const fs::path dir = golden(arch);
    QVERIFY2(fs::exists(dir / "outputs.safetensors"), dir.c_str());
    QTemporaryDir tmp;
    const fs::path out = fs::path(tmp.path().toStdString()) / "outputs.safetensors";
    const nlohmann::json result = debugForward(dir, dir / "inputs.safetensors", out);
    const nlohmann::json expected = readJson(dir / "expected.json");
    const double loss = result.at("loss").get<double>(), lossAfter = result.at("loss_after_step").get<double>();
    const double refLoss = expected.at("loss").get<double>(), refAfter = expected.at("loss_after_step").get<double>();
    QVERIFY2(std::fabs(loss - refLoss) <= 1e-5,
             qPrintable(QString("loss %1 vs %2").arg(loss, 0, 'g', 10).arg(refLoss, 0, 'g', 10)));
    QVERIFY2(std::fabs(lossAfter - refAfter) <= 1e-5,
             qPrintable(QString("loss_after_step %1 vs %2").arg(lossAfter, 0, 'g', 10).arg(refAfter, 0, 'g', 10)));

    auto ours = loadSafetensors(out);
    auto ref = loadSafetensors(dir / "outputs.safetensors");
    QCOMPARE(ours.size(), ref.size());
    const auto& logits = ours.at("logits");
    QCOMPARE(logits.sizes().vec(), ref.at("logits").sizes().vec());
    const double la = maxAbs(logits, ref.at("logits")), lr = relL2(logits, ref.at("logits"));
    QVERIFY2(la <= 1e-4, qPrintable(QString::number(la)));
    QVERIFY2(lr <= 1e-5, qPrintable(QString::number(lr)));
    double worst = 0;
    for (const auto& [name, g] : ref) {
        if (name == "logits") continue;
        QVERIFY2(ours.count(name), name.c_str());
        QCOMPARE(ours.at(name).sizes().vec(), g.sizes().vec());
        const double err = relL2(ours.at(name), g);
        // A gradient that is zero up to rounding in the reference (BERT's key biases: softmax is shift-invariant)
        // can only be compared absolutely.
        const double refNorm = g.to(torch::kFloat64).norm().item<double>();
        if (refNorm < 1e-6) {
            QVERIFY2(ours.at(name).to(torch::kFloat64).norm().item<double>() < 1e-6, name.c_str());
            continue;
        }
        QVERIFY2(err <= 1e-4, qPrintable(QString::fromStdString(name) + " rel L2 " + QString::number(err)));
        worst = std::max(worst, err);
    }
    qInfo("%s: loss diff %.3g, after-step diff %.3g, logits max|diff| %.3g relL2 %.3g, worst grad relL2 %.3g",
          qPrintable(arch), loss - refLoss, lossAfter - refAfter, la, lr, worst);
}

void TestArchGolden::parameterOrderAndInfo() {
    QFETCH(QString, arch);
    const fs::path dir = golden(arch);
    auto model = loadPretrainedModel(dir, {});
    const auto expected = nlohmann::ordered_json::parse(readFile(dir / "expected.json"));
    std::vector<std::string> hfOrder, ours;
    for (auto it = expected.at("grad_l2_norms").begin(); it != expected.at("grad_l2_norms").end(); ++it)
        hfOrder.push_back(it.key());
    for (const auto& p : model->parameters()) ours.push_back(p.name);
    QCOMPARE(ours, hfOrder);
    const auto config = readJson(dir / "config.json");
    QCOMPARE(model->info().modelType, config.at("model_type").get<std::string>());
    QCOMPARE(model->info().architecture, config.at("architectures")[0].get<std::string>());
    QVERIFY(model->info().loadWarnings.empty());
}

void TestArchGolden::paddingDoesNotLeak_data() {
    QTest::addColumn<QString>("arch");
    for (const char* a : {"llama", "qwen2", "bert_mlm"}) QTest::newRow(a) << QString(a);
}

void TestArchGolden::paddingDoesNotLeak() {
    // Row 1 is right-padded: its real positions must not depend on what the padding holds.
    QFETCH(QString, arch);
    auto model = loadPretrainedModel(golden(arch), {});
    auto in = loadSafetensors(golden(arch) / "inputs.safetensors");
    torch::NoGradGuard noGrad;
    auto ids = in.at("input_ids").clone(), mask = in.at("attention_mask");
    const int64_t real = mask[1].sum().item<int64_t>();
    QVERIFY(real < ids.size(1));
    auto a = model->forward(ids, mask);
    ids.index_put_({1, torch::indexing::Slice(real, torch::indexing::None)}, 7);
    auto b = model->forward(ids, mask);
    QVERIFY(maxAbs(a.slice(0, 1, 2).slice(1, 0, real), b.slice(0, 1, 2).slice(1, 0, real)) < 1e-5);
    QVERIFY(maxAbs(a, b) > 1e-4);  // ... while the padded positions themselves did change
}

void TestArchGolden::badFolders_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("breakage");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("llama tensor missing") << "llama"
                                          << "drop:model.layers.1.mlp.up_proj.weight"
                                          << QStringList{"'model.layers.1.mlp.up_proj.weight' is missing", "[128, 64]"};
    QTest::newRow("llama hidden_size") << "llama"
                                       << "config:hidden_size=32"
                                       << QStringList{"'model.embed_tokens.weight'", "vocab_size x hidden_size",
                                                      "found [1000, 64]"};
    QTest::newRow("llama kv heads") << "llama"
                                    << "config:num_key_value_heads=4"
                                    << QStringList{"'model.layers.0.self_attn.k_proj.weight'", "num_key_value_heads",
                                                   "[64, 64]"};
    QTest::newRow("llama kv heads not dividing")
        << "llama"
        << "config:num_key_value_heads=3" << QStringList{"\"num_key_value_heads\"", "multiple"};
    QTest::newRow("llama vocab") << "llama"
                                 << "config:vocab_size=999" << QStringList{"'lm_head.weight'", "[999, 64]"};
    QTest::newRow("llama layers") << "llama"
                                  << "config:num_hidden_layers=3"
                                  << QStringList{"'model.layers.2.input_layernorm.weight' is missing"};
    QTest::newRow("llama rope type") << "llama"
                                     << "rope:ntk-by-parts"
                                     << QStringList{"\"rope_scaling\"", "ntk-by-parts", "llama3, longrope, yarn"};
    QTest::newRow("llama wrong shape") << "llama"
                                       << "shape:model.norm.weight"
                                       << QStringList{"'model.norm.weight'", "expected shape [64]", "found [32]"};
    QTest::newRow("qwen2 bias missing") << "qwen2"
                                        << "drop:model.layers.0.self_attn.q_proj.bias"
                                        << QStringList{"'model.layers.0.self_attn.q_proj.bias' is missing"};
    QTest::newRow("qwen2 untied without head")
        << "qwen2"
        << "config:tie_word_embeddings=false" << QStringList{"'lm_head.weight' is missing"};
    QTest::newRow("bert heads") << "bert"
                                << "config:num_attention_heads=5"
                                << QStringList{"\"num_attention_heads\"", "divisible"};
    QTest::newRow("bert labels") << "bert"
                                 << "config:num_labels=4"
                                 << QStringList{"'classifier.weight'", "[4, 64]", "found [3, 64]"};
    QTest::newRow("bert positions") << "bert_mlm"
                                    << "config:position_embedding_type=relative_key"
                                    << QStringList{"\"position_embedding_type\"", "absolute"};
    QTest::newRow("bert head missing") << "bert_mlm"
                                       << "drop:cls.predictions.transform.dense.weight"
                                       << QStringList{"'cls.predictions.transform.dense.weight' is missing"};
    QTest::newRow("unsupported type") << "llama"
                                      << "config:model_type=falcon"
                                      << QStringList{"falcon", "gpt2", "llama", "mistral", "qwen2", "bert"};
}

void TestArchGolden::badFolders() {
    QFETCH(QString, arch);
    QFETCH(QString, breakage);
    QFETCH(QStringList, expected);
    QTemporaryDir tmp;
    const fs::path dir = copyModel(tmp, golden(arch));
    const std::string what = breakage.section(':', 0, 0).toStdString(), arg = breakage.section(':', 1).toStdString();
    auto editWeights = [&](const std::function<void(std::map<std::string, torch::Tensor>&)>& f) {
        auto all = loadSafetensors(golden(arch) / "model.safetensors");
        f(all);
        std::vector<NamedTensor> v;
        for (const auto& [k, t] : all) v.push_back({k, t});
        saveSafetensors(dir / "model.safetensors", v);
    };
    auto config = readJson(dir / "config.json");
    if (what == "config") {
        const auto key = arg.substr(0, arg.find('=')), value = arg.substr(arg.find('=') + 1);
        config[key] = nlohmann::json::accept(value) ? nlohmann::json::parse(value) : nlohmann::json(value);
        if (key == "num_labels") config.erase("id2label");
    }
    if (what == "rope") config["rope_scaling"] = {{"rope_type", arg}, {"factor", 2.0}};
    writeFileAtomic(dir / "config.json", config.dump(2));
    if (what == "drop") editWeights([&](auto& m) { m.erase(arg); });
    if (what == "shape") editWeights([&](auto& m) { m[arg] = torch::zeros({32}); });
    try {
        loadPretrainedModel(dir, {});
        QFAIL("expected fts::Error");
    } catch (const Error& e) {
        const QString msg = QString::fromUtf8(e.what());
        for (const QString& frag : expected)
            QVERIFY2(msg.contains(frag), qPrintable("missing '" + frag + "' in: " + msg));
    }
}

void TestArchGolden::classifierInitialisedFromBaseCheckpoint() {
    // The masked-LM checkpoint loaded for classification: encoder from the file, classifier fresh (as transformers).
    QTemporaryDir tmp;
    const fs::path dir = copyModel(tmp, golden("bert_mlm"));
    auto config = readJson(dir / "config.json");
    config["architectures"] = {"BertForSequenceClassification"};
    config["num_labels"] = 2;
    writeFileAtomic(dir / "config.json", config.dump(2));
    auto all = loadSafetensors(golden("bert_mlm") / "model.safetensors");
    std::vector<NamedTensor> v;
    for (const auto& [k, t] : all) v.push_back({k, t});
    v.push_back({"bert.pooler.dense.weight", torch::zeros({64, 64})});
    v.push_back({"bert.pooler.dense.bias", torch::zeros({64})});
    saveSafetensors(dir / "model.safetensors", v);
    auto model = loadPretrainedModel(dir, {});
    QCOMPARE(model->info().task, ModelTask::SequenceClassification);
    QString warnings;
    for (const auto& w : model->info().loadWarnings) warnings += QString::fromStdString(w) + "\n";
    QVERIFY2(warnings.contains("'classifier.weight' is not in the checkpoint"), qPrintable(warnings));
    QVERIFY2(warnings.contains("cls.predictions.bias"), qPrintable(warnings));  // unused MLM head reported
    const auto& cw = model->parameters()[model->parameters().size() - 2];
    QCOMPARE(cw.name, std::string("classifier.weight"));
    QVERIFY(std::fabs(cw.tensor.std().item<double>() - 0.1) < 0.03);  // initializer_range 0.1
    QVERIFY(torch::equal(model->parameters()[0].tensor, all.at("bert.embeddings.word_embeddings.weight")));
}

QTEST_APPLESS_MAIN(TestArchGolden)
#include "test_arch_golden.moc"
