// Every decoder family of core/arch (decoderFamilies(): a new entry is covered by adding it, and fails here until
// tests/data/models/scripts/family_reference.py has a case for it) against transformers 5.23 running in the venv at
// test time: fp32 logits of a padded batch within 1e-4, the loss, every parameter's gradient within 1e-4 relative,
// the loss after one AdamW step,
// a packed row's logits (block-diagonal attention from position ids), greedy generation with the KV cache token for
// token, the cached forward equal to the full forward at each step; the parameter names and count equal
// transformers' named_parameters(), and the resolved tensor list (core/arch) sums to num_parameters(); each family's
// defaults (a config.json naming only its model_type) equal its config class's. Every family's gradients again with
// activation checkpointing (the mixtures of experts' load-balancing loss included); a gpt-oss folder with MXFP4
// experts; a mixture of experts' bad input.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <functional>

#include "core/arch/decoder_arch.h"
#include "core/config/model_shape.h"
#include "core/generate/generator.h"
#include "core/model/cached_decoder.h"
#include "core/model/hf_model.h"
#include "core/model/safetensors_torch.h"
#include "core/optim/adamw.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

const QString kScript =
    QString::fromStdString((fs::path(FTS_TEST_DATA_DIR) / "models" / "scripts" / "family_reference.py").string());

double relL2(const torch::Tensor& got, const torch::Tensor& ref) {
    auto g = got.to(torch::kFloat64), r = ref.to(torch::kFloat64);
    return (g - r).norm().item<double>() / std::max(r.norm().item<double>(), 1e-30);
}
double maxAbs(const torch::Tensor& got, const torch::Tensor& ref) {
    return (got.to(torch::kFloat64) - ref.to(torch::kFloat64)).abs().max().item<double>();
}

}  // namespace

class TestDecoderFamiliesGolden : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void everyFamilyHasACase();
    void parity_data();
    void parity();
    void packedAndGenerate_data() { parity_data(); }
    void packedAndGenerate();
    void unknownFamilyListsTheSupported();
    void gemma3VisionLanguageFolder();
    void gptOssMxfp4Folder();
    void badMixtureOfExperts();
    void defaultsEqualTheConfigClasses_data() { parity_data(); }
    void defaultsEqualTheConfigClasses();

private:
    QTemporaryDir m_tmp;
    fs::path m_root;
};

void TestDecoderFamiliesGolden::initTestCase() {
    torch::set_num_threads(1);
    QVERIFY(m_tmp.isValid());
    m_root = fs::path(m_tmp.path().toStdString());
    QProcess p;
    p.setProgram(QString::fromUtf8(FTS_TEST_PYTHON));
    p.setArguments({kScript, "make", QString::fromStdString(m_root.string())});
    p.start();
    QVERIFY2(p.waitForFinished(300000), "family_reference.py did not finish");
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
             p.readAllStandardError().right(4000).constData());
}

void TestDecoderFamiliesGolden::everyFamilyHasACase() {
    for (const auto& f : decoderFamilies())
        QVERIFY2(fs::exists(m_root / std::string(f.modelType) / "reference.json"),
                 qPrintable("no reference case for the family " + QString::fromStdString(std::string(f.modelType))));
}

void TestDecoderFamiliesGolden::parity_data() {
    QTest::addColumn<QString>("family");
    for (const auto& f : decoderFamilies())
        QTest::newRow(std::string(f.modelType).c_str()) << QString::fromStdString(std::string(f.modelType));
}

