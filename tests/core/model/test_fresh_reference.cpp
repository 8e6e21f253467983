// Parity beyond the frozen goldens, against transformers running in the venv at test time: tiny random models for
// rope_scaling llama3/linear/dynamic (also llama3 without original_max_position_embeddings, and rope_scaling next to
// rope_parameters), mistral and qwen2 sliding windows, long sequences, bf16 weights, config keys left out or null
// (the config classes' defaults), untied BertForMaskedLM, BERT with pad_token_id null (built and evaluated by
// tests/data/models/scripts/fresh_reference.py); which null config keys transformers refuses (null_keys.py), where
// we must refuse too, naming the key; golden models converted to BF16 and sharded into 3 files; and every
// architecture exported by saveHfModel, reloaded by us and by transformers' AutoModel.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "core/model/hf_model.h"
#include "core/arch/decoder_arch.h"
#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(FTS_TEST_DATA_DIR) / "models";
const QString kScript = QString::fromStdString((kModels / "scripts" / "fresh_reference.py").string());

double relL2(const torch::Tensor& got, const torch::Tensor& ref) {
    auto g = got.to(torch::kFloat64), r = ref.to(torch::kFloat64);
    return (g - r).norm().item<double>() / std::max(r.norm().item<double>(), 1e-30);
}
double maxAbs(const torch::Tensor& got, const torch::Tensor& ref) {
    return (got.to(torch::kFloat64) - ref.to(torch::kFloat64)).abs().max().item<double>();
}
nlohmann::json readJson(const fs::path& p) { return nlohmann::json::parse(readFile(p)); }

// Runs the reference script; returns stdout, fails the test (via the returned flag) on a non-zero exit.
bool runPython(const QStringList& args, QByteArray* out) {
    QProcess p;
    p.setProgram(QString::fromUtf8(FTS_TEST_PYTHON));
    p.setArguments(QStringList{kScript} + args);
    p.start();
    if (!p.waitForFinished(240000)) return false;
    *out = p.readAllStandardOutput();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("%s", p.readAllStandardError().right(4000).constData());
        return false;
    }
    return true;
}

}  // namespace

class TestFreshReference : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void freshParity_data();
    void freshParity();
    void mistralNullKvHeadsRefused();
    void nullKeys_data();
    void nullKeys();
    void bf16ShardedGoldens_data();
    void bf16ShardedGoldens();
    void exportRoundTrip();

private:
    QTemporaryDir m_tmp;
    fs::path m_fresh;
    nlohmann::json m_nullKeys;  // null_keys.py's cases with transformers' verdicts
};

void TestFreshReference::initTestCase() {
    torch::set_num_threads(1);
    QVERIFY(m_tmp.isValid());
    m_fresh = fs::path(m_tmp.path().toStdString()) / "fresh";
    QByteArray out;
    QVERIFY2(runPython({"make", QString::fromStdString(m_fresh.string())}, &out), "fresh_reference.py make failed");
    m_nullKeys = readJson(m_fresh / "null_keys.json");
    QVERIFY(m_nullKeys.size() > 50);
}

void TestFreshReference::freshParity_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("v4Config");  // rewrite rope_parameters as transformers 4's rope_scaling + rope_theta
    for (const char* c :
         {"llama_rope_llama3", "llama_rope_linear", "llama_rope_dynamic", "llama_tied_bias_long", "llama_bf16_weights",
          "mistral_sliding_window", "qwen2_sliding_window", "qwen2_bf16_untied", "mistral_default_kv_heads",
          "mistral_null_window", "qwen2_default_kv_heads", "qwen2_null_kv_window", "bert_mlm_untied",
          "bert_mlm_untied_v4", "llama_rope_both_keys", "llama_rope_llama3_no_original", "bert_mlm_null_pad"})
        QTest::newRow(c) << QString(c) << false;
    for (const char* c : {"llama_rope_llama3", "llama_rope_linear", "llama_rope_dynamic"})
        QTest::newRow(qPrintable(QString(c) + " (v4 config)")) << QString(c) << true;
}

