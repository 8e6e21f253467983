// QLoRA against transformers + bitsandbytes + PEFT on the CPU (tests/data/model/bnb_qlora_reference.py; skipped
// when bitsandbytes or PEFT is not installed in the test Python): a tiny float32 Llama quantized to NF4 with double
// quantization as it loads gives transformers' logits; the folder transformers saved 4-bit loads to the same
// model; 20 steps from PEFT's own initial adapter give PEFT's per-step losses (fp32 compute, 1e-5 relative); the
// trained adapter loads in PEFT over the bitsandbytes base with our logits, and the merged export (the dequantized
// base plus the adapter) loads in transformers with them too; a resumed QLoRA run equals an uninterrupted one. Also
// LoRA on a mixture of experts' experts (PEFT's target_parameters, float32 base) against PEFT over 20 steps.
#include "core/train/trainer.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include "core/checkpoint/checkpoint.h"
#include "core/model/lora.h"
#include "core/model/safetensors_torch.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/capturing_sink.h"
#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fts;

namespace {

const fs::path kQuickstart = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";

using fts::test::CapturingSink;

double maxRel(const torch::Tensor& a, const torch::Tensor& b) {
    return ((a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max() / b.abs().max().to(torch::kFloat64))
        .item<double>();
}

QString runPython(const QStringList& args) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON),
            QStringList{QString::fromUtf8(FTS_TEST_DATA_DIR) + "/model/bnb_qlora_reference.py"} + args);
    if (!p.waitForFinished(600000)) return "timed out";
    return p.exitCode() == 0 ? QString() : QString::fromUtf8(p.readAllStandardError().right(3000));
}

Quant4LoadOptions nf4dq() {
    Quant4LoadOptions q;
    q.doubleQuant = true;
    return q;
}

}  // namespace

class TestQloraGolden : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_ref;
    torch::Tensor m_ids;  // the batch (2, 32)
    std::map<std::string, torch::Tensor> m_logits;
    json m_meta;

    fs::path dir() const { return fs::path(m_tmp.path().toStdString()); }

    json config(const fs::path& out, int64_t steps) const {
        return {
            {"model",
             {{"path", (m_ref / "base").string()},
              {"quantization",
               {{"load_in_4bit", true},
                {"bnb_4bit_quant_type", "nf4"},
                {"bnb_4bit_use_double_quant", true},
                {"bnb_4bit_compute_dtype", "float32"}}},
              {"lora", {{"init_from", (m_ref / "adapter0").string()}}}}},
            {"data",
             {{"train", (m_ref / "fixed.jsonl").string()}, {"format", "lm"}, {"max_length", 32}, {"eval_fraction", 0}}},
            {"training",
             {{"max_steps", steps},
              {"log_interval", 1},
              {"save_interval", 0},
              {"output_dir", out.string()},
              {"device", "cpu"},
              {"keep_checkpoints", 0}}},
            {"deepspeed",
             {{"train_micro_batch_size_per_gpu", 2},
              {"gradient_accumulation_steps", 1},
              {"gradient_clipping", 1.0},
              {"optimizer",
               {{"type", "AdamW"},
                {"params", {{"lr", 1e-3}, {"betas", {0.9, 0.95}}, {"eps", 1e-8}, {"weight_decay", 0.0}}}}},
              {"zero_optimization", {{"stage", 0}}}}}};
    }

    TrainConfig parsed(const json& doc) const {
        auto r = parseTrainConfig(doc, dir(), 1);
        if (!r.ok()) throw std::runtime_error(r.errorText());
        return *r.config;
    }

    torch::Tensor logitsOf(LanguageModel& model) const {
        torch::NoGradGuard ng;
        model.setTraining(false);
        return model.forward(m_ids, torch::Tensor());
    }