void TestDecoderFamiliesGolden::parity() {
    QFETCH(QString, family);
    const fs::path dir = m_root / family.toStdString();
    const auto in = loadSafetensors(dir / "inputs.safetensors");
    const auto ref = loadSafetensors(dir / "reference.safetensors");
    const auto refJson = nlohmann::json::parse(readFile(dir / "reference.json"));
    ModelLoadOptions opts;
    opts.disableDropout = true;
    opts.strict = true;
    auto model = loadPretrainedModel(dir, opts);

    // Names in transformers' order, and the count; the torch-free shape (the estimate's) agrees.
    std::vector<std::string> names;
    for (const auto& p : model->parameters()) names.push_back(p.name);
    QCOMPARE(names, refJson.at("parameter_names").get<std::vector<std::string>>());
    QCOMPARE(model->info().numParameters, refJson.at("num_parameters").get<int64_t>());
    QCOMPARE(readModelShape(dir).numParameters(), refJson.at("num_parameters").get<int64_t>());

    const torch::Tensor logits = model->forward(in.at("input_ids"), in.at("attention_mask"));
    const torch::Tensor loss = model->loss(logits, in.at("labels"));
    loss.backward();
    const double ma = maxAbs(logits.detach(), ref.at("logits")), rl = relL2(logits.detach(), ref.at("logits"));
    qInfo("%s: logits max|diff| %.3g relL2 %.3g, loss diff %.3g", qPrintable(family), ma, rl,
          loss.item<double>() - refJson.at("loss").get<double>());
    QVERIFY2(ma <= 1e-4, qPrintable(QString::number(ma)));
    QVERIFY2(std::fabs(loss.item<double>() - refJson.at("loss").get<double>()) <= 1e-5, "loss");
    double worst = 0;
    std::string worstName;
    for (const auto& p : model->parameters()) {
        QVERIFY2(p.tensor.grad().defined(), p.name.c_str());
        const double g = relL2(p.tensor.grad(), ref.at("grad." + p.name));
        if (g > worst) worst = g, worstName = p.name;
    }
    qInfo("%s: worst gradient relL2 %.3g (%s)", qPrintable(family), worst, worstName.c_str());
    QVERIFY2(worst <= 1e-4, qPrintable(QString::fromStdString(worstName) + " " + QString::number(worst)));
    // The same gradients with activation checkpointing (blocks replayed in backward; a mixture of experts'
    // load-balancing loss reaches its routers through the replay).
    {
        auto replayed = loadPretrainedModel(dir, opts);
        replayed->setActivationCheckpointing(true);
        const torch::Tensor l =
            replayed->loss(replayed->forward(in.at("input_ids"), in.at("attention_mask")), in.at("labels"));
        l.backward();
        QVERIFY(std::fabs(l.item<double>() - loss.item<double>()) <= 1e-6);
        for (const auto& p : replayed->parameters()) {
            QVERIFY2(p.tensor.grad().defined(), p.name.c_str());
            const double g = relL2(p.tensor.grad(), ref.at("grad." + p.name));
            QVERIFY2(g <= 1e-4,
                     qPrintable("checkpointed: " + QString::fromStdString(p.name) + " " + QString::number(g)));
        }
    }

    // One step of our AdamW (torch's hyper-parameters), then the loss of the same batch equals transformers' after
    // torch.optim.AdamW's step.
    std::vector<torch::Tensor> params;
    for (const auto& p : model->parameters()) params.push_back(p.tensor);
    OptimizerConfig oc;
    oc.lr = 1e-2;
    oc.weightDecay = 0.01;
    AdamW opt(params, oc);
    opt.step(1e-2);
    const double after =
        model->loss(model->forward(in.at("input_ids"), in.at("attention_mask")), in.at("labels")).item<double>();
    const double want = refJson.at("loss_after_step").get<double>();
    qInfo("%s: loss after one AdamW step %.6f, transformers %.6f", qPrintable(family), after, want);
    QVERIFY2(std::fabs(after - want) <= 1e-5 * std::fabs(want), qPrintable(QString::number(after - want)));
}