void TestFreshReference::freshParity() {
    QFETCH(QString, name);
    QFETCH(bool, v4Config);
    fs::path dir = m_fresh / name.toStdString();
    QVERIFY2(fs::exists(dir / "reference.safetensors"), dir.c_str());
    if (v4Config) {
        const fs::path v4 = m_fresh / (name.toStdString() + "_v4");
        fs::create_directories(v4);
        fs::copy_file(dir / "model.safetensors", v4 / "model.safetensors", fs::copy_options::overwrite_existing);
        auto c = readJson(dir / "config.json");
        auto rope = c.at("rope_parameters");
        c.erase("rope_parameters");
        c["rope_theta"] = rope.at("rope_theta");
        rope.erase("rope_theta");
        rope["type"] = rope.at("rope_type");  // the oldest spelling
        rope.erase("rope_type");
        c["rope_scaling"] = rope;
        writeFileAtomic(v4 / "config.json", c.dump(2));
        dir = v4;
    }
    const fs::path src = m_fresh / name.toStdString();
    auto in = loadSafetensors(src / "inputs.safetensors");
    auto ref = loadSafetensors(src / "reference.safetensors").at("logits");
    const double refLoss = readJson(src / "reference.json").at("loss").get<double>();
    ModelLoadOptions opts;
    opts.disableDropout = true;
    auto model = loadPretrainedModel(dir, opts);
    const auto refTensors = loadSafetensors(src / "reference.safetensors");
    std::vector<std::string> gradNames;  // grad.<param> in the reference: gradients of the loss to compare too
    for (const auto& [key, t] : refTensors)
        if (key.rfind("grad.", 0) == 0) gradNames.push_back(key.substr(5));
    torch::AutoGradMode gradMode(!gradNames.empty());
    auto logits = model->forward(in.at("input_ids"), in.at("attention_mask"));
    const torch::Tensor lossTensor = model->loss(logits, in.at("labels"));
    const double loss = lossTensor.item<double>();
    if (!gradNames.empty()) {
        lossTensor.backward();
        for (const std::string& g : gradNames) {
            const torch::Tensor* ours = nullptr;
            for (const auto& p : model->parameters())
                if (p.name == g) ours = &p.tensor;
            QVERIFY2(ours && ours->grad().defined(), g.c_str());
            const double gr = relL2(ours->grad(), refTensors.at("grad." + g));
            qInfo("%s: grad %s relL2 %.3g", qPrintable(name), g.c_str(), gr);
            QVERIFY2(gr <= 1e-4, qPrintable(QString::fromStdString(g) + " " + QString::number(gr)));
        }
    }
    logits = logits.detach();
    QCOMPARE(logits.sizes().vec(), ref.sizes().vec());
    const double ma = maxAbs(logits, ref), rl = relL2(logits, ref);
    qInfo("%s: logits max|diff| %.3g relL2 %.3g, loss diff %.3g", qPrintable(name), ma, rl, loss - refLoss);
    QVERIFY2(ma <= 1e-4, qPrintable(QString::number(ma)));
    QVERIFY2(rl <= 1e-5, qPrintable(QString::number(rl)));
    QVERIFY2(std::fabs(loss - refLoss) <= 1e-5, qPrintable(QString::number(loss - refLoss)));

    // The same parameter count and the same resolved config values as transformers' model.
    const auto refJson = readJson(src / "reference.json");
    QCOMPARE(model->info().numParameters, refJson.at("num_parameters").get<int64_t>());
    const auto& resolved = refJson.at("resolved");
    if (!resolved.empty()) {
        const DecoderArch c = resolveDecoderArch(HfConfig::load(dir / "config.json"));
        QCOMPARE(c.numKvHeads, resolved.at("num_key_value_heads").get<int64_t>());
        QCOMPARE(c.headDim, resolved.at("head_dim").get<int64_t>());
        QCOMPARE(c.window, resolved.at("sliding_window").get<std::vector<int64_t>>());
    }
}

void TestFreshReference::mistralNullKvHeadsRefused() {
    // MistralConfig types num_key_value_heads as int: transformers refuses null, so do we (naming the key).
    const nlohmann::json j = {
        {"model_type", "mistral"}, {"hidden_size", 64}, {"num_attention_heads", 4}, {"num_key_value_heads", nullptr}};
    try {
        resolveDecoderArch(HfConfig(j, "/m/config.json"));
        QFAIL("expected an error for a null num_key_value_heads");
    } catch (const FormatError& e) {
        QVERIFY2(QString(e.what()).contains("/m/config.json: key \"num_key_value_heads\""), e.what());
    }
    // ... while Llama and Qwen2 read null as the number of heads.
    auto as = [&](const char* type) {
        nlohmann::json k = j;
        k["model_type"] = type;
        return HfConfig(k, "c");
    };
    QCOMPARE(resolveDecoderArch(as("qwen2")).numKvHeads, int64_t(4));
    QCOMPARE(resolveDecoderArch(as("llama")).numKvHeads, int64_t(4));
}

