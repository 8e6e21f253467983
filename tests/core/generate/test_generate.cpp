// Generation against transformers running in the venv at test time (tests/data/generate/generate_reference.py):
// greedy generate() token for token on fresh random GPT-2, Llama (GQA, linear and llama3 RoPE scaling), Qwen2 and
// Mistral (a sliding window shorter than the generation) and on the golden models, batched with prompts of
// different lengths (left padding), with and without the KV cache, with an EOS id and with a repetition penalty;
// the logits processors against transformers' on the same logits; the cached forward against the full forward;
// seeded sampling; LoRA merged or not; bf16; the errors; on a CUDA device (skipped without one) the CPU's tokens.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/data/tokenizer.h"
#include "core/generate/generator.h"
#include "core/generate/logits_processing.h"
#include "core/generate/model_generation_config.h"
#include "core/generate/stop_tokens.h"
#include "core/model/cached_decoder.h"
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
const QString kScript =
    QString::fromStdString((fs::path(FTS_TEST_DATA_DIR) / "generate" / "generate_reference.py").string());

using Rows = std::vector<std::vector<int64_t>>;

Rows rowsOf(const nlohmann::json& j) { return j.get<Rows>(); }

// A reference row cut after its first EOS (transformers pads a finished row with pad_token_id).
std::vector<int64_t> cutAfterEos(std::vector<int64_t> row, const std::vector<int64_t>& eos) {
    for (size_t i = 0; i < row.size(); ++i)
        if (std::find(eos.begin(), eos.end(), row[i]) != eos.end()) {
            row.resize(i + 1);
            break;
        }
    return row;
}

Rows idsOf(const std::vector<GeneratedSequence>& out) {
    Rows r;
    for (const auto& s : out) r.push_back(s.ids);
    return r;
}

QString show(const Rows& rows) {
    QString s;
    for (const auto& r : rows) {
        s += "[";
        for (int64_t v : r) s += QString::number(v) + " ";
        s += "] ";
    }
    return s;
}

}  // namespace

class TestGenerate : public QObject {
    Q_OBJECT

private slots:
    // What ends a reply, the rule `fts generate`, the Chat page and training samples share: the model's EOS ids,
    // else the tokenizer's; then the template's end of turn once (Qwen3's tokenizer: EOS <|im_end|>).
    void replyStopTokens() {
        const auto tok = Tokenizer::fromFile(fs::path(FTS_TEST_DATA_DIR) / "tokenizers" / "qwen3" / "tokenizer.json");
        QVERIFY(tok->eosTokenId());
        const int64_t eos = *tok->eosTokenId(), imEnd = *tok->tokenToId("<|im_end|>"),
                      endOfText = *tok->tokenToId("<|endoftext|>");
        QCOMPARE(replyStopTokenIds({}, *tok, std::nullopt), std::vector<int64_t>({eos}));
        QCOMPARE(replyStopTokenIds({endOfText}, *tok, std::nullopt), std::vector<int64_t>({endOfText}));
        QCOMPARE(replyStopTokenIds({endOfText}, *tok, ChatTemplateKind::ChatML),
                 std::vector<int64_t>({endOfText, imEnd}));
        QCOMPARE(replyStopTokenIds({imEnd, endOfText}, *tok, ChatTemplateKind::Qwen25),
                 std::vector<int64_t>({imEnd, endOfText}));
        QCOMPARE(replyStopTokenIds({endOfText}, *tok, ChatTemplateKind::Alpaca), std::vector<int64_t>({endOfText}));
        // A template whose end of turn the vocabulary lacks adds nothing.
        QCOMPARE(replyStopTokenIds({endOfText}, *tok, ChatTemplateKind::Llama3), std::vector<int64_t>({endOfText}));
    }

    void initTestCase();
    void greedyEqualsTransformers_data();
    void greedyEqualsTransformers();
    void cachedForwardEqualsFullForward_data();
    void cachedForwardEqualsFullForward();
    void processorsEqualTransformers();
    void seededSamplingIsReproducible();
    void loraMergedOrNotGeneratesTheSame();
    void bf16Generates();
    void stopAndCancel();
    void errors();
    void cudaEqualsCpu();

private:
    fs::path caseDir(const QString& name) const;
    QTemporaryDir m_tmp;
    fs::path m_root;
    nlohmann::json m_ref;
};

void TestGenerate::initTestCase() {
    torch::set_num_threads(1);
    QVERIFY(m_tmp.isValid());
    m_root = fs::path(m_tmp.path().toStdString()) / "ref";
    QProcess p;
    p.setProgram(QString::fromUtf8(FTS_TEST_PYTHON));
    p.setArguments(
        {kScript, "make", QString::fromStdString(m_root.string()), QString::fromStdString(kModels.string())});
    p.start();
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
             p.readAllStandardError().right(4000).constData());
    m_ref = nlohmann::json::parse(readFile(m_root / "reference.json"));
}

