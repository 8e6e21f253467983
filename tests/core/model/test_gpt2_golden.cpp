// GPT-2 against transformers' golden numerics (logits, every gradient, loss before/after one AdamW step), plus
// init/save/load round trips, sharded and base-model checkpoints, autocast bf16, and broken model folders.
#include <QTemporaryDir>
#include <QtTest>

#include <ATen/autocast_mode.h>

#include <cmath>
#include <functional>
#include <fstream>

#include "core/model/debug_forward.h"
#include "core/model/gpt2.h"
#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

const fs::path kGolden = fs::path(FTS_TEST_DATA_DIR) / "models" / "gpt2";

double relL2(const torch::Tensor& got, const torch::Tensor& ref) {
    auto g = got.to(torch::kFloat64), r = ref.to(torch::kFloat64);
    double denom = r.norm().item<double>();
    return (g - r).norm().item<double>() / (denom > 0 ? denom : 1.0);
}

double maxAbs(const torch::Tensor& got, const torch::Tensor& ref) {
    return (got.to(torch::kFloat64) - ref.to(torch::kFloat64)).abs().max().item<double>();
}

struct Batch {
    torch::Tensor inputIds, attentionMask, labels;
};
Batch goldenBatch() {
    auto t = loadSafetensors(kGolden / "inputs.safetensors");
    return {t.at("input_ids"), t.at("attention_mask"), t.at("labels")};
}

// A copy of the golden model folder (config.json + model.safetensors) that a test may then break.
fs::path copyModel(const QTemporaryDir& tmp, const std::string& name = "model") {
    fs::path dir = fs::path(tmp.path().toStdString()) / name;
    fs::create_directories(dir);
    fs::copy_file(kGolden / "config.json", dir / "config.json");
    fs::copy_file(kGolden / "model.safetensors", dir / "model.safetensors");
    return dir;
}

nlohmann::json readJson(const fs::path& p) { return nlohmann::json::parse(readFile(p)); }
void writeJson(const fs::path& p, const nlohmann::json& j) { writeFileAtomic(p, j.dump(2)); }

std::vector<NamedTensor> toNamed(const std::map<std::string, torch::Tensor>& m) {
    std::vector<NamedTensor> v;
    for (const auto& [k, t] : m) v.push_back({k, t});
    return v;
}

torch::Tensor logitsOf(LanguageModel& model, const Batch& b) {
    torch::NoGradGuard noGrad;
    return model.forward(b.inputIds, b.attentionMask);
}

ModelLoadOptions noDropout() {
    ModelLoadOptions o;
    o.disableDropout = true;
    return o;
}

}  // namespace

class TestGpt2Golden : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void goldenDebugForward();
    void parametersInHfOrder();
    void paddingMatchesUnpaddedRow();
    void leftPaddingStaysFinite();
    void initIsSeededAndFollowsHfRules();
    void initSaveLoadRoundTrip();
    void saveBf16();
    void shardedCheckpoint();
    void baseModelCheckpointAndExtras();
    void untiedHead();
    void attentionOptions();
    void autocastBf16();
    void dropoutInTrainMode();
    void badModelFolders_data();
    void badModelFolders();
};

void TestGpt2Golden::initTestCase() {
    QVERIFY2(fs::exists(kGolden / "outputs.safetensors"), "golden fixtures missing from tests/data/models/gpt2");
    torch::set_num_threads(1);  // the reference was produced single-threaded; keeps reductions close
}

