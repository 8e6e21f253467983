// `fts export --format gguf` against llama.cpp itself (llama-cpp-python and the gguf package, pinned in
// requirements-tests.txt; tests/data/gguf/check_gguf.py): tiny GPT-2, Llama (SentencePiece vocab and Llama 3
// vocab with rope scaling), Mistral, Qwen2, Qwen3, Gemma 2, Gemma 3, Phi-3 and OLMo 2 models written by transformers,
// and the trained quick-start.
// - the gguf package reads every file: hyper-parameters from config.json, the tokenizer, every tensor with its
//   shape; f32/f16/bf16 tensors equal the safetensors rearranged by llama.cpp's converter's formulas
// - every quantization preset equals llama.cpp's own quantizer applied to our f32 file, tensor type and bytes
// - llama.cpp tokenizes as the HF tokenizer does, its logits equal transformers' within 1e-4 (GPT-2: against a
//   reference computing GELU through llama.cpp's float16 table), and greedy decoding gives fts generate's tokens
// - the quick-start's perplexity under q8_0 and q4_k_m stays within 1% and 5% of f16's
// - a LoRA run is exported merged; the Modelfile and chat template follow the folder or the run's template;
//   a model or tokenizer GGUF cannot hold is an error naming it, and no file is left
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>

#include "core/util/atomic_file.h"
#include "tests/integration/fts_cli_support.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::testing::CliResult;
using fts::testing::kQuickstart;
using fts::testing::runFts;
using fts::testing::writeConfig;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const fs::path kData = FTS_TEST_DATA_DIR;
const fs::path kCheck = kData / "gguf" / "check_gguf.py";
const char* const kPrompt =
    "Once upon a time, a little dog named Max ran to the park. He saw 3 birds and said: \"Hello!\"";

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// Runs check_gguf.py; its last stdout line is JSON with "failures".
json runCheck(const QStringList& args) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON), QStringList{q(kCheck)} + args);
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
        return json{{"failures", {"check_gguf.py timed out"}}};
    }
    const QString out = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    const QString last = out.section('\n', -1);
    try {
        return json::parse(last.toStdString());
    } catch (const json::exception&) {
        return json{
            {"failures", {"check_gguf.py: " + QString::fromUtf8(p.readAllStandardError()).right(3000).toStdString()}}};
    }
}

#define VERIFY_CHECK(result) QVERIFY2((result)["failures"].empty(), (result)["failures"].dump(1).c_str())

}  // namespace

class TestExportGguf : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void readsBackWithEveryTensor_data();
    void readsBackWithEveryTensor();
    void quantizationEqualsLlamaCpp_data();
    void quantizationEqualsLlamaCpp();
    void llamaCppComputesTheSameLogits_data();
    void llamaCppComputesTheSameLogits();
    void describedFamiliesRunInLlamaCpp_data();
    void describedFamiliesRunInLlamaCpp();
    void quickstartRunsInLlamaCpp();
    void kQuantFilesRunInLlamaCpp();
    void loraRunIsExportedMerged();
    void zero3RunIsExportedConsolidated();
    void modelfileAndChatTemplate();
    void badInputFailsBeforeWriting();
    void stopLeavesNoFile();

private:
    fs::path exportGguf(const fs::path& from, const std::string& name, const std::string& quant,
                        const QStringList& extra = {});
    QTemporaryDir m_tmp;
    fs::path m_dir, m_models, m_quickstartRun;
};

void TestExportGguf::initTestCase() {
    QVERIFY(m_tmp.isValid());
    m_dir = m_tmp.path().toStdString();
    m_models = m_dir / "models";
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON), {q(kData / "gguf" / "make_models.py"), q(kData), q(m_models)});
    QVERIFY(p.waitForFinished(600000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().right(3000).constData());
    // The quick-start, trained for 100 steps (a model whose perplexity means something).
    const fs::path cfg =
        writeConfig(m_dir, "qs", {{"training", {{"max_steps", 100}, {"eval_interval", 100}, {"save_interval", 100}}}});
    const CliResult r = runFts({"train", q(cfg), "--store", q(m_dir / "runs.sqlite")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(3000)));
    m_quickstartRun = m_dir / "qs-out";
}