fs::path TestGenerate::caseDir(const QString& name) const {
    return name.startsWith("golden_") ? kModels / name.mid(7).toStdString() : m_root / name.toStdString();
}

void TestGenerate::greedyEqualsTransformers_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("cache");
    for (const char* c : {"gpt2", "llama_gqa_rope_linear", "llama_rope_llama3", "qwen2", "mistral_sliding_window",
                          "golden_gpt2", "golden_llama", "golden_qwen2"})
        for (bool cache : {true, false})
            QTest::newRow(qPrintable(QString(c) + (cache ? " cached" : " no cache"))) << QString(c) << cache;
}

// The batch of three prompts (5, 11 and 8 tokens: left padding), 24 new tokens: plain greedy (the model's own EOS
// ids, if any), greedy ending at an EOS id the first row produces, and greedy with repetition_penalty 1.3.
void TestGenerate::greedyEqualsTransformers() {
    QFETCH(QString, name);
    QFETCH(bool, cache);
    const auto& ref = m_ref.at(name.toStdString());
    const fs::path dir = caseDir(name);
    auto model = loadPretrainedModel(dir, {});
    const Rows prompts = rowsOf(ref.at("prompts"));

    GenerationOptions o;
    o.maxNewTokens = 24;
    o.padTokenId = 0;
    o.useCache = cache;
    o.eosTokenIds = readModelGenerationConfig(dir).eosTokenIds;
    Rows expected;
    for (const auto& r : rowsOf(ref.at("greedy"))) expected.push_back(cutAfterEos(r, o.eosTokenIds));
    Rows got = idsOf(generate(*model, prompts, o));
    QVERIFY2(got == expected, qPrintable("greedy\n got " + show(got) + "\nwant " + show(expected)));

    const int64_t eos = ref.at("eos").get<int64_t>();
    o.eosTokenIds = {eos};
    const auto withEos = generate(*model, prompts, o);
    got = idsOf(withEos);
    expected = rowsOf(ref.at("greedy_eos"));
    QVERIFY2(got == expected, qPrintable("eos\n got " + show(got) + "\nwant " + show(expected)));
    QCOMPARE(withEos[0].finish, FinishReason::Eos);
    for (const auto& s : withEos)
        QCOMPARE(s.finish, s.ids.back() == eos ? FinishReason::Eos : FinishReason::MaxNewTokens);

    o.eosTokenIds = readModelGenerationConfig(dir).eosTokenIds;
    o.sampling.repetitionPenalty = 1.3;
    expected.clear();
    for (const auto& r : rowsOf(ref.at("penalty"))) expected.push_back(cutAfterEos(r, o.eosTokenIds));
    got = idsOf(generate(*model, prompts, o));
    QVERIFY2(got == expected, qPrintable("penalty\n got " + show(got) + "\nwant " + show(expected)));
}

void TestGenerate::cachedForwardEqualsFullForward_data() {
    QTest::addColumn<QString>("name");
    for (const char* c : {"gpt2", "llama_gqa_rope_linear", "qwen2", "mistral_sliding_window"}) QTest::newRow(c) << c;
}

// A prompt of 9 tokens through the cache, then 12 tokens one at a time: at every step the last-position logits
// equal forward() over the whole sequence so far.
void TestGenerate::cachedForwardEqualsFullForward() {
    QFETCH(QString, name);
    auto model = loadPretrainedModel(caseDir(name), {});
    model->setTraining(false);
    torch::NoGradGuard ng;
    auto* dec = dynamic_cast<CachedDecoder*>(model.get());
    QVERIFY(dec);
    torch::manual_seed(3);
    const auto ids = torch::randint(1, model->info().vocabSize, {2, 21}, torch::kInt64);
    KvCache cache;
    for (int64_t t = 9; t <= 21; ++t) {
        const int64_t from = t == 9 ? 0 : t - 1;
        const auto step = ids.narrow(1, from, t - from);
        const auto pos = torch::arange(from, t, torch::kInt64).expand({2, t - from});
        const auto got = dec->forwardCached(step, pos, torch::ones({2, t}, torch::kInt64), cache);
        const auto want = model->forward(ids.narrow(1, 0, t), torch::Tensor()).select(1, t - 1);
        const double diff = (got - want).abs().max().item<double>();
        const double scale = std::max(1.0, want.abs().max().item<double>());  // float32 rounding of the logits
        QVERIFY2(diff < 1e-5 * scale,
                 qPrintable(QString("step %1: max |diff| %2 (max |logit| %3)").arg(t).arg(diff).arg(scale)));
    }
    QCOMPARE(cache.length(), int64_t(21));
}