void TestDecoderFamiliesGolden::packedAndGenerate() {
    QFETCH(QString, family);
    const fs::path dir = m_root / family.toStdString();
    const auto in = loadSafetensors(dir / "inputs.safetensors");
    const auto ref = loadSafetensors(dir / "reference.safetensors");
    const auto refJson = nlohmann::json::parse(readFile(dir / "reference.json"));
    auto model = loadPretrainedModel(dir, {});
    model->setTraining(false);
    torch::NoGradGuard noGrad;

    const torch::Tensor packed = model->forwardPacked(in.at("packed_ids"), in.at("position_ids"));
    const double pa = maxAbs(packed, ref.at("packed_logits"));
    qInfo("%s: packed logits max|diff| %.3g", qPrintable(family), pa);
    QVERIFY2(pa <= 1e-4, qPrintable(QString::number(pa)));

    const torch::Tensor prompt = in.at("prompt");
    std::vector<int64_t> promptIds(prompt.data_ptr<int64_t>(), prompt.data_ptr<int64_t>() + prompt.numel());
    GenerationOptions o;
    o.maxNewTokens = 14;  // 6 + 14 positions: past Phi-3's original length (16), where LongRoPE switches factors
    o.padTokenId = 0;
    const auto out = generate(*model, {promptIds}, o);
    QCOMPARE(out.at(0).ids, refJson.at("greedy").get<std::vector<int64_t>>());

    // The cached forward at each step equals the full forward over the sequence so far (with LongRoPE up to the
    // original length: past it transformers' full forward rotates every position with the long factors while the
    // cache keeps the keys rotated as they came, and so do we: the greedy tokens above cross it).
    auto* dec = dynamic_cast<CachedDecoder*>(model.get());
    QVERIFY(dec);
    const torch::Tensor ids = in.at("input_ids").narrow(0, 0, 1);
    const DecoderArch arch = resolveDecoderArch(HfConfig::load(dir / "config.json"));
    const int64_t T =
        arch.ropes[0].type == "longrope" ? std::min(ids.size(1), arch.ropes[0].originalMaxPositions) : ids.size(1);
    KvCache cache;
    for (int64_t t = 6; t <= T; ++t) {
        const int64_t from = t == 6 ? 0 : t - 1;
        const auto pos = torch::arange(from, t, torch::kInt64).unsqueeze(0);
        const auto got =
            dec->forwardCached(ids.narrow(1, from, t - from), pos, torch::ones({1, t}, torch::kInt64), cache);
        const auto want = model->forward(ids.narrow(1, 0, t), torch::Tensor()).select(1, t - 1);
        const double diff = maxAbs(got, want);
        QVERIFY2(diff < 1e-4, qPrintable(QString("step %1: max |diff| %2").arg(t).arg(diff)));
    }
}

void TestDecoderFamiliesGolden::unknownFamilyListsTheSupported() {
    try {
        resolveDecoderArch(HfConfig({{"model_type", "deepseek_v9"}}, "/m/config.json"));
        QFAIL("expected an error");
    } catch (const FormatError& e) {
        const QString what = e.what();
        QVERIFY2(what.contains("/m/config.json: key \"model_type\""), e.what());
        for (const auto& f : decoderFamilies())
            QVERIFY2(what.contains(QString::fromStdString(std::string(f.modelType))), e.what());
    }
    // An unsupported rope type names the key and lists the supported ones, before any weight is read.
    try {
        resolveDecoderArch(HfConfig({{"model_type", "qwen3"}, {"rope_scaling", {{"rope_type", "ntk"}, {"factor", 4}}}},
                                    "/m/config.json"));
        QFAIL("expected an error");
    } catch (const FormatError& e) {
        QVERIFY2(QString(e.what()).contains("key \"rope_scaling\"") && QString(e.what()).contains("longrope"),
                 e.what());
    }
}