fs::path TestExportGguf::exportGguf(const fs::path& from, const std::string& name, const std::string& quant,
                                    const QStringList& extra) {
    const fs::path out = m_dir / "gguf" / name / (name + "-" + quant + ".gguf");
    const CliResult r = runFts(
        QStringList{"export", q(from), "--out", q(out), "--format", "gguf", "--quant", QString::fromStdString(quant)} +
        extra);
    if (r.exitCode != 0) qWarning("fts export failed: %s", qPrintable(r.err.right(3000)));
    return r.exitCode == 0 ? out : fs::path();
}

void TestExportGguf::readsBackWithEveryTensor_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("quant");
    for (const char* m : {"gpt2", "llama", "llama3", "qwen2", "mistral", "kquant"}) QTest::newRow(m) << m << "f32";
    QTest::newRow("qwen2 f16") << "qwen2"
                               << "f16";
    QTest::newRow("llama bf16") << "llama"
                                << "bf16";
    QTest::newRow("gpt2 q8_0") << "gpt2"
                               << "q8_0";
}

void TestExportGguf::readsBackWithEveryTensor() {
    QFETCH(QString, model);
    QFETCH(QString, quant);
    const fs::path file = exportGguf(m_models / model.toStdString(), model.toStdString(), quant.toStdString());
    QVERIFY(!file.empty());
    const json r = runCheck({"metadata", q(m_models / model.toStdString()), q(file)});
    VERIFY_CHECK(r);
    QVERIFY(r["tensors"].get<int>() > 0);
}

void TestExportGguf::quantizationEqualsLlamaCpp_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("kquant (256-wide rows: q4_K, q5_K, q6_K and the q4_k_m mixture)") << "kquant";
    QTest::newRow("qwen2 (64-wide rows: the fallbacks q5_0, q5_1, q8_0)") << "qwen2";
    QTest::newRow("gpt2 (fused attn_qkv, biases, position embeddings)") << "gpt2";
}

void TestExportGguf::quantizationEqualsLlamaCpp() {
    QFETCH(QString, model);
    const std::string m = model.toStdString();
    const fs::path f32 = exportGguf(m_models / m, m, "f32");
    QVERIFY(!f32.empty());
    QStringList pairs;
    for (const char* quant : {"q8_0", "q4_0", "q4_k_m", "q5_k_m", "q6_k", "f16", "bf16"}) {
        const fs::path file = exportGguf(m_models / m, m, quant, {"--threads", "2"});
        QVERIFY(!file.empty());
        pairs << QString("%1=%2").arg(quant, q(file));
    }
    const json r = runCheck(QStringList{"llama-quant", q(f32)} + pairs);
    VERIFY_CHECK(r);
    for (const auto& [preset, result] : r["presets"].items())
        QCOMPARE(result["equal_to_llama_cpp"].get<int>(), result["tensors"].get<int>());
    if (m == "kquant") {  // the mixture really was exercised
        QVERIFY(r["presets"]["q4_k_m"]["types"].contains("Q4_K"));
        QVERIFY(r["presets"]["q4_k_m"]["types"].contains("Q6_K"));
        QVERIFY(r["presets"]["q5_k_m"]["types"].contains("Q5_K"));
    }
}

void TestExportGguf::llamaCppComputesTheSameLogits_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"llama", "llama3", "qwen2", "mistral", "kquant"}) QTest::newRow(m) << m;
}

void TestExportGguf::llamaCppComputesTheSameLogits() {
    QFETCH(QString, model);
    const std::string m = model.toStdString();
    const fs::path file = exportGguf(m_models / m, m, "f32");
    QVERIFY(!file.empty());
    const json r = runCheck({"logits", q(m_models / m), q(file), "1e-4", "--greedy", "20"});
    VERIFY_CHECK(r);
    // every line of the tokenizer corpus (unicode, code, spaces, special tokens) tokenizes as the HF tokenizer does
    const json t = runCheck({"tokens", q(m_models / m), q(file), q(kData / "tokenizers" / "corpus.jsonl")});
    VERIFY_CHECK(t);
    QVERIFY(t["equal"].get<int>() >= t["lines"].get<int>() - 2);
    qInfo("%s: %d of %d corpus lines tokenize as the HF tokenizer does (%d differ by llama.cpp's design)", m.c_str(),
          t["equal"].get<int>(), t["lines"].get<int>(), t["differ_by_design"].get<int>());
    // greedy decoding in llama.cpp (checked equal to transformers above) gives the tokens fts generate gives
    const CliResult g =
        runFts({"generate", "--model", q(m_models / m), "--prompt", kPrompt, "--max_new_tokens", "20", "--json"});
    QVERIFY2(g.exitCode == 0, qPrintable(g.err.right(2000)));
    QCOMPARE(json::parse(g.out.toStdString())["ids"], r["greedy"]);
}

