// LoRA (core/model/lora.h) on the golden models: B = 0 leaves the logits bit-identical, a training step changes only
// adapter weights, merged and unmerged forwards agree, and the PEFT format round-trips both ways against PEFT 0.21
// and transformers running in the venv (tests/data/models/scripts/lora_reference.py): our adapter loaded by PEFT,
// our merged export loaded by transformers, and a random adapter made by PEFT loaded by us, all give the same logits;
// so too for a mixture of experts' expert tensors (PEFT's target_parameters) on Qwen3-MoE and gpt-oss.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "core/model/hf_model.h"
#include "core/model/lora.h"
#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(FTS_TEST_DATA_DIR) / "models";

double relL2(const torch::Tensor& got, const torch::Tensor& ref) {
    auto g = got.to(torch::kFloat64), r = ref.to(torch::kFloat64);
    return (g - r).norm().item<double>() / std::max(r.norm().item<double>(), 1e-30);
}
double maxAbs(const torch::Tensor& got, const torch::Tensor& ref) {
    return (got.to(torch::kFloat64) - ref.to(torch::kFloat64)).abs().max().item<double>();
}

std::unique_ptr<LanguageModel> loadModelAt(const fs::path& dir, bool dropout = false) {
    ModelLoadOptions o;
    o.disableDropout = !dropout;
    return loadPretrainedModel(dir, o);
}
std::unique_ptr<LanguageModel> loadModel(const std::string& name, bool dropout = false) {
    return loadModelAt(kModels / name, dropout);
}

// A small random mixture of experts saved as transformers saves it (Qwen3-MoE: one tensor per expert, layer 1 dense;
// gpt-oss: fused), for the expert adapters (target_parameters).
fs::path writeMoeBase(const fs::path& dir, const std::string& type) {
    nlohmann::json c = {{"model_type", type},          {"vocab_size", 512},
                        {"hidden_size", 64},           {"intermediate_size", 32},
                        {"num_hidden_layers", 2},      {"num_attention_heads", 4},
                        {"num_key_value_heads", 2},    {"head_dim", 16},
                        {"num_experts_per_tok", 2},    {"initializer_range", 0.1},
                        {"tie_word_embeddings", false}};
    if (type == "qwen3_moe")
        c["num_experts"] = 4, c["moe_intermediate_size"] = 24, c["mlp_only_layers"] = nlohmann::json::array({1});
    else
        c["num_local_experts"] = 4;
    fs::create_directories(dir);
    writeFileAtomic(dir / "config.json", c.dump(2));
    auto model = initModelFromConfig(dir / "config.json", 77, {});
    saveHfModel(*model, dir, torch::kFloat32);
    return dir;
}

// (2, 12) ids below the model's vocab; the second row ends in 3 padding tokens.
std::pair<torch::Tensor, torch::Tensor> batchFor(LanguageModel& m) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(1234);
    torch::Tensor ids = torch::randint(1, m.info().vocabSize, {2, 12}, gen, torch::kInt64);
    torch::Tensor mask = torch::ones({2, 12}, torch::kInt64);
    mask.index_put_({1, torch::indexing::Slice(9, 12)}, 0);
    return {ids, mask};
}

// Per architecture: what we adapt in the tests (list form, regex form, PEFT's defaults, rslora).
LoraOptions optionsFor(const std::string& name) {
    LoraOptions o;
    o.r = 4;
    o.alpha = 8;
    if (name == "gpt2")
        o.targetModules = {"c_attn", "c_proj"};  // Conv1D; c_proj matches attn.c_proj and mlp.c_proj
    else if (name == "llama")
        o.targetRegex = "all-linear";
    else if (name == "qwen2")
        o.targetModules = {};      // PEFT's default for qwen2: q_proj, v_proj
    else if (name == "qwen3_moe")  // the experts and a Linear layer
        o.targetModules = {"q_proj"}, o.targetParameters = {"mlp.experts.gate_up_proj", "mlp.experts.down_proj"};
    else if (name == "qwen3_moe_router")  // the router too, and the gate_up_proj adapters at rank 2r (rank_pattern)
        o.targetModules = {"q_proj"},
        o.targetParameters = {"mlp.experts.gate_up_proj", "mlp.experts.down_proj", "gate.weight"},
        o.rankPattern = {{".*\\.gate_up_proj", 8}}, o.alphaPattern = {{".*\\.gate_up_proj", 16}};
    else if (name == "gpt_oss")  // the experts alone, named by their last part
        o.noTargetModules = true, o.targetParameters = {"gate_up_proj", "down_proj"};
    else
        o.targetModules = {"query", "key", "value", "dense"}, o.useRslora = true, o.alpha = 16;
    return o;
}