// A Gemma3ForConditionalGeneration folder (model_type gemma3, a SigLIP tower): its language model loads and computes
// what transformers' vision-language model computes on text, the vision tower left out with one load warning; it
// exports as Gemma3ForCausalLM.
void TestDecoderFamiliesGolden::gemma3VisionLanguageFolder() {
    const fs::path dir = m_root / "gemma3_vlm";
    const auto in = loadSafetensors(dir / "inputs.safetensors");
    const auto ref = loadSafetensors(dir / "reference.safetensors");
    const auto refJson = nlohmann::json::parse(readFile(dir / "reference.json"));
    ModelLoadOptions opts;
    opts.disableDropout = true;
    opts.strict = true;  // the vision tensors are left out by name, not as unexpected ones
    auto model = loadPretrainedModel(dir, opts);
    QCOMPARE(model->info().modelType, std::string("gemma3_text"));
    QCOMPARE(model->info().numParameters, refJson.at("language_model_parameters").get<int64_t>());
    bool said = false;
    for (const auto& w : model->info().loadWarnings) said = said || w.find("vision tower") != std::string::npos;
    QVERIFY2(said, "a load warning says the vision tower is left out");
    torch::NoGradGuard noGrad;
    model->setTraining(false);
    const torch::Tensor logits = model->forward(in.at("input_ids"), in.at("attention_mask"));
    const double ma = maxAbs(logits, ref.at("logits"));
    qInfo("gemma3 (vision-language folder): logits max|diff| %.3g", ma);
    QVERIFY2(ma <= 1e-4, qPrintable(QString::number(ma)));
    QVERIFY(std::fabs(model->loss(logits, in.at("labels")).item<double>() - refJson.at("loss").get<double>()) <= 1e-5);
    QCOMPARE(model->info().hfConfig.at("model_type").get<std::string>(), std::string("gemma3_text"));
    QCOMPARE(readModelShape(dir).numParameters(), model->info().numParameters);
}

// A gpt-oss folder as released (MXFP4 experts, quantization_config mxfp4): the experts dequantize on load to the
// logits transformers computes from the folder (Mxfp4Config(dequantize=True)); the export is a plain folder that loads
// back to the same logits.
void TestDecoderFamiliesGolden::gptOssMxfp4Folder() {
    const fs::path dir = m_root / "gpt_oss_mxfp4";
    const auto in = loadSafetensors(dir / "inputs.safetensors");
    const auto ref = loadSafetensors(dir / "reference.safetensors");
    ModelLoadOptions opts;
    opts.strict = true;  // every _blocks and _scales tensor is used
    auto model = loadPretrainedModel(dir, opts);
    model->setTraining(false);
    torch::NoGradGuard noGrad;
    const torch::Tensor logits = model->forward(in.at("input_ids"), torch::Tensor());
    const double ma = maxAbs(logits, ref.at("logits"));
    qInfo("gpt-oss with MXFP4 experts: logits max|diff| %.3g", ma);
    QVERIFY2(ma <= 1e-4, qPrintable(QString::number(ma)));
    const fs::path exported = m_root / "gpt_oss_mxfp4_exported";
    saveHfModel(*model, exported, torch::kFloat32);
    QVERIFY(!nlohmann::json::parse(readFile(exported / "config.json")).contains("quantization_config"));
    auto back = loadPretrainedModel(exported, opts);
    back->setTraining(false);
    QCOMPARE(maxAbs(back->forward(in.at("input_ids"), torch::Tensor()), logits), 0.0);
}