void TestGpt2Golden::goldenDebugForward() {
    QTemporaryDir tmp;
    const fs::path out = fs::path(tmp.path().toStdString()) / "outputs.safetensors";
    const nlohmann::json result = debugForward(kGolden, kGolden / "inputs.safetensors", out);
    const nlohmann::json expected = readJson(kGolden / "expected.json");

    const double loss = result.at("loss").get<double>(), lossAfter = result.at("loss_after_step").get<double>();
    QVERIFY2(
        std::fabs(loss - expected.at("loss").get<double>()) <= 1e-5,
        qPrintable(QString("loss %1 vs %2").arg(loss, 0, 'g', 10).arg(expected.at("loss").get<double>(), 0, 'g', 10)));
    QVERIFY2(std::fabs(lossAfter - expected.at("loss_after_step").get<double>()) <= 1e-5,
             qPrintable(QString("loss_after_step %1 vs %2")
                            .arg(lossAfter, 0, 'g', 10)
                            .arg(expected.at("loss_after_step").get<double>(), 0, 'g', 10)));
    QVERIFY(lossAfter < loss);  // the step must actually move the model
    qInfo("loss diff %.3g, loss_after_step diff %.3g", loss - expected.at("loss").get<double>(),
          lossAfter - expected.at("loss_after_step").get<double>());

    auto ours = loadSafetensors(out);
    auto ref = loadSafetensors(kGolden / "outputs.safetensors");
    QCOMPARE(ours.size(), ref.size());  // logits + one grad per parameter
    const auto& logits = ours.at("logits");
    QCOMPARE(logits.sizes().vec(), ref.at("logits").sizes().vec());
    QVERIFY2(maxAbs(logits, ref.at("logits")) <= 1e-4, qPrintable(QString::number(maxAbs(logits, ref.at("logits")))));
    QVERIFY2(relL2(logits, ref.at("logits")) <= 1e-5, qPrintable(QString::number(relL2(logits, ref.at("logits")))));
    double worstGrad = 0;
    for (const auto& [name, g] : ref) {
        if (name == "logits") continue;
        QVERIFY2(ours.count(name), name.c_str());
        const auto& mine = ours.at(name);
        QCOMPARE(mine.sizes().vec(), g.sizes().vec());
        const double err = relL2(mine, g);
        QVERIFY2(err <= 1e-4, qPrintable(QString::fromStdString(name) + " rel L2 " + QString::number(err)));
        worstGrad = std::max(worstGrad, err);
        // and against the norms recorded in expected.json (independent of outputs.safetensors)
        const double norm = expected.at("grad_l2_norms").at(name.substr(5)).get<double>();
        QVERIFY2(std::fabs(mine.to(torch::kFloat64).norm().item<double>() - norm) <= 1e-4 * std::max(1.0, norm),
                 name.c_str());
    }
    qInfo("logits max|diff| %.3g rel L2 %.3g; worst gradient rel L2 %.3g", maxAbs(logits, ref.at("logits")),
          relL2(logits, ref.at("logits")), worstGrad);
}

void TestGpt2Golden::parametersInHfOrder() {
    auto model = loadPretrainedModel(kGolden, {});
    // expected.json lists gradients in model.named_parameters() order.
    const auto expected = nlohmann::ordered_json::parse(readFile(kGolden / "expected.json"));
    std::vector<std::string> hfOrder;
    for (auto it = expected.at("grad_l2_norms").begin(); it != expected.at("grad_l2_norms").end(); ++it)
        hfOrder.push_back(it.key());
    std::vector<std::string> ours;
    int64_t count = 0;
    for (const auto& p : model->parameters()) {
        ours.push_back(p.name);
        QVERIFY(p.tensor.is_leaf());
        QVERIFY(p.tensor.requires_grad());
        QCOMPARE(p.tensor.scalar_type(), torch::kFloat32);
        count += p.tensor.numel();
    }
    QCOMPARE(ours, hfOrder);
    const auto& info = model->info();
    QCOMPARE(info.modelType, std::string("gpt2"));
    QCOMPARE(info.architecture, std::string("GPT2LMHeadModel"));
    QVERIFY(info.tiedEmbeddings);
    QCOMPARE(info.numParameters, count);
    QCOMPARE(info.hiddenSize, int64_t(64));
    QCOMPARE(info.numLayers, int64_t(2));
    QCOMPARE(info.vocabSize, int64_t(1000));
    QVERIFY(info.loadWarnings.empty());
}