void randomizeAdapters(LanguageModel& m, uint64_t seed) {
    torch::NoGradGuard noGrad;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    for (auto& t : loraStateTensors(m)) {
        if (t.name.find(".lora_B.") != std::string::npos)
            t.tensor.normal_(0.0, 0.1, gen);
        else if (t.name.find(".lora_A.") == std::string::npos)
            t.tensor.add_(torch::randn(t.tensor.sizes(), gen) * 0.1);  // classifier
    }
}

torch::Tensor evalLogits(LanguageModel& m, const std::pair<torch::Tensor, torch::Tensor>& batch) {
    torch::NoGradGuard noGrad;
    m.setTraining(false);
    auto out = m.forward(batch.first, batch.second);
    m.setTraining(true);
    return out;
}

}  // namespace

class TestLora : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { torch::set_num_threads(1); }
    void zeroBKeepsLogits_data();
    void zeroBKeepsLogits();
    void trainStepChangesOnlyAdapters_data();
    void trainStepChangesOnlyAdapters();
    void checkpointingSameAdapterGradients();
    void mergedEqualsUnmerged_data();
    void mergedEqualsUnmerged();
    void peftRoundTrip();
    void badTargets_data();
    void badTargets();
    void badAdapterFolders_data();
    void badAdapterFolders();
};

void TestLora::zeroBKeepsLogits_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"gpt2", "llama", "qwen2", "bert", "bert_mlm"}) QTest::newRow(n) << QString(n);
}

void TestLora::zeroBKeepsLogits() {
    QFETCH(QString, name);
    auto model = loadModel(name.toStdString());
    const auto batch = batchFor(*model);
    const torch::Tensor base = evalLogits(*model, batch);
    LoraOptions o = optionsFor(name == "bert_mlm" ? "bert" : name.toStdString());
    attachLora(*model, o, 7);
    QVERIFY(hasLora(*model));
    int adapters = 0;
    for (auto& t : loraStateTensors(*model)) {
        if (t.name.find(".lora_B.") != std::string::npos) QVERIFY(t.tensor.eq(0).all().item<bool>());
        if (t.name.find(".lora_A.") != std::string::npos) {
            ++adapters;
            const double bound = 1.0 / std::sqrt(double(t.tensor.size(1)));  // kaiming_uniform(a=sqrt(5)) on (r, in)
            QVERIFY(t.tensor.abs().max().item<double>() <= bound);
            QVERIFY(t.tensor.abs().max().item<double>() > 0.5 * bound);
            QCOMPARE(t.tensor.size(0), int64_t(4));
        }
    }
    QVERIFY(adapters >= 2);
    const torch::Tensor withLora = evalLogits(*model, batch);
    QVERIFY2(torch::equal(base, withLora), qPrintable(QString::number(maxAbs(base, withLora))));
}

void TestLora::trainStepChangesOnlyAdapters_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("checkpointing");
    QTest::newRow("gpt2") << "gpt2" << false;
    QTest::newRow("gpt2 checkpointing") << "gpt2" << true;
    QTest::newRow("llama") << "llama" << false;
    QTest::newRow("bert classifier") << "bert" << false;
}

void TestLora::trainStepChangesOnlyAdapters() {
    QFETCH(QString, name);
    QFETCH(bool, checkpointing);
    auto model = loadModel(name.toStdString(), /*dropout*/ true);
    model->setActivationCheckpointing(checkpointing);
    std::vector<torch::Tensor> before;
    for (auto& p : model->parameters()) before.push_back(p.tensor.detach().clone());
    LoraOptions o = optionsFor(name.toStdString());
    o.dropout = 0.1;
    attachLora(*model, o, 3);
    std::vector<torch::Tensor> adaptersBefore;
    for (auto& t : loraStateTensors(*model)) adaptersBefore.push_back(t.tensor.detach().clone());
    std::vector<torch::Tensor> trainable = trainableTensors(*model);
    torch::optim::AdamW opt(trainable, torch::optim::AdamWOptions(1e-2).weight_decay(0.01));
    const auto batch = batchFor(*model);
    const bool classifier = model->info().task == ModelTask::SequenceClassification;
    for (int step = 0; step < 2; ++step) {
        opt.zero_grad();
        torch::Tensor logits = model->forward(batch.first, batch.second);
        torch::Tensor labels = classifier ? torch::tensor({0, 1}, torch::kInt64) : batch.first;
        model->loss(logits, labels).backward();
        opt.step();
    }
    auto& params = model->parameters();
    int changedHead = 0;
    for (size_t i = 0; i < params.size(); ++i) {
        const bool head = classifier && params[i].name.starts_with("classifier.");
        if (head) {  // PEFT's modules_to_save for SEQ_CLS: trained whole
            changedHead += torch::equal(params[i].tensor, before[i]) ? 0 : 1;
            continue;
        }
        QVERIFY2(!params[i].tensor.grad().defined(), params[i].name.c_str());
        QVERIFY2(torch::equal(params[i].tensor, before[i]), params[i].name.c_str());  // every base bit unchanged
    }
    if (classifier) QCOMPARE(changedHead, 2);
    auto after = loraStateTensors(*model);
    QCOMPARE(after.size(), adaptersBefore.size());
    for (size_t i = 0; i < after.size(); ++i)
        QVERIFY2(!torch::equal(after[i].tensor, adaptersBefore[i]), after[i].name.c_str());
}