// A mixture of experts' bad input names the key or tensor: a top-k above the experts, an expert missing from the
// checkpoint, an MXFP4 expert without its scales.
void TestDecoderFamiliesGolden::badMixtureOfExperts() {
    auto expectFormatError = [](const std::function<void()>& f, const QStringList& parts) {
        try {
            f();
            QFAIL("expected an error");
        } catch (const FormatError& e) {
            for (const QString& p : parts) QVERIFY2(QString(e.what()).contains(p), e.what());
        }
    };
    expectFormatError(
        [] {
            resolveDecoderArch(HfConfig({{"model_type", "qwen3_moe"}, {"num_experts", 4}, {"num_experts_per_tok", 6}},
                                        "/m/config.json"));
        },
        {"/m/config.json: key \"num_experts_per_tok\"", "at most num_experts = 4", "got 6"});
    // Mixtral saved by transformers (one tensor per expert): expert 2's w3 of layer 1 removed.
    auto copyWithout = [&](const std::string& from, const std::string& to, const std::string& drop) {
        const fs::path dir = m_root / to;
        fs::create_directories(dir);
        fs::copy_file(m_root / from / "config.json", dir / "config.json", fs::copy_options::overwrite_existing);
        auto tensors = loadSafetensors(m_root / from / "model.safetensors");
        if (tensors.erase(drop) != 1) throw std::runtime_error("no tensor " + drop + " in " + from);
        std::vector<NamedTensor> kept;
        for (auto& [name, t] : tensors) kept.push_back({name, t});
        saveSafetensors(dir / "model.safetensors", kept, {{"format", "pt"}});
        return dir;
    };
    const fs::path mixtral =
        copyWithout("mixtral", "mixtral_missing_expert", "model.layers.1.block_sparse_moe.experts.2.w3.weight");
    expectFormatError([&] { loadPretrainedModel(mixtral, {}); },
                      {"model.layers.1.mlp.experts.gate_up_proj", "model.layers.1.block_sparse_moe.experts.2.w3.weight",
                       "num_local_experts"});
    const fs::path mxfp4 =
        copyWithout("gpt_oss_mxfp4", "gpt_oss_no_scales", "model.layers.0.mlp.experts.down_proj_scales");
    expectFormatError([&] { loadPretrainedModel(mxfp4, {}); }, {"model.layers.0.mlp.experts.down_proj_scales"});
}

// config.json {"model_type": ...} alone: the description's defaults resolve to what transformers' config class and
// model (built on the meta device) have: parameter count, head_dim, kv heads, per-layer windows, context, tying.
void TestDecoderFamiliesGolden::defaultsEqualTheConfigClasses() {
    QFETCH(QString, family);
    const auto all = nlohmann::json::parse(readFile(m_root / "defaults.json"));
    QVERIFY2(all.contains(family.toStdString()), "no defaults from transformers for this family");
    const auto& ref = all.at(family.toStdString());
    const nlohmann::json config = {{"model_type", family.toStdString()}};
    const DecoderArch a = resolveDecoderArch(HfConfig(config, "config.json"));
    int64_t n = 0;
    for (const ArchTensor& t : decoderTensors(a)) {
        int64_t numel = 1;
        for (int64_t d : t.shape) numel *= d;
        n += numel;
    }
    QCOMPARE(n, ref.at("num_parameters").get<int64_t>());
    QCOMPARE(modelShapeFromJson(config, "config.json").numParameters(), n);
    QCOMPARE(a.headDim, ref.at("head_dim").get<int64_t>());
    QCOMPARE(a.numKvHeads, ref.at("num_key_value_heads").get<int64_t>());
    QCOMPARE(a.window, ref.at("windows").get<std::vector<int64_t>>());
    QCOMPARE(a.maxPositions, ref.at("max_position_embeddings").get<int64_t>());
    QCOMPARE(a.tieWordEmbeddings, ref.at("tie_word_embeddings").get<bool>());
    QCOMPARE(a.vocabSize, ref.at("vocab_size").get<int64_t>());
    // The default rotary parameters (gpt-oss: its YaRN dict when config.json has none).
    const auto& rope = ref.at("rope_parameters");
    if (rope.is_object() && rope.contains("rope_type")) {
        QCOMPARE(a.ropes.at(0).type, rope.at("rope_type").get<std::string>());
        QCOMPARE(a.ropes.at(0).theta, rope.at("rope_theta").get<double>());
        if (rope.contains("factor")) QCOMPARE(a.ropes.at(0).factor, rope.at("factor").get<double>());
        if (rope.contains("truncate")) QCOMPARE(a.ropes.at(0).truncate, rope.at("truncate").get<bool>());
        if (rope.contains("original_max_position_embeddings"))
            QCOMPARE(a.ropes.at(0).originalMaxPositions, rope.at("original_max_position_embeddings").get<int64_t>());
    }
}

QTEST_APPLESS_MAIN(TestDecoderFamiliesGolden)
#include "test_decoder_families_golden.moc"