void TestGpt2Golden::paddingMatchesUnpaddedRow() {
    // Row 1 of the golden batch is right-padded: its real tokens' logits must equal a run on those tokens alone.
    auto model = loadPretrainedModel(kGolden, noDropout());
    Batch b = goldenBatch();
    auto full = logitsOf(*model, b);
    const int64_t real = b.attentionMask[1].sum().item<int64_t>();
    QVERIFY(real < b.inputIds.size(1));
    auto alone = logitsOf(*model, {b.inputIds.slice(0, 1, 2).slice(1, 0, real), {}, {}});
    QVERIFY(maxAbs(full.slice(0, 1, 2).slice(1, 0, real), alone) < 1e-5);
    // An all-ones mask is the same as no mask.
    auto ones = model->forward(b.inputIds, torch::ones_like(b.attentionMask));
    QVERIFY(maxAbs(ones, model->forward(b.inputIds, {})) < 1e-6);
}

void TestGpt2Golden::leftPaddingStaysFinite() {
    auto model = loadPretrainedModel(kGolden, noDropout());
    Batch b = goldenBatch();
    auto mask = torch::ones_like(b.attentionMask);
    mask.index_put_({0, torch::indexing::Slice(0, 4)}, 0);  // left padding: the first queries see only padding
    auto labels = b.labels.clone();
    labels.index_put_({0, torch::indexing::Slice(0, 4)}, -100);
    auto logits = model->forward(b.inputIds, mask);
    QVERIFY(torch::isfinite(logits).all().item<bool>());
    auto loss = model->loss(logits, labels);
    loss.backward();
    QVERIFY(std::isfinite(loss.item<double>()));
    for (auto& p : model->parameters()) QVERIFY2(torch::isfinite(p.tensor.grad()).all().item<bool>(), p.name.c_str());
}

void TestGpt2Golden::initIsSeededAndFollowsHfRules() {
    auto a = initModelFromConfig(kGolden / "config.json", 42, {});
    auto b = initModelFromConfig(kGolden / "config.json", 42, {});
    auto c = initModelFromConfig(kGolden / "config.json", 43, {});
    const double range = 0.1;  // initializer_range in the golden config
    const int64_t layers = 2;
    for (size_t i = 0; i < a->parameters().size(); ++i) {
        const auto& name = a->parameters()[i].name;
        const auto& t = a->parameters()[i].tensor;
        QVERIFY2(torch::equal(t, b->parameters()[i].tensor), name.c_str());
        const bool isLn = name.find(".ln_") != std::string::npos;
        if (name.ends_with(".bias")) {
            QVERIFY2(t.eq(0).all().item<bool>(), name.c_str());
        } else if (isLn) {
            QVERIFY2(t.eq(1).all().item<bool>(), name.c_str());
        } else {
            QVERIFY2(!torch::equal(t, c->parameters()[i].tensor), name.c_str());
            const double sd = t.std().item<double>();
            const double want = name.ends_with("c_proj.weight") ? range / std::sqrt(2.0 * layers) : range;
            QVERIFY2(std::fabs(sd - want) < 0.1 * want,
                     qPrintable(QString::fromStdString(name) + " std " + QString::number(sd)));
            QVERIFY(std::fabs(t.mean().item<double>()) < 0.1 * want);
        }
    }
}

void TestGpt2Golden::initSaveLoadRoundTrip() {
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "saved";
    auto model = initModelFromConfig(kGolden / "config.json", 7, noDropout());
    Batch b = goldenBatch();
    auto before = logitsOf(*model, b);
    saveHfModel(*model, dir, torch::kFloat32);

    auto file = SafetensorsFile::open(dir / "model.safetensors");
    QCOMPARE(file->metadata().at("format"), std::string("pt"));
    QVERIFY(file->find("lm_head.weight") == nullptr);  // tied head left out, as save_pretrained does
    QCOMPARE(file->tensors().size(), model->parameters().size());
    auto config = readJson(dir / "config.json");
    QCOMPARE(config.at("torch_dtype").get<std::string>(), std::string("float32"));
    QCOMPARE(config.at("architectures")[0].get<std::string>(), std::string("GPT2LMHeadModel"));
    QCOMPARE(config.at("n_inner").get<int>(), 128);  // the original keys are kept

    auto loaded = loadPretrainedModel(dir, noDropout());
    QVERIFY(torch::equal(logitsOf(*loaded, b), before));
    for (size_t i = 0; i < model->parameters().size(); ++i)
        QVERIFY(torch::equal(model->parameters()[i].tensor, loaded->parameters()[i].tensor));
    // Saving again over an existing folder replaces it atomically (no temporary files left).
    saveHfModel(*loaded, dir, torch::kFloat32);
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
    QCOMPARE(files, 2);
}