void TestGenerate::processorsEqualTransformers() {
    auto t = loadSafetensors(m_root / "processors.safetensors");
    const auto logits = t.at("logits"), seq = t.at("sequences");
    auto same = [](const torch::Tensor& a, const torch::Tensor& b) {
        // -inf where both filter; the rest to float rounding
        if (!torch::equal(torch::isinf(a), torch::isinf(b))) return false;
        const auto finite = torch::isfinite(b);
        return (a.masked_select(finite) - b.masked_select(finite)).abs().max().item<double>() < 1e-6;
    };
    QVERIFY(same(applyRepetitionPenalty(logits, seq, 1.3), t.at("penalty")));
    QVERIFY(same(applyTemperature(logits, 0.7), t.at("temperature")));
    QVERIFY(same(applyTopK(logits, 20), t.at("top_k")));
    QVERIFY(same(applyTopP(logits, 0.9), t.at("top_p")));
    SamplingSettings s;
    s.doSample = true;
    s.temperature = 0.7;
    s.topK = 20;
    s.topP = 0.9;
    s.repetitionPenalty = 1.3;
    QVERIFY(same(processLogits(logits, seq, s), t.at("chain")));
    // The filters did filter (the test can fail): top-k keeps 20 of 200 per row.
    QCOMPARE(torch::isfinite(applyTopK(logits, 20)).sum().item<int64_t>(), int64_t(4 * 20));
}

void TestGenerate::seededSamplingIsReproducible() {
    auto model = loadPretrainedModel(caseDir("qwen2"), {});
    const Rows prompts = rowsOf(m_ref.at("qwen2").at("prompts"));
    GenerationOptions o;
    o.maxNewTokens = 16;
    o.sampling.doSample = true;
    o.sampling.temperature = 1.5;
    o.sampling.topK = 0;
    o.seed = 7;
    const Rows a = idsOf(generate(*model, prompts, o)), b = idsOf(generate(*model, prompts, o));
    QVERIFY2(a == b, qPrintable(show(a) + " vs " + show(b)));
    o.seed = 8;
    const Rows c = idsOf(generate(*model, prompts, o));
    QVERIFY2(a != c, "another seed drew the same 48 tokens");
    // Sampling differs from greedy (temperature 1.5 over a random model's flat distribution).
    o.sampling.doSample = false;
    QVERIFY(idsOf(generate(*model, prompts, o)) != a);
}

// A LoRA adapter with non-zero B: generation with the adapter attached equals generation with it merged.
void TestGenerate::loraMergedOrNotGeneratesTheSame() {
    auto model = loadPretrainedModel(caseDir("llama_gqa_rope_linear"), {});
    LoraOptions lo;
    lo.r = 4;
    lo.alpha = 8;
    lo.targetModules = {"q_proj", "v_proj", "down_proj"};
    attachLora(*model, lo, 5);
    torch::manual_seed(9);
    {
        torch::NoGradGuard ng;
        for (auto& layer : dynamic_cast<HfModel&>(*model).loraByParam())
            if (layer) layer->b.normal_(0, 0.2);
    }
    const Rows prompts = rowsOf(m_ref.at("llama_gqa_rope_linear").at("prompts"));
    GenerationOptions o;
    o.maxNewTokens = 16;
    const Rows adapted = idsOf(generate(*model, prompts, o));
    mergeLora(*model);
    const Rows merged = idsOf(generate(*model, prompts, o));
    QVERIFY2(adapted == merged, qPrintable(show(adapted) + " vs " + show(merged)));
    // The adapter changed what the model says (the test can fail).
    GenerationOptions first = o;
    first.maxNewTokens = 24;
    first.padTokenId = 0;
    QVERIFY(idsOf(generate(*model, prompts, first)) != rowsOf(m_ref.at("llama_gqa_rope_linear").at("greedy")));
}

void TestGenerate::bf16Generates() {
    ModelLoadOptions lo;
    lo.dtype = torch::kBFloat16;
    auto model = loadPretrainedModel(caseDir("mistral_sliding_window"), lo);
    const Rows prompts = rowsOf(m_ref.at("mistral_sliding_window").at("prompts"));
    GenerationOptions o;
    o.maxNewTokens = 12;
    const auto out = generate(*model, prompts, o);
    QCOMPARE(out.size(), size_t(3));
    for (const auto& s : out) {
        QCOMPARE(s.ids.size(), size_t(12));
        for (int64_t id : s.ids) QVERIFY(id >= 0 && id < model->info().vocabSize);
    }
    // The cache agrees with recomputation in bf16 too.
    o.useCache = false;
    const auto again = generate(*model, prompts, o);
    QCOMPARE(idsOf(again).at(0).at(0), idsOf(out).at(0).at(0));
}