void TestFreshReference::nullKeys_data() {
    // One row per null_keys.py case: a config key set to null (or, for GPT-2's aliases, to another value).
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < m_nullKeys.size(); ++i)
        QTest::newRow(m_nullKeys[i].at("name").get<std::string>().c_str()) << int(i);
}

void TestFreshReference::nullKeys() {
    // transformers refuses the config (strict validation, or a failure building/running the model): we refuse it
    // too, naming config.json and the key; transformers accepts it: we build the same number of parameters.
    QFETCH(int, index);
    const auto& c = m_nullKeys.at(size_t(index));
    const std::string key = c.at("key").get<std::string>();
    const auto dot = key.find('.');
    const std::string outer = key.substr(0, dot), inner = dot == std::string::npos ? "" : key.substr(dot + 1);
    const HfConfig config(c.at("config"), "/n/config.json");
    std::string ours;
    int64_t numParameters = 0;
    try {
        auto model = buildModelFromConfig(config, {});
        for (const ParamSpec& spec : model->parameterSpecs()) {
            int64_t n = 1;
            for (int64_t d : spec.shape) n *= d;
            numParameters += n;
        }
    } catch (const FormatError& e) {
        ours = e.what();
    }
    if (c.at("refused").get<bool>()) {
        QVERIFY2(!ours.empty(),
                 qPrintable("transformers refuses (" + QString::fromStdString(c.at("error").get<std::string>()) +
                            ") but we accept"));
        QVERIFY2(
            QString::fromStdString(ours).startsWith(QString::fromStdString("/n/config.json: key \"" + outer + "\"")),
            ours.c_str());
        if (!inner.empty()) QVERIFY2(ours.find("\"" + inner + "\"") != std::string::npos, ours.c_str());
    } else {
        QVERIFY2(ours.empty(), ("transformers accepts, we refuse: " + ours).c_str());
        QCOMPARE(numParameters, c.at("num_parameters").get<int64_t>());
    }
}

void TestFreshReference::bf16ShardedGoldens_data() {
    QTest::addColumn<QString>("arch");
    for (const char* a : {"gpt2", "llama", "qwen2", "bert", "bert_mlm"}) QTest::newRow(a) << QString(a);
}

void TestFreshReference::bf16ShardedGoldens() {
    // The golden weights converted to BF16 and split over 3 shards + model.safetensors.index.json.
    QFETCH(QString, arch);
    const fs::path src = kModels / arch.toStdString();
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "bf16";
    fs::create_directories(dir);
    fs::copy_file(src / "config.json", dir / "config.json");
    auto all = loadSafetensors(src / "model.safetensors");
    std::vector<std::vector<NamedTensor>> shards(3);
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    size_t i = 0;
    for (const auto& [name, t] : all) {
        const size_t s = (i++ * 3) / all.size();
        shards[s].push_back({name, t.to(torch::kBFloat16)});
        index["weight_map"][name] = "model-0000" + std::to_string(s + 1) + "-of-00003.safetensors";
    }
    for (size_t s = 0; s < 3; ++s) {
        QVERIFY(!shards[s].empty());
        saveSafetensors(dir / ("model-0000" + std::to_string(s + 1) + "-of-00003.safetensors"), shards[s]);
    }
    writeFileAtomic(dir / "model.safetensors.index.json", index.dump(2));

    auto in = loadSafetensors(src / "inputs.safetensors");
    auto model = loadPretrainedModel(dir, {});  // bf16 on disk -> float32 parameters
    auto golden = loadPretrainedModel(src, {});
    torch::NoGradGuard noGrad;
    for (auto& p : golden->parameters())
        p.tensor.copy_(p.tensor.to(torch::kBFloat16).to(torch::kFloat32));  // round like the file
    auto logits = model->forward(in.at("input_ids"), in.at("attention_mask"));
    QVERIFY2(maxAbs(logits, golden->forward(in.at("input_ids"), in.at("attention_mask"))) <= 1e-5,
             "bf16 shards != rounded weights");
    // ... and within bf16 rounding of the unrounded reference logits.
    auto ref = loadSafetensors(src / "outputs.safetensors").at("logits");
    QVERIFY2(relL2(logits, ref) < 2e-2, qPrintable(QString::number(relL2(logits, ref))));
    // Loaded straight into bf16 parameters: the stored bits, no conversion.
    ModelLoadOptions bf;
    bf.dtype = torch::kBFloat16;
    auto asBf16 = loadPretrainedModel(dir, bf);
    for (const auto& p : asBf16->parameters()) QCOMPARE(p.tensor.scalar_type(), torch::kBFloat16);
    // A missing shard is named, with a tensor it should hold.
    fs::remove(dir / "model-00002-of-00003.safetensors");
    try {
        loadPretrainedModel(dir, {});
        QFAIL("expected an error for the missing shard");
    } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains("model-00002-of-00003.safetensors") &&
                     QString(e.what()).contains(QString::fromStdString(shards[1].front().name)),
                 e.what());
    }
}