void TestGpt2Golden::saveBf16() {
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "bf16";
    auto model = loadPretrainedModel(kGolden, {});
    saveHfModel(*model, dir, torch::kBFloat16);
    QCOMPARE(readJson(dir / "config.json").at("torch_dtype").get<std::string>(), std::string("bfloat16"));
    auto file = SafetensorsFile::open(dir / "model.safetensors");
    for (const auto& e : file->tensors()) QCOMPARE(e.dtype, SafetensorsDtype::BF16);
    // Loaded into bf16 parameters directly, and into float32 (conversion on load).
    ModelLoadOptions bf;
    bf.dtype = torch::kBFloat16;
    auto asBf16 = loadPretrainedModel(dir, bf);
    auto asF32 = loadPretrainedModel(dir, {});
    for (size_t i = 0; i < model->parameters().size(); ++i) {
        const auto& orig = model->parameters()[i].tensor;
        QCOMPARE(asBf16->parameters()[i].tensor.scalar_type(), torch::kBFloat16);
        QVERIFY(torch::equal(asBf16->parameters()[i].tensor, orig.to(torch::kBFloat16)));
        QVERIFY(torch::equal(asF32->parameters()[i].tensor, orig.to(torch::kBFloat16).to(torch::kFloat32)));
    }
    Batch b = goldenBatch();
    auto l16 = logitsOf(*asBf16, b);
    QCOMPARE(l16.scalar_type(), torch::kBFloat16);
    QVERIFY(relL2(l16, logitsOf(*model, b)) < 3e-2);
}

void TestGpt2Golden::shardedCheckpoint() {
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "sharded";
    fs::create_directories(dir);
    fs::copy_file(kGolden / "config.json", dir / "config.json");
    auto all = loadSafetensors(kGolden / "model.safetensors");
    std::vector<NamedTensor> s1, s2;
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    for (const auto& [name, t] : all) {
        const bool first = name.find(".h.1.") == std::string::npos;
        (first ? s1 : s2).push_back({name, t});
        index["weight_map"][name] = first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    }
    saveSafetensors(dir / "model-00001-of-00002.safetensors", s1);
    saveSafetensors(dir / "model-00002-of-00002.safetensors", s2);
    writeJson(dir / "model.safetensors.index.json", index);

    Batch b = goldenBatch();
    auto sharded = loadPretrainedModel(dir, noDropout());
    auto single = loadPretrainedModel(kGolden, noDropout());
    QVERIFY(torch::equal(logitsOf(*sharded, b), logitsOf(*single, b)));

    // A missing shard is named.
    fs::remove(dir / "model-00002-of-00002.safetensors");
    try {
        loadPretrainedModel(dir, {});
        QFAIL("expected an error for the missing shard");
    } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains("model-00002-of-00002.safetensors"), e.what());
    }
}