void TestExportGguf::describedFamiliesRunInLlamaCpp_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("tolerance");
    QTest::addColumn<bool>("gelu16");  // Gemma's tanh-GELU gate: llama.cpp's float16 table, as for GPT-2
    QTest::newRow("qwen3") << "qwen3"
                           << "1e-4" << false;
    // Gemma's gate: llama.cpp's GELU goes through a float16 table; the reference emulates it, and what is left of the
    // table's rounding through 4 layers, soft-capped, stays under 1e-3 (the greedy tokens must still agree)
    QTest::newRow("gemma2") << "gemma2"
                            << "1e-3" << true;
    QTest::newRow("gemma3") << "gemma3"
                            << "1e-3" << true;
    QTest::newRow("phi3") << "phi3"
                          << "1e-4" << false;
    QTest::newRow("olmo2") << "olmo2"
                           << "1e-4" << false;
}

// The families core/arch describes beyond Llama and Qwen2, exported in f32 from their description: llama.cpp loads
// them, computes transformers' logits and decodes the same greedy tokens.
void TestExportGguf::describedFamiliesRunInLlamaCpp() {
    QFETCH(QString, model);
    QFETCH(QString, tolerance);
    QFETCH(bool, gelu16);
    const std::string m = model.toStdString();
    const fs::path file = exportGguf(m_models / m, m, "f32");
    QVERIFY(!file.empty());
    QStringList args{"logits", q(m_models / m), q(file), tolerance, "--greedy", "20"};
    if (gelu16) args << "--gelu16";
    const json r = runCheck(args);
    VERIFY_CHECK(r);
    qInfo("%s f32 in llama.cpp: logits within %g of transformers (largest |logit| %g)", m.c_str(),
          r["max_abs_diff"].get<double>(), r["max_abs_logit"].get<double>());
    const fs::path q8 = exportGguf(m_models / m, m, "q8_0");  // and it quantizes
    QVERIFY(!q8.empty());
}

void TestExportGguf::quickstartRunsInLlamaCpp() {
    // the run's output dir: its latest checkpoint is exported
    std::map<std::string, fs::path> files;
    for (const char* quant : {"f32", "f16", "q8_0", "q4_k_m"}) {
        files[quant] = exportGguf(m_quickstartRun, "quickstart", quant);
        QVERIFY(!files[quant].empty());
    }
    // the Modelfile's context is the length the run trained at (data.max_length 128)
    const std::string modelfile = fts::readFile(files["q4_k_m"].parent_path() / "Modelfile");
    QVERIFY2(modelfile.find("PARAMETER num_ctx 128\n") != std::string::npos, modelfile.c_str());
    const fs::path exported = m_dir / "qs-hf";
    const CliResult e = runFts({"export", q(m_quickstartRun), "--out", q(exported)});
    QVERIFY2(e.exitCode == 0, qPrintable(e.err));
    json r = runCheck({"metadata", q(exported), q(files["f32"])});
    VERIFY_CHECK(r);
    r = runCheck({"tokens", q(exported), q(files["f32"]), q(kData / "tokenizers" / "corpus.jsonl")});
    VERIFY_CHECK(r);
    QCOMPARE(r["equal"].get<int>(), r["lines"].get<int>());
    // llama.cpp's GPT-2 takes GELU from a float16 table: the reference does too; the rest is float32
    r = runCheck({"logits", q(exported), q(files["f32"]), "5e-4", "--gelu16", "--greedy", "20"});
    VERIFY_CHECK(r);
    qInfo("quick-start f32 in llama.cpp: logits within %g of transformers (largest |logit| %g)",
          r["max_abs_diff"].get<double>(), r["max_abs_logit"].get<double>());
    // perplexity over 40 stories of the quick-start's data
    const fs::path texts = m_dir / "stories.jsonl";
    {
        std::ifstream in(kQuickstart / "sample_stories.jsonl");
        std::ofstream out(texts);
        std::string line;
        for (int i = 0; std::getline(in, line) && i < 800; ++i)
            if (i % 20 == 0) out << line << "\n";
    }
    r = runCheck({"perplexity", q(texts), q(files["f16"]), q(files["q8_0"]), q(files["q4_k_m"])});
    VERIFY_CHECK(r);
    const double f16 = r["perplexity"][files["f16"].filename().string()].get<double>();
    const double q8 = r["perplexity"][files["q8_0"].filename().string()].get<double>();
    const double q4 = r["perplexity"][files["q4_k_m"].filename().string()].get<double>();
    qInfo("quick-start perplexity: f16 %.4f, q8_0 %.4f (%+.2f%%), q4_k_m %.4f (%+.2f%%)", f16, q8, 100 * (q8 / f16 - 1),
          q4, 100 * (q4 / f16 - 1));
    QVERIFY(f16 > 1.0 && f16 < 20.0);  // a trained model
    QVERIFY2(std::abs(q8 / f16 - 1) <= 0.01, qPrintable(QString::number(q8 / f16)));
    QVERIFY2(std::abs(q4 / f16 - 1) <= 0.05, qPrintable(QString::number(q4 / f16)));
}