void TestFreshReference::exportRoundTrip() {
    // Every architecture (goldens + fresh cases) exported, reloaded by us (identical logits) and by transformers.
    QTemporaryDir tmp;
    const fs::path root(tmp.path().toStdString());
    nlohmann::json spec = nlohmann::json::array();
    std::vector<std::pair<fs::path, fs::path>> sources;  // model folder, inputs
    for (const char* a : {"gpt2", "llama", "qwen2", "bert", "bert_mlm"})
        sources.push_back({kModels / a, kModels / a / "inputs.safetensors"});
    for (const char* c :
         {"mistral_sliding_window", "qwen2_sliding_window", "llama_rope_llama3", "llama_tied_bias_long",
          "mistral_default_kv_heads", "qwen2_default_kv_heads", "bert_mlm_untied", "bert_mlm_untied_v4"})
        sources.push_back({m_fresh / c, m_fresh / c / "inputs.safetensors"});
    ModelLoadOptions opts;
    opts.disableDropout = true;
    for (const auto& [src, inputs] : sources) {
        const std::string name = src.filename().string();
        auto model = loadPretrainedModel(src, opts);
        auto in = loadSafetensors(inputs);
        torch::NoGradGuard noGrad;
        auto logits = model->forward(in.at("input_ids"), in.at("attention_mask"));
        const fs::path out = root / name;
        saveHfModel(*model, out, torch::kFloat32);
        auto again = loadPretrainedModel(out, opts);
        QVERIFY2(torch::equal(again->forward(in.at("input_ids"), in.at("attention_mask")), logits), name.c_str());
        saveSafetensors(root / (name + "_logits.safetensors"), {{"logits", logits}});
        const ModelTask task = model->info().task;
        spec.push_back({{"dir", out.string()},
                        {"inputs", inputs.string()},
                        {"logits", (root / (name + "_logits.safetensors")).string()},
                        {"task", task == ModelTask::CausalLM   ? "CausalLM"
                                 : task == ModelTask::MaskedLM ? "MaskedLM"
                                                               : "SequenceClassification"}});
    }
    writeFileAtomic(root / "spec.json", spec.dump(2));
    QByteArray out;
    QVERIFY2(runPython({"check", QString::fromStdString((root / "spec.json").string())}, &out),
             "fresh_reference.py check failed");
    const auto result = nlohmann::json::parse(out.trimmed().split('\n').last().toStdString());
    QCOMPARE(result.size(), spec.size());
    for (const auto& item : spec) {
        const auto& r = result.at(item.at("dir").get<std::string>());
        const std::string name = fs::path(item.at("dir").get<std::string>()).filename().string();
        QVERIFY2(r.at("shape_ok").get<bool>(), name.c_str());
        qInfo("%s in transformers: max|diff| %.3g relL2 %.3g", name.c_str(), r.at("max_abs").get<double>(),
              r.at("rel_l2").get<double>());
        QVERIFY2(r.at("max_abs").get<double>() <= 1e-4, name.c_str());
        QVERIFY2(r.at("rel_l2").get<double>() <= 1e-5, name.c_str());
    }
}

QTEST_APPLESS_MAIN(TestFreshReference)
#include "test_fresh_reference.moc"