void TestGpt2Golden::baseModelCheckpointAndExtras() {
    // GPT2Model-style names (no "transformer." prefix) plus the attn.bias buffers old checkpoints carry.
    QTemporaryDir tmp;
    const fs::path dir = copyModel(tmp);
    auto all = loadSafetensors(kGolden / "model.safetensors");
    std::vector<NamedTensor> base;
    for (const auto& [name, t] : all) base.push_back({name.substr(std::string("transformer.").size()), t});
    base.push_back({"h.0.attn.bias", torch::ones({1, 1, 128, 128}).tril()});
    base.push_back({"h.0.attn.masked_bias", torch::tensor(-1e4f)});
    base.push_back({"lm_head.weight", all.at("transformer.wte.weight")});
    saveSafetensors(dir / "model.safetensors", base);
    Batch b = goldenBatch();
    auto model = loadPretrainedModel(dir, noDropout());
    QVERIFY(model->info().loadWarnings.empty());
    QVERIFY(torch::equal(logitsOf(*model, b), logitsOf(*loadPretrainedModel(kGolden, noDropout()), b)));

    // A tensor the model does not use: a warning, or an error under strict loading.
    base.push_back({"score.weight", torch::zeros({3, 64})});
    saveSafetensors(dir / "model.safetensors", base);
    auto warned = loadPretrainedModel(dir, {});
    QCOMPARE(warned->info().loadWarnings.size(), size_t(1));
    QVERIFY(QString::fromStdString(warned->info().loadWarnings[0]).contains("score.weight"));
    ModelLoadOptions strict;
    strict.strict = true;
    try {
        loadPretrainedModel(dir, strict);
        QFAIL("expected an error for the unexpected tensor");
    } catch (const FormatError& e) {
        QVERIFY2(QString(e.what()).contains("score.weight"), e.what());
    }
}

void TestGpt2Golden::untiedHead() {
    QTemporaryDir tmp;
    const fs::path dir = copyModel(tmp);
    auto config = readJson(dir / "config.json");
    config["tie_word_embeddings"] = false;
    writeJson(dir / "config.json", config);
    try {  // the golden file has no lm_head.weight
        loadPretrainedModel(dir, {});
        QFAIL("expected lm_head.weight to be reported missing");
    } catch (const FormatError& e) {
        QVERIFY2(QString(e.what()).contains("'lm_head.weight' is missing"), e.what());
    }
    auto all = loadSafetensors(kGolden / "model.safetensors");
    all["lm_head.weight"] = all.at("transformer.wte.weight").flip(0).contiguous();
    saveSafetensors(dir / "model.safetensors", toNamed(all));
    auto model = loadPretrainedModel(dir, noDropout());
    QCOMPARE(model->parameters().back().name, std::string("lm_head.weight"));
    QVERIFY(!model->info().tiedEmbeddings);
    Batch b = goldenBatch();
    auto logits = logitsOf(*model, b);
    // The head really is lm_head: logits over a flipped vocabulary from the tied model's hidden states.
    auto tied = loadPretrainedModel(kGolden, noDropout());
    QVERIFY(maxAbs(logits, logitsOf(*tied, b).flip(-1)) < 1e-4);
    // Saved untied: lm_head.weight is written.
    saveHfModel(*model, fs::path(tmp.path().toStdString()) / "untied_saved", torch::kFloat32);
    QVERIFY(SafetensorsFile::open(fs::path(tmp.path().toStdString()) / "untied_saved" / "model.safetensors")
                ->find("lm_head.weight"));
}

void TestGpt2Golden::attentionOptions() {
    QTemporaryDir tmp;
    Batch b = goldenBatch();
    auto ref = logitsOf(*loadPretrainedModel(kGolden, noDropout()), b);
    int n = 0;
    auto variant = [&](const char* key, const nlohmann::json& value) {
        const fs::path dir = copyModel(tmp, std::string(key) + std::to_string(n++));
        auto config = readJson(dir / "config.json");
        config[key] = value;
        writeJson(dir / "config.json", config);
        return logitsOf(*loadPretrainedModel(dir, noDropout()), b);
    };
    // Upcast/reorder is the same math in float32.
    QVERIFY(maxAbs(variant("reorder_and_upcast_attn", true), ref) < 1e-5);
    // These change the function: the config keys must be honoured.
    QVERIFY(maxAbs(variant("scale_attn_by_inverse_layer_idx", true), ref) > 1e-3);
    QVERIFY(maxAbs(variant("scale_attn_weights", false), ref) > 1e-3);
    QVERIFY(maxAbs(variant("activation_function", "relu"), ref) > 1e-3);
    QVERIFY(maxAbs(variant("layer_norm_epsilon", 0.5), ref) > 1e-3);
    // gelu_pytorch_tanh is gelu_new's formula.
    QVERIFY(maxAbs(variant("activation_function", "gelu_pytorch_tanh"), ref) < 1e-5);
}