private slots:
    void initTestCase() {
        QProcess probe;
        probe.start(QString::fromUtf8(FTS_TEST_PYTHON), {"-c", "import bitsandbytes, peft"});
        if (!probe.waitForFinished(120000) || probe.exitCode() != 0)
            QSKIP("bitsandbytes or PEFT is not installed in the test Python (./packaging/setup-debian.sh --tests)");
        m_ref = dir() / "ref";
        fs::create_directories(m_ref);
        const QString err = runPython({"prep", QString::fromStdString(m_ref.string()),
                                       QString::fromStdString((kQuickstart / "model").string()), "nf4", "1"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        m_meta = json::parse(readFile(m_ref / "ref.json"));
        const auto ids = m_meta.at("ids").get<std::vector<int64_t>>();
        m_ids = torch::tensor(ids, torch::kInt64).view({1, -1}).repeat({2, 1});
        m_logits = loadSafetensors(m_ref / "ref.safetensors");
    }

    void quantizedOnLoadEqualsTransformers() {
        ModelLoadOptions o;
        o.quantize4bit = nf4dq();
        auto model = loadPretrainedModel(m_ref / "base", o);
        QVERIFY(hasQuantizedWeights(*model));
        const torch::Tensor logits = logitsOf(*model);
        QVERIFY2(maxRel(logits, m_logits.at("logits_base")) <= 1e-5,
                 qPrintable(QString::number(maxRel(logits, m_logits.at("logits_base")))));
        // the same weights without quantization differ: the comparison can fail
        auto plain = loadPretrainedModel(m_ref / "base", ModelLoadOptions{});
        QVERIFY(maxRel(logitsOf(*plain), m_logits.at("logits_base")) > 1e-3);
    }

    void folderSavedByTransformersLoads4bit() {
        auto saved = loadPretrainedModel(m_ref / "q4", ModelLoadOptions{});
        QVERIFY(hasQuantizedWeights(*saved));
        ModelLoadOptions o;
        o.quantize4bit = nf4dq();
        auto onLoad = loadPretrainedModel(m_ref / "base", o);
        QVERIFY(torch::equal(logitsOf(*saved), logitsOf(*onLoad)));  // the quantization is bitsandbytes' bit for bit
        // a full fine-tune of it is refused naming the key
        json doc = config(dir() / "full", 2);
        doc["model"]["path"] = (m_ref / "q4").string();
        doc["model"].erase("quantization");
        doc["model"].erase("lora");
        CapturingSink sink;
        std::atomic<bool> stop{false};
        try {
            runTraining(parsed(doc), {}, sink, stop);
            QFAIL("a full fine-tune of a 4-bit folder ran");
        } catch (const std::exception& e) {
            QVERIFY2(std::string(e.what()).find("quantization_config") != std::string::npos, e.what());
        }
    }

    void twentyStepsEqualPeft() {
        const fs::path out = dir() / "run20";
        CapturingSink sink;
        std::atomic<bool> stop{false};
        QVERIFY(runTraining(parsed(config(out, 20)), {}, sink, stop) == TrainOutcome::Completed);
        const std::vector<double> ours = sink.values("loss");
        const auto theirs = m_meta.at("losses").get<std::vector<double>>();
        QCOMPARE(ours.size(), theirs.size());
        for (size_t i = 0; i < ours.size(); ++i)
            QVERIFY2(
                std::abs(ours[i] - theirs[i]) <= 1e-5 * std::abs(theirs[i]),
                qPrintable(
                    QString("step %1: %2 vs PEFT %3").arg(i + 1).arg(ours[i], 0, 'g', 9).arg(theirs[i], 0, 'g', 9)));
        // our trained adapter over our 4-bit base
        ModelLoadOptions o;
        o.quantize4bit = nf4dq();
        auto model = loadPretrainedModel(m_ref / "base", o);
        // the run's export is the adapter alone (a QLoRA run's default, as PEFT saves one); merged on request
        QVERIFY(fs::exists(out / "final" / "adapter_model.safetensors"));
        QVERIFY(!fs::exists(out / "final" / "model.safetensors"));
        const fs::path merged = dir() / "merged20";
        exportCheckpoint(latestCheckpoint(out), merged, "float32", true);
        QVERIFY(fs::exists(merged / "adapter" / "adapter_model.safetensors"));
        loadLoraAdapter(*model, out / "final");
        const torch::Tensor logits = logitsOf(*model);
        QVERIFY2(maxRel(logits, m_logits.at("logits_trained")) <= 1e-4,
                 qPrintable(QString::number(maxRel(logits, m_logits.at("logits_trained")))));
        // ... in PEFT over bitsandbytes' base, and the merged export in transformers
        const fs::path result = dir() / "check.safetensors";
        const QString err = runPython(
            {"check", QString::fromStdString(m_ref.string()), QString::fromStdString((out / "final").string()),
             QString::fromStdString(merged.string()), QString::fromStdString(result.string())});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        const auto check = loadSafetensors(result);
        QVERIFY2(maxRel(check.at("logits_adapter"), logits) <= 1e-5,
                 qPrintable(QString::number(maxRel(check.at("logits_adapter"), logits))));
        QVERIFY2(maxRel(check.at("logits_merged"), logits) <= 1e-5,
                 qPrintable(QString::number(maxRel(check.at("logits_merged"), logits))));
        const json exported = json::parse(readFile(merged / "config.json"));
        QVERIFY(!exported.contains("quantization_config"));
    }

    // Every other decoder family: quantized as it loads, 20 QLoRA steps from PEFT's initial adapter give PEFT's
    // losses over bitsandbytes' base (fp32 compute, 1e-5 relative).
    void familiesTrainAsPeft_data() {
        QTest::addColumn<QString>("family");
        for (const char* f : {"qwen3", "gemma2", "gemma3_text", "phi3", "olmo2", "granite", "smollm3"})
            QTest::newRow(f) << f;
    }
    void familiesTrainAsPeft() {
        QFETCH(QString, family);
        const fs::path ref = dir() / ("ref-" + family.toStdString());
        fs::create_directories(ref);
        const QString err = runPython({"prep", QString::fromStdString(ref.string()),
                                       QString::fromStdString((kQuickstart / "model").string()), "nf4", "1", family});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        const auto theirs = json::parse(readFile(ref / "ref.json")).at("losses").get<std::vector<double>>();
        json doc = config(dir() / ("run-" + family.toStdString()), 20);
        doc["model"]["path"] = (ref / "base").string();
        doc["model"]["lora"]["init_from"] = (ref / "adapter0").string();
        doc["data"]["train"] = (ref / "fixed.jsonl").string();
        CapturingSink sink;
        std::atomic<bool> stop{false};
        QVERIFY(runTraining(parsed(doc), {}, sink, stop) == TrainOutcome::Completed);
        const std::vector<double> ours = sink.values("loss");
        QCOMPARE(ours.size(), theirs.size());
        double worst = 0;
        for (size_t i = 0; i < ours.size(); ++i) worst = std::max(worst, std::abs(ours[i] - theirs[i]) / theirs[i]);
        qInfo("%s: 20 QLoRA steps vs PEFT + bitsandbytes: worst relative loss difference %.3g (%.4f -> %.4f)",
              qPrintable(family), worst, theirs.front(), theirs.back());
        QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
        QVERIFY(theirs.back() < theirs.front());
    }

    // A mixture of experts (Qwen3-MoE, a dense layer, the load-balancing loss on): LoRA over the float32 base on the
    // attention, the dense MLP and the experts (PEFT's target_parameters) from PEFT's own initial adapter gives PEFT's
    // per-step losses over 20 steps.
    void mixtureOfExpertsLoraTrainsAsPeft() {
        const fs::path ref = dir() / "ref-qwen3_moe";
        fs::create_directories(ref);
        const QString err =
            runPython({"prep", QString::fromStdString(ref.string()),
                       QString::fromStdString((kQuickstart / "model").string()), "none", "0", "qwen3_moe"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        const auto theirs = json::parse(readFile(ref / "ref.json")).at("losses").get<std::vector<double>>();
        json doc = config(dir() / "run-qwen3_moe", 20);
        doc["model"].erase("quantization");
        doc["model"]["path"] = (ref / "base").string();
        doc["model"]["lora"]["init_from"] = (ref / "adapter0").string();
        doc["data"]["train"] = (ref / "fixed.jsonl").string();
        CapturingSink sink;
        std::atomic<bool> stop{false};
        QVERIFY(runTraining(parsed(doc), {}, sink, stop) == TrainOutcome::Completed);
        const std::vector<double> ours = sink.values("loss");
        QCOMPARE(ours.size(), theirs.size());
        double worst = 0;
        for (size_t i = 0; i < ours.size(); ++i) worst = std::max(worst, std::abs(ours[i] - theirs[i]) / theirs[i]);
        qInfo("qwen3_moe: 20 LoRA steps (experts too) vs PEFT: worst relative loss difference %.3g (%.4f -> %.4f)",
              worst, theirs.front(), theirs.back());
        QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
        QVERIFY(theirs.back() < theirs.front());
    }

    void resumeIsExact() {
        CapturingSink whole, first, rest;
        std::atomic<bool> stop{false};
        QVERIFY(runTraining(parsed(config(dir() / "whole", 6)), {}, whole, stop) == TrainOutcome::Completed);
        QVERIFY(runTraining(parsed(config(dir() / "parts", 3)), {}, first, stop) == TrainOutcome::Completed);
        TrainOptions resume;
        resume.resume = true;
        QVERIFY(runTraining(parsed(config(dir() / "parts", 6)), resume, rest, stop) == TrainOutcome::Completed);
        const auto a = whole.values("loss"), b = rest.values("loss");
        QCOMPARE(b.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) QCOMPARE(b[i], a[3 + i]);
    }
};

QTEST_APPLESS_MAIN(TestQloraGolden)
#include "test_qlora_golden.moc"