void TestExportGguf::kQuantFilesRunInLlamaCpp() {
    // the 256-wide model's q4_k_m is real q4_K / q6_K (the quick-start's falls back to q5_0 / q8_0): llama.cpp runs
    // it, and its perplexity over the stories (a random model: near its 704-token vocabulary) moves little
    std::map<std::string, fs::path> files;
    for (const char* quant : {"f16", "q8_0", "q4_k_m"}) {
        files[quant] = exportGguf(m_models / "kquant", "kquant-ppl", quant);
        QVERIFY(!files[quant].empty());
    }
    const fs::path texts = m_dir / "stories-kquant.jsonl";
    {
        std::ifstream in(kQuickstart / "sample_stories.jsonl");
        std::ofstream out(texts);
        std::string line;
        for (int i = 0; std::getline(in, line) && i < 800; ++i)
            if (i % 20 == 0) out << line << "\n";
    }
    const json r = runCheck({"perplexity", q(texts), q(files["f16"]), q(files["q8_0"]), q(files["q4_k_m"])});
    VERIFY_CHECK(r);
    const double f16 = r["perplexity"][files["f16"].filename().string()].get<double>();
    const double q8 = r["perplexity"][files["q8_0"].filename().string()].get<double>();
    const double q4 = r["perplexity"][files["q4_k_m"].filename().string()].get<double>();
    qInfo("256-wide model perplexity: f16 %.2f, q8_0 %+.2f%%, q4_k_m %+.2f%%", f16, 100 * (q8 / f16 - 1),
          100 * (q4 / f16 - 1));
    QVERIFY2(std::abs(q8 / f16 - 1) <= 0.01, qPrintable(QString::number(q8 / f16)));
    QVERIFY2(std::abs(q4 / f16 - 1) <= 0.05, qPrintable(QString::number(q4 / f16)));
}