void TestLora::checkpointingSameAdapterGradients() {
    // With activation checkpointing the adapters' gradients come from the block replay: same values as without.
    for (const char* name : {"gpt2", "llama"}) {
        std::vector<torch::Tensor> grads[2];
        for (int ckpt = 0; ckpt < 2; ++ckpt) {
            auto model = loadModel(name, true);
            model->setActivationCheckpointing(ckpt == 1);
            LoraOptions o = optionsFor(name);
            o.dropout = 0.2;
            attachLora(*model, o, 3);
            randomizeAdapters(*model, 5);
            const auto batch = batchFor(*model);
            torch::manual_seed(99);
            model->loss(model->forward(batch.first, batch.second), batch.first).backward();
            for (auto& t : trainableTensors(*model)) grads[ckpt].push_back(t.grad().clone());
        }
        QCOMPARE(grads[0].size(), grads[1].size());
        for (size_t i = 0; i < grads[0].size(); ++i)
            QVERIFY2(torch::allclose(grads[0][i], grads[1][i], 1e-5, 1e-8),
                     qPrintable(QString("%1 #%2").arg(name).arg(i)));
    }
}

void TestLora::mergedEqualsUnmerged_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"gpt2", "llama", "qwen2", "bert"}) QTest::newRow(n) << QString(n);
}

void TestLora::mergedEqualsUnmerged() {
    QFETCH(QString, name);
    auto model = loadModel(name.toStdString());
    attachLora(*model, optionsFor(name.toStdString()), 11);
    randomizeAdapters(*model, 12);
    const auto batch = batchFor(*model);
    const torch::Tensor unmerged = evalLogits(*model, batch);
    const torch::Tensor base = [&] {
        auto plain = loadModel(name.toStdString());
        return evalLogits(*plain, batch);
    }();
    QVERIFY(maxAbs(unmerged, base) > 1e-3);  // the adapters do something
    mergeLora(*model);
    QVERIFY(!hasLora(*model));
    const torch::Tensor merged = evalLogits(*model, batch);
    qInfo("%s: merged vs unmerged max|diff| %.3g relL2 %.3g", qPrintable(name), maxAbs(merged, unmerged),
          relL2(merged, unmerged));
    QVERIFY(maxAbs(merged, unmerged) <= 1e-4);
    QVERIFY(relL2(merged, unmerged) <= 1e-5);
}