void TestGpt2Golden::autocastBf16() {
    auto model = loadPretrainedModel(kGolden, noDropout());
    Batch b = goldenBatch();
    auto ref = logitsOf(*model, b);
    at::autocast::set_autocast_enabled(at::kCPU, true);
    at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
    torch::Tensor logits, loss;
    try {
        logits = model->forward(b.inputIds, b.attentionMask);
        loss = model->loss(logits, b.labels);
    } catch (...) {
        at::autocast::set_autocast_enabled(at::kCPU, false);
        throw;
    }
    at::autocast::set_autocast_enabled(at::kCPU, false);
    at::autocast::clear_cache();
    QCOMPARE(logits.scalar_type(), torch::kBFloat16);
    QCOMPARE(loss.scalar_type(), torch::kFloat32);
    QVERIFY2(relL2(logits, ref) < 2e-2, qPrintable(QString::number(relL2(logits, ref))));
    loss.backward();
    for (auto& p : model->parameters()) {
        QVERIFY2(p.tensor.grad().defined(), p.name.c_str());
        QCOMPARE(p.tensor.grad().scalar_type(), torch::kFloat32);  // fp32 master params get fp32 grads
        QVERIFY2(torch::isfinite(p.tensor.grad()).all().item<bool>(), p.name.c_str());
    }
    const double expected = readJson(kGolden / "expected.json").at("loss").get<double>();
    QVERIFY(std::fabs(loss.item<double>() - expected) < 0.05);
}

void TestGpt2Golden::dropoutInTrainMode() {
    QTemporaryDir tmp;
    const fs::path dir = copyModel(tmp);
    auto config = readJson(dir / "config.json");
    config["resid_pdrop"] = 0.3;
    config["embd_pdrop"] = 0.3;
    config["attn_pdrop"] = 0.3;
    writeJson(dir / "config.json", config);
    Batch b = goldenBatch();
    auto model = loadPretrainedModel(dir, {});
    torch::manual_seed(1);
    auto t1 = logitsOf(*model, b);
    auto t2 = logitsOf(*model, b);
    QVERIFY(maxAbs(t1, t2) > 1e-3);  // train mode: random masks
    model->setTraining(false);
    auto e1 = logitsOf(*model, b);
    QVERIFY(maxAbs(e1, logitsOf(*model, b)) == 0.0);
    QVERIFY(maxAbs(e1, logitsOf(*loadPretrainedModel(kGolden, {}), b)) < 1e-6);  // eval == no dropout
    auto off = loadPretrainedModel(dir, noDropout());                            // disableDropout wins over the config
    QVERIFY(maxAbs(logitsOf(*off, b), e1) < 1e-6);
}

void TestGpt2Golden::badModelFolders_data() {
    QTest::addColumn<QString>("breakage");
    QTest::addColumn<QStringList>("expected");  // fragments the message must contain
    QTest::newRow("missing config.json") << "no_config" << QStringList{"config.json", "not found"};
    QTest::newRow("config not JSON") << "config_garbage" << QStringList{"config.json", "not valid JSON"};
    QTest::newRow("missing model.safetensors") << "no_weights" << QStringList{"model.safetensors"};
    QTest::newRow("pytorch_model.bin only") << "bin_only" << QStringList{"pytorch_model.bin", "safetensors"};
    QTest::newRow("tensor missing") << "drop_tensor"
                                    << QStringList{"'transformer.h.1.mlp.c_fc.bias' is missing", "[128]"};
    QTest::newRow("wrong shape") << "wrong_shape"
                                 << QStringList{"'transformer.wpe.weight'", "expected shape [128, 64]",
                                                "found [64, 64]"};
    QTest::newRow("integer weights") << "int_tensor" << QStringList{"'transformer.ln_f.bias'", "I64"};
    QTest::newRow("unknown model_type") << "model_type" << QStringList{"\"model_type\"", "gpt5", "gpt2"};
    QTest::newRow("missing model_type") << "no_model_type" << QStringList{"\"model_type\"", "missing", "gpt2"};
    QTest::newRow("n_embd contradicts weights")
        << "n_embd" << QStringList{"'transformer.wte.weight'", "vocab_size x n_embd", "[1000, 32]", "found [1000, 64]"};
    QTest::newRow("n_layer contradicts weights")
        << "n_layer" << QStringList{"'transformer.h.2.ln_1.weight' is missing"};
    QTest::newRow("n_head does not divide n_embd") << "n_head" << QStringList{"\"n_head\"", "divisible"};
    QTest::newRow("unknown activation") << "activation"
                                        << QStringList{"\"activation_function\"", "swiglu_x", "gelu_new"};
    QTest::newRow("n_embd not an integer") << "n_embd_string" << QStringList{"\"n_embd\"", "integer"};
    QTest::newRow("cross attention") << "cross_attention" << QStringList{"\"add_cross_attention\""};
    QTest::newRow("truncated weights") << "truncated" << QStringList{"model.safetensors", "beyond the data buffer"};
    QTest::newRow("not a folder") << "not_a_folder" << QStringList{"not a directory"};
}