void TestGenerate::stopAndCancel() {
    auto model = loadPretrainedModel(caseDir("gpt2"), {});
    const Rows prompts = rowsOf(m_ref.at("gpt2").at("prompts"));
    GenerationOptions o;
    o.maxNewTokens = 24;
    // onToken ends row 1 at its 5th token; the others run on.
    std::vector<int> seen(3, 0);
    o.onToken = [&](size_t row, int64_t) { return ++seen[row] == 5 && row == 1; };
    auto out = generate(*model, prompts, o);
    QCOMPARE(out[1].finish, FinishReason::StopString);
    QCOMPARE(out[1].ids.size(), size_t(5));
    QCOMPARE(out[0].ids.size(), size_t(24));
    QCOMPARE(out[0].finish, FinishReason::MaxNewTokens);
    // The rows that ran on are unchanged by row 1 leaving the batch.
    const Rows greedy = rowsOf(m_ref.at("gpt2").at("greedy"));
    QVERIFY(out[0].ids == greedy[0] && out[2].ids == greedy[2]);
    std::atomic<bool> cancel{false};
    o.onToken = [&](size_t, int64_t) {
        cancel = true;
        return false;
    };
    o.cancel = &cancel;
    out = generate(*model, prompts, o);
    for (const auto& s : out) {
        QCOMPARE(s.finish, FinishReason::Cancelled);
        QCOMPARE(s.ids.size(), size_t(1));
    }
    // The context: GPT-2 here has 64 positions; an 11-token prompt leaves 53.
    o = GenerationOptions();
    o.maxNewTokens = 100;
    out = generate(*model, {prompts[1]}, o);
    QCOMPARE(out[0].ids.size(), size_t(53));
    QCOMPARE(out[0].finish, FinishReason::Context);
}

void TestGenerate::errors() {
    auto model = loadPretrainedModel(caseDir("gpt2"), {});
    auto fails = [&](const Rows& prompts, const char* needle) {
        try {
            generate(*model, prompts, {});
        } catch (const Error& e) {
            return QString(e.what()).contains(needle) ? QString() : QString(e.what());
        }
        return QString("no error");
    };
    QCOMPARE(fails({{1, 2}, {}}, "prompt 2 is empty"), QString());
    QCOMPARE(fails({std::vector<int64_t>(64, 5)}, "prompt 1 has 64 tokens: the model's context is 64 tokens"),
             QString());
    QCOMPARE(fails({{1, 100000}}, "token id 100000 is outside the model's vocabulary"), QString());
    auto bert = loadPretrainedModel(kModels / "bert", {});
    bool refused = false;
    try {
        generate(*bert, {{1, 2}}, {});
    } catch (const Error& e) {
        refused = QString(e.what()).contains("cannot generate text");
    }
    QVERIFY(refused);
    // A generation_config.json with a bad key names the file and the key.
    QTemporaryDir d;
    const fs::path dir = d.path().toStdString();
    writeFileAtomic(dir / "generation_config.json", R"({"eos_token_id": "two"})");
    try {
        readModelGenerationConfig(dir);
        QFAIL("accepted");
    } catch (const FormatError& e) {
        QVERIFY2(QString(e.what()).contains("generation_config.json: \"eos_token_id\" must be a token id"), e.what());
    }
    writeFileAtomic(dir / "generation_config.json", R"({"eos_token_id": [2, 7], "top_k": 20, "do_sample": true})");
    writeFileAtomic(dir / "config.json", R"({"eos_token_id": 3, "pad_token_id": 0})");
    const auto g = readModelGenerationConfig(dir);
    QVERIFY(g.eosTokenIds == std::vector<int64_t>({2, 7}));
    QCOMPARE(*g.padTokenId, int64_t(0));
    QCOMPARE(*g.topK, int64_t(20));
    QVERIFY(*g.doSample);
}

// On a CUDA device (skipped without one): float32 greedy equals the CPU's tokens; bfloat16 generates the full length.
void TestGenerate::cudaEqualsCpu() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device");
    const Rows prompts = rowsOf(m_ref.at("llama_gqa_rope_linear").at("prompts"));
    GenerationOptions o;
    o.maxNewTokens = 24;
    o.padTokenId = 0;
    ModelLoadOptions lo;
    lo.device = torch::Device(torch::kCUDA, 0);
    auto model = loadPretrainedModel(caseDir("llama_gqa_rope_linear"), lo);
    const Rows got = idsOf(generate(*model, prompts, o));
    QVERIFY2(got == rowsOf(m_ref.at("llama_gqa_rope_linear").at("greedy")), qPrintable(show(got)));
    lo.dtype = torch::kBFloat16;
    auto bf16 = loadPretrainedModel(caseDir("mistral_sliding_window"), lo);
    for (const auto& s : generate(*bf16, prompts, o)) QCOMPARE(s.ids.size(), size_t(24));
}

QTEST_APPLESS_MAIN(TestGenerate)
#include "test_generate.moc"