void TestLora::peftRoundTrip() {
    QTemporaryDir tmpDir;
    QVERIFY(tmpDir.isValid());
    const fs::path tmp = tmpDir.path().toStdString();
    struct Job {
        std::string name, task;
        nlohmann::json peftLora;
        torch::Tensor oursLogits;
        std::pair<torch::Tensor, torch::Tensor> batch;
        fs::path base;
    };
    std::vector<Job> jobs = {
        {"gpt2", "CausalLM", {{"r", 4}, {"lora_alpha", 8}, {"target_modules", {"c_attn", "c_fc"}}}, {}, {}},
        {"llama",
         "CausalLM",
         {{"r", 3}, {"lora_alpha", 6}, {"target_modules", ".*\\.(q_proj|v_proj|down_proj)"}, {"use_rslora", true}},
         {},
         {}},
        {"qwen2", "CausalLM", {{"r", 2}, {"lora_alpha", 4}}, {}, {}},
        {"bert",
         "SequenceClassification",
         {{"r", 4}, {"lora_alpha", 8}, {"target_modules", {"query", "value", "dense"}}},
         {},
         {}},
        // mixtures of experts: PEFT's target_parameters (its ParamWrapper), nested when a module has two
        {"qwen3_moe",
         "CausalLM",
         {{"r", 2},
          {"lora_alpha", 4},
          {"target_modules", {"k_proj"}},
          {"target_parameters", {"mlp.experts.down_proj", "mlp.experts.gate_up_proj"}}},
         {},
         {}},
        // PEFT's own "all-linear" on a mixture of experts: it retargets the experts (gate_up_proj at rank 2r through
        // rank_pattern) and the router as transformers 4's per-expert layers
        {"qwen3_moe_router", "CausalLM", {{"r", 2}, {"lora_alpha", 4}, {"target_modules", "all-linear"}}, {}, {}},
        {"gpt_oss",
         "CausalLM",
         {{"r", 3},
          {"lora_alpha", 5},
          {"target_modules", nlohmann::json::array()},
          {"target_parameters", {"gate_up_proj"}}},
         {},
         {}},
    };
    for (Job& job : jobs)
        job.base = job.name.starts_with("qwen3_moe") ? writeMoeBase(tmp / job.name / "base", "qwen3_moe")
                   : job.name == "gpt_oss"           ? writeMoeBase(tmp / job.name / "base", job.name)
                                                     : kModels / job.name;
    nlohmann::json spec = nlohmann::json::array();
    for (size_t k = 0; k < jobs.size(); ++k) {
        Job& job = jobs[k];
        const fs::path dir = tmp / job.name;
        auto model = loadModelAt(job.base);
        LoraOptions o = optionsFor(job.name);
        // saved in the config; eval mode ignores it on both sides (expert adapters take none, as PEFT's)
        o.dropout = o.targetParameters.empty() ? 0.05 : 0.0;
        attachLora(*model, o, 20 + k);
        randomizeAdapters(*model, 30 + k);
        job.batch = batchFor(*model);
        job.oursLogits = evalLogits(*model, job.batch);
        saveLoraAdapter(*model, dir / "ours", job.base.string());
        mergeLora(*model);
        saveHfModel(*model, dir / "merged", torch::kFloat32);
        saveSafetensors(dir / "inputs.safetensors",
                        {{"input_ids", job.batch.first}, {"attention_mask", job.batch.second}});
        spec.push_back({{"base", job.base.string()},
                        {"task", job.task},
                        {"inputs", (dir / "inputs.safetensors").string()},
                        {"ours_adapter", (dir / "ours").string()},
                        {"merged", (dir / "merged").string()},
                        {"peft_adapter_out", (dir / "peft").string()},
                        {"lora", job.peftLora},
                        {"seed", 40 + k},
                        {"out", (dir / "reference.safetensors").string()}});
    }
    writeFileAtomic(tmp / "spec.json", spec.dump(2));
    QProcess p;
    p.setProgram(QString::fromUtf8(FTS_TEST_PYTHON));
    p.setArguments({QString::fromStdString((kModels / "scripts" / "lora_reference.py").string()),
                    QString::fromStdString((tmp / "spec.json").string())});
    p.start();
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
             p.readAllStandardError().right(3000).constData());

    for (Job& job : jobs) {
        const fs::path dir = tmp / job.name;
        auto ref = loadSafetensors(dir / "reference.safetensors");
        // PEFT reading our adapter, and transformers reading our merged export, compute our logits.
        for (const char* key : {"ours_logits", "merged_logits"}) {
            const torch::Tensor& theirs = ref.at(key);
            QCOMPARE(theirs.sizes().vec(), job.oursLogits.sizes().vec());
            qInfo("%s %s: max|diff| %.3g relL2 %.3g", job.name.c_str(), key, maxAbs(job.oursLogits, theirs),
                  relL2(job.oursLogits, theirs));
            QVERIFY2(maxAbs(job.oursLogits, theirs) <= 1e-4, key);
            QVERIFY2(relL2(job.oursLogits, theirs) <= 1e-5, key);
        }
        // An adapter PEFT made (non-zero B, its own targets/rslora) loads here and gives PEFT's logits.
        auto model = loadModelAt(job.base);
        loadLoraAdapter(*model, dir / "peft");
        const torch::Tensor ours = evalLogits(*model, job.batch);
        const torch::Tensor& peft = ref.at("peft_logits");
        const torch::Tensor base = evalLogits(*loadModelAt(job.base), job.batch);
        qInfo("%s peft adapter: max|diff| %.3g relL2 %.3g (adapter effect %.3g)", job.name.c_str(), maxAbs(ours, peft),
              relL2(ours, peft), maxAbs(peft, base));
        QVERIFY(maxAbs(peft, base) > 1e-3);
        QVERIFY(maxAbs(ours, peft) <= 1e-4);
        QVERIFY(relL2(ours, peft) <= 1e-5);
    }
}