void TestExportGguf::loraRunIsExportedMerged() {
    // a LoRA run over the tiny Llama: the GGUF holds base + adapter, as the merged HF export does
    const fs::path cfg =
        writeConfig(m_dir, "lora",
                    {{"model",
                      {{"path", (m_models / "llama").string()},
                       {"init", nullptr},
                       {"lora", {{"r", 4}, {"alpha", 8}, {"target_modules", {"q_proj", "v_proj", "down_proj"}}}}}},
                     {"training", {{"max_steps", 4}, {"eval_interval", 0}, {"save_interval", 4}}},
                     {"deepspeed", {{"optimizer", {{"params", {{"lr", 0.05}}}}}}}});
    CliResult r = runFts({"train", q(cfg), "--store", q(m_dir / "runs.sqlite")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(3000)));
    const fs::path merged = m_dir / "lora-hf";
    r = runFts({"export", q(m_dir / "lora-out"), "--out", q(merged)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const fs::path file = exportGguf(m_dir / "lora-out", "lora", "f32");
    QVERIFY(!file.empty());
    const json check = runCheck({"logits", q(merged), q(file), "1e-4"});
    VERIFY_CHECK(check);
    // and the adapter changed the model (the base's logits differ)
    const json base = runCheck({"logits", q(m_models / "llama"), q(file), "1e-4"});
    QVERIFY(!base["failures"].empty());
    // the scratch folder of the merge is gone
    for (const auto& entry : fs::directory_iterator(file.parent_path()))
        QVERIFY2(entry.path().filename().string().rfind(".fts-gguf-", 0) != 0, entry.path().c_str());
}

void TestExportGguf::zero3RunIsExportedConsolidated() {
    // a ZeRO stage 3 run on 2 ranks: its checkpoint holds only the ranks' shards; the GGUF is the consolidated model
    const fs::path cfg =
        writeConfig(m_dir, "z3",
                    {{"training", {{"max_steps", 4}, {"eval_interval", 0}, {"save_interval", 4}}},
                     {"deepspeed", {{"train_micro_batch_size_per_gpu", 4}, {"zero_optimization", {{"stage", 3}}}}}});
    CliResult r = runFts({"train", q(cfg), "--store", q(m_dir / "runs.sqlite"), "--nproc", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(3000)));
    const fs::path out = m_dir / "z3-out";
    bool shardsOnly = false;
    for (const auto& e : fs::directory_iterator(out / "checkpoints"))
        if (e.is_directory() && fs::exists(e.path() / "trainer_state.json"))
            shardsOnly = !fs::exists(e.path() / "model.safetensors");
    QVERIFY(shardsOnly);
    const fs::path hf = m_dir / "z3-hf";
    r = runFts({"export", q(out), "--out", q(hf)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const fs::path file = exportGguf(out, "z3", "f32");
    QVERIFY(!file.empty());
    const json check = runCheck({"logits", q(hf), q(file), "5e-4", "--gelu16"});
    VERIFY_CHECK(check);
}

void TestExportGguf::modelfileAndChatTemplate() {
    // Qwen2's folder has a ChatML chat template: the GGUF carries it, the Modelfile speaks ChatML
    const fs::path qwen = exportGguf(m_models / "qwen2", "qwen2-chat", "q8_0");
    QVERIFY(!qwen.empty());
    const std::string modelfile = fts::readFile(qwen.parent_path() / "Modelfile");
    QVERIFY2(modelfile.find("FROM ./" + qwen.filename().string() + "\n") != std::string::npos, modelfile.c_str());
    QVERIFY2(modelfile.find("<|im_start|>{{ .Role }}") != std::string::npos, modelfile.c_str());
    QVERIFY2(modelfile.find("PARAMETER stop \"\"\"<|im_end|>\"\"\"") != std::string::npos, modelfile.c_str());
    // a plain folder: Ollama's own num_ctx (not the model's 512 positions)
    QVERIFY2(modelfile.find("num_ctx") == std::string::npos, modelfile.c_str());
    // a base model fine-tuned with data.template llama3 (the run's stored config says so): --chat-template here
    const fs::path gpt2 = exportGguf(m_models / "gpt2", "gpt2-chat", "f16", {"--chat-template", "alpaca"});
    QVERIFY(!gpt2.empty());
    const std::string alpaca = fts::readFile(gpt2.parent_path() / "Modelfile");
    QVERIFY2(alpaca.find("### Instruction:\n{{ .Content }}\n\n### Response:\n") != std::string::npos, alpaca.c_str());
    QVERIFY2(alpaca.find("SYSTEM \"\"\"Below is an instruction") != std::string::npos, alpaca.c_str());
    // a plain text model: a completion template, no chat
    const fs::path plain = exportGguf(m_models / "llama", "llama-plain", "q8_0");
    const std::string completion = fts::readFile(plain.parent_path() / "Modelfile");
    QVERIFY2(completion.find("TEMPLATE \"\"\"{{ .Prompt }}\"\"\"") != std::string::npos, completion.c_str());
    QVERIFY2(completion.find("PARAMETER stop \"\"\"</s>\"\"\"") != std::string::npos, completion.c_str());
    // a folder given with a trailing slash names the file after the folder
    const fs::path named = m_dir / "named";
    CliResult n =
        runFts({"export", q(m_models / "llama") + "/", "--out", q(named), "--format", "gguf", "--quant", "q8_0"});
    QVERIFY2(n.exitCode == 0, qPrintable(n.err));
    QVERIFY2(fs::exists(named / "llama-q8_0.gguf"), qPrintable(n.out));
    // --no-modelfile
    const fs::path bare = m_dir / "bare" / "m.gguf";
    const CliResult r = runFts(
        {"export", q(m_models / "llama"), "--out", q(bare), "--format", "gguf", "--quant", "q4_0", "--no-modelfile"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(fs::exists(bare));
    QVERIFY(!fs::exists(bare.parent_path() / "Modelfile"));
}

void TestExportGguf::badInputFailsBeforeWriting() {
    const auto failsWith = [&](const fs::path& from, const QStringList& extra, const QString& needle) {
        const fs::path out = m_dir / "bad" / "out.gguf";
        const CliResult r = runFts(QStringList{"export", q(from), "--out", q(out), "--format", "gguf"} + extra);
        QVERIFY2(r.exitCode != 0, qPrintable(r.out));
        QVERIFY2(r.err.contains(needle), qPrintable(r.err));
        QVERIFY(!fs::exists(out));
        if (fs::exists(out.parent_path()))
            for (const auto& e : fs::directory_iterator(out.parent_path())) QFAIL(e.path().c_str());
    };
    // an architecture GGUF export does not write (BERT)
    failsWith(kData / "models" / "bert", {}, "model_type");
    // no tokenizer
    const fs::path noTok = m_dir / "no-tokenizer";
    fs::create_directories(noTok);
    for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(m_models / "llama" / f, noTok / f);
    failsWith(noTok, {}, "tokenizer.json");
    // a WordPiece tokenizer in a GPT-2 folder
    const fs::path wordpiece = m_dir / "wordpiece";
    fs::create_directories(wordpiece);
    for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(m_models / "gpt2" / f, wordpiece / f);
    json bertTok = json::parse(fts::readFile(kData / "tokenizers" / "bert-base-uncased" / "tokenizer.json"));
    std::ofstream(wordpiece / "tokenizer.json") << bertTok.dump();
    failsWith(wordpiece, {}, "WordPiece");
    // a byte-level pre-tokenizer regex llama.cpp does not have
    const fs::path regex = m_dir / "regex";
    fs::create_directories(regex);
    for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(m_models / "llama3" / f, regex / f);
    json toy = json::parse(fts::readFile(m_models / "llama3" / "tokenizer.json"));
    toy["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\p{L}+|\\p{N}+|\\s+";
    std::ofstream(regex / "tokenizer.json") << toy.dump();
    failsWith(regex, {}, "regex");
    // a tensor of the wrong shape for config.json
    const fs::path shape = m_dir / "shape";
    fs::create_directories(shape);
    for (const char* f : {"model.safetensors", "tokenizer.json", "tokenizer_config.json"})
        fs::copy_file(m_models / "llama" / f, shape / f);
    json cfg = json::parse(fts::readFile(m_models / "llama" / "config.json"));
    cfg["intermediate_size"] = 96;
    std::ofstream(shape / "config.json") << cfg.dump();
    failsWith(shape, {}, "mlp.gate_proj.weight has shape");
    // an activation llama.cpp does not compute
    cfg["intermediate_size"] = 128;
    cfg["hidden_act"] = "gelu";
    std::ofstream(shape / "config.json") << cfg.dump();
    failsWith(shape, {}, "hidden_act");
    // an unknown preset names the known ones
    failsWith(m_models / "llama", {"--quant", "q3_k_s"}, "q4_k_m");
}

void TestExportGguf::stopLeavesNoFile() {
    // SIGTERM (the studio's Cancel) once the first tensor is written: the export ends after the tensor at hand,
    // non-zero, and neither the file nor its temporary sibling stays (75 tensors of the 256-wide model at q6_k on one
    // thread: the rest takes far longer than the signal)
    const fs::path out = m_dir / "stopped" / "m.gguf";
    QProcess p;
    p.start(QString::fromUtf8(FTS_CLI_PATH), {"export", q(m_models / "kquant"), "--out", q(out), "--format", "gguf",
                                              "--quant", "q6_k", "--threads", "1"});
    QVERIFY(p.waitForStarted());
    p.setReadChannel(QProcess::StandardError);  // waitForReadyRead waits on the read channel
    QByteArray err;
    while (!err.contains("% (") && p.state() == QProcess::Running) {
        p.waitForReadyRead(1000);
        err += p.readAllStandardError();
    }
    QVERIFY2(err.contains("% ("), err.constData());
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(60000));
    err += p.readAllStandardError();
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() != 0,
             qPrintable(QString("exit %1 (%2): %3")
                            .arg(p.exitCode())
                            .arg(int(p.exitStatus()))
                            .arg(QString::fromUtf8(err.right(300)))));
    QVERIFY2(err.contains("export stopped"), err.constData());
    QVERIFY(!fs::exists(out));
    for (const auto& e : fs::directory_iterator(out.parent_path())) QFAIL(e.path().c_str());
}

QTEST_MAIN(TestExportGguf)
#include "test_export_gguf.moc"