void TestGpt2Golden::badModelFolders() {
    QFETCH(QString, breakage);
    QFETCH(QStringList, expected);
    QTemporaryDir tmp;
    fs::path dir = copyModel(tmp);
    const std::string what = breakage.toStdString();
    auto editConfig = [&](const std::function<void(nlohmann::json&)>& f) {
        auto c = readJson(dir / "config.json");
        f(c);
        writeJson(dir / "config.json", c);
    };
    auto editWeights = [&](const std::function<void(std::map<std::string, torch::Tensor>&)>& f) {
        auto all = loadSafetensors(kGolden / "model.safetensors");
        f(all);
        saveSafetensors(dir / "model.safetensors", toNamed(all));
    };
    if (what == "no_config") fs::remove(dir / "config.json");
    if (what == "config_garbage") writeFileAtomic(dir / "config.json", "{\"model_type\": \"gpt2\",");
    if (what == "no_weights") fs::remove(dir / "model.safetensors");
    if (what == "bin_only") {
        fs::remove(dir / "model.safetensors");
        writeFileAtomic(dir / "pytorch_model.bin", "x");
    }
    if (what == "drop_tensor") editWeights([](auto& m) { m.erase("transformer.h.1.mlp.c_fc.bias"); });
    if (what == "wrong_shape") editWeights([](auto& m) { m["transformer.wpe.weight"] = torch::zeros({64, 64}); });
    if (what == "int_tensor")
        editWeights([](auto& m) { m["transformer.ln_f.bias"] = torch::zeros({64}, torch::kInt64); });
    if (what == "model_type") editConfig([](auto& c) { c["model_type"] = "gpt5"; });
    if (what == "no_model_type") editConfig([](auto& c) { c.erase("model_type"); });
    if (what == "n_embd") editConfig([](auto& c) { c["n_embd"] = 32; });
    if (what == "n_layer") editConfig([](auto& c) { c["n_layer"] = 3; });
    if (what == "n_head") editConfig([](auto& c) { c["n_head"] = 5; });
    if (what == "activation") editConfig([](auto& c) { c["activation_function"] = "swiglu_x"; });
    if (what == "n_embd_string") editConfig([](auto& c) { c["n_embd"] = "64"; });
    if (what == "cross_attention") editConfig([](auto& c) { c["add_cross_attention"] = true; });
    if (what == "truncated") fs::resize_file(dir / "model.safetensors", fs::file_size(dir / "model.safetensors") - 100);
    if (what == "not_a_folder") dir = dir / "config.json";
    try {
        loadPretrainedModel(dir, {});
        QFAIL("expected fts::Error");
    } catch (const Error& e) {
        const QString msg = QString::fromUtf8(e.what());
        for (const QString& frag : expected)
            QVERIFY2(msg.contains(frag), qPrintable("missing '" + frag + "' in: " + msg));
    }
}

QTEST_APPLESS_MAIN(TestGpt2Golden)
#include "test_gpt2_golden.moc"