void TestLora::badTargets_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("targets");
    QTest::addColumn<QString>("regex");
    QTest::addColumn<QString>("expected");  // part of the message
    QTest::newRow("embedding") << "gpt2" << QStringList{"wte"} << ""
                               << "\"transformer.wte\"";
    QTest::newRow("norm") << "llama" << QStringList{"input_layernorm"} << ""
                          << "not a Linear or Conv1D";
    QTest::newRow("whole block") << "gpt2" << QStringList() << "transformer\\.h\\.0\\.attn"
                                 << "\"transformer.h.0.attn\"";
    QTest::newRow("nothing matches") << "llama" << QStringList{"c_attn"} << ""
                                     << "q_proj";
    QTest::newRow("bad regex") << "llama" << QStringList() << "(q_proj"
                               << "not a valid regular expression";
}

void TestLora::badTargets() {
    QFETCH(QString, name);
    QFETCH(QStringList, targets);
    QFETCH(QString, regex);
    QFETCH(QString, expected);
    auto model = loadModel(name.toStdString());
    LoraOptions o;
    for (const auto& t : targets) o.targetModules.push_back(t.toStdString());
    if (!regex.isEmpty()) o.targetRegex = regex.toStdString();
    try {
        attachLora(*model, o, 1);
        QFAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
        QVERIFY2(QString(e.what()).contains("model.lora.target_modules"), e.what());
        QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
    QVERIFY(!hasLora(*model));
}

void TestLora::badAdapterFolders_data() {
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("expected");
    QTest::newRow("bias all") << "bias"
                              << "\"bias\"";
    QTest::newRow("dora") << "use_dora"
                          << "\"use_dora\"";
    QTest::newRow("rank pattern") << "rank_pattern"
                                  << "\"rank_pattern\"";
    QTest::newRow("missing tensor") << "drop_tensor"
                                    << "lora_B.weight' is missing";
    QTest::newRow("wrong rank") << "rank"
                                << "expected shape";
    QTest::newRow("not lora") << "peft_type"
                              << "\"peft_type\"";
    // Values of the wrong kind: an error naming the file and the key, not nlohmann's type_error.
    QTest::newRow("peft_type a number") << "peft_type_number"
                                        << "\"peft_type\"";
    QTest::newRow("bias false") << "bias_false"
                                << "\"bias\"";
    QTest::newRow("use_rslora a string") << "use_rslora_string"
                                         << "\"use_rslora\" must be true or false, found \"yes\"";
    QTest::newRow("modules_to_save a number") << "modules_to_save_number"
                                              << "\"modules_to_save\"";
}

void TestLora::badAdapterFolders() {
    QFETCH(QString, edit);
    QFETCH(QString, expected);
    QTemporaryDir tmpDir;
    const fs::path dir = fs::path(tmpDir.path().toStdString()) / "adapter";
    {
        auto model = loadModel("llama");
        attachLora(*model, optionsFor("qwen2"), 1);  // q_proj, v_proj
        saveLoraAdapter(*model, dir, "");
    }
    auto cfg = nlohmann::json::parse(readFile(dir / "adapter_config.json"));
    if (edit == "bias") cfg["bias"] = "all";
    if (edit == "use_dora") cfg["use_dora"] = true;
    if (edit == "rank_pattern") cfg["rank_pattern"] = {{"q_proj", 0}};  // a rank must be positive
    if (edit == "rank") cfg["r"] = 5;
    if (edit == "peft_type") cfg["peft_type"] = "IA3";
    if (edit == "peft_type_number") cfg["peft_type"] = 5;
    if (edit == "bias_false") cfg["bias"] = false;
    if (edit == "use_rslora_string") cfg["use_rslora"] = "yes";
    if (edit == "modules_to_save_number") cfg["modules_to_save"] = {1};
    writeFileAtomic(dir / "adapter_config.json", cfg.dump());
    if (edit == "drop_tensor") {
        auto tensors = loadSafetensors(dir / "adapter_model.safetensors");
        std::vector<NamedTensor> kept;
        for (auto& [n, t] : tensors)
            if (n != "base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight") kept.push_back({n, t});
        saveSafetensors(dir / "adapter_model.safetensors", kept);
    }
    auto model = loadModel("llama");
    try {
        loadLoraAdapter(*model, dir);
        QFAIL("expected an error");
    } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains(expected), e.what());
        QVERIFY2(QString(e.what()).contains(QString::fromStdString(dir.string())), e.what());
    }
}

QTEST_APPLESS_MAIN(TestLora)
#include "test_lora.moc"
