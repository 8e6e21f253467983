// Tests of the training-config parser: every validation rule (table-driven), DeepSpeed's batch-triple
// resolution against numbers DeepSpeed 0.19.8 itself produced (tests/data/config/batch_reference.json),
// path resolution, JSON syntax errors, loading from a file and the resolved-JSON round trip.
#include "core/config/train_config.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <fstream>

#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(std::string)

namespace {

const fs::path kBase = "/base";

json baseDoc() {
    return json::parse(R"({
        "model": {"path": "model"},
        "data": {"train": "train.jsonl"},
        "training": {"output_dir": "out", "max_steps": 10},
        "deepspeed": {"train_micro_batch_size_per_gpu": 2}
    })");
}

// baseDoc() with an RFC 7386 merge patch applied (null in the patch removes a key).
json patched(const QString& patch) {
    json d = baseDoc();
    d.merge_patch(json::parse(patch.toStdString()));
    return d;
}

ConfigParseResult parse(const json& d, int worldSize = 1) { return parseTrainConfig(d, kBase, worldSize); }

QByteArray describe(const ConfigParseResult& r) {
    std::string s = r.ok() ? "ok" : "not ok";
    for (const auto& i : r.issues)
        s += std::string("\n  [") + (i.isError ? "error" : "warning") + "] " + i.keyPath + ": " + i.message;
    return QByteArray::fromStdString(s);
}

const ConfigIssue* issueAt(const ConfigParseResult& r, const std::string& key, bool isError) {
    for (const auto& i : r.issues)
        if (i.keyPath == key && i.isError == isError) return &i;
    return nullptr;
}

size_t countIssues(const ConfigParseResult& r, bool isError) {
    size_t n = 0;
    for (const auto& i : r.issues) n += i.isError == isError ? 1 : 0;
    return n;
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

// Checks: ok -> no errors; else an error at errorKey whose message contains errorText.
#define CHECK_OUTCOME(r, errorKey, errorText)                                                                         \
    do {                                                                                                              \
        if ((errorKey).isEmpty()) {                                                                                   \
            QVERIFY2((r).ok(), describe(r).constData());                                                              \
        } else {                                                                                                      \
            QVERIFY2(!(r).ok(), describe(r).constData());                                                             \
            const ConfigIssue* issue_ = issueAt((r), (errorKey).toStdString(), true);                                 \
            QVERIFY2(issue_, ("no error at " + (errorKey).toStdString() + "\n" + describe(r).toStdString()).c_str()); \
            QVERIFY2(issue_->message.find((errorText).toStdString()) != std::string::npos,                            \
                     ("message: " + issue_->message).c_str());                                                        \
        }                                                                                                             \
    } while (0)

}  // namespace

class TestTrainConfig : public QObject {
    Q_OBJECT

private slots:
    void minimalConfigGetsHeaderDefaults();
    void batchTriple_data();
    void batchTriple();
    void batchTripleMatchesDeepSpeed_data();
    void batchTripleMatchesDeepSpeed();
    void batchValueTypeErrors_data();
    void batchValueTypeErrors();
    void precision_data();
    void precision();
    void optimizer_data();
    void optimizer();
    void scheduler_data();
    void scheduler();
    void optimizerLrBesideSchedulerPeak();
    void zeroStage_data();
    void zeroStage();
    void zeroKeys();
    void unknownKeys_data();
    void unknownKeys();
    void typeAndRangeErrors_data();
    void typeAndRangeErrors();
    void requiredKeys_data();
    void requiredKeys();
    void everyErrorReportedAtOnce();
    void pathResolution_data();
    void pathResolution();
    void jsonSyntaxError_data();
    void jsonSyntaxError();
    void duplicateKeysAreErrors();
    void loadValidMinimalFile();
    void loadFullExampleFile();
    void shippedQuickstartConfigIsValid();
    void loadInvalidFileThrowsWithEveryError();
    void loadMissingFileThrowsIoError();
    void resolvedJsonRoundTrips_data();
    void resolvedJsonRoundTrips();
    void worldSizeMustBePositive();
    void loraSection();
    void qloraExportsTheAdapterByDefault();
    void offloadKeys();
    void offloadErrors_data();
    void offloadErrors();
    void aioBlock();
    void samplePromptsKeys();
    void everyAcceptedKeyIsUsedOrWarned_data();
    void everyAcceptedKeyIsUsedOrWarned();
};

// A 4-bit base: the run's export is the adapter (a merged 14B model would be 59 GB in float32), unless the config
// asks; a LoRA run over a plain base merges as before; a folder saved quantized counts as a 4-bit base.
void TestTrainConfig::qloraExportsTheAdapterByDefault() {
    const QString q = R"({"model":{"lora":{"r":8},"quantization":{"load_in_4bit":true}}})";
    ConfigParseResult r = parse(patched(q));
    QVERIFY2(r.ok(), describe(r).constData());
    QVERIFY(!r.config->model.lora.mergeOnExport);
    QVERIFY(configToResolvedJson(*r.config)["model"]["lora"]["merge_on_export"] == json(false));
    r = parse(patched(R"({"model":{"lora":{"r":8,"merge_on_export":true},"quantization":{"load_in_4bit":true}}})"));
    QVERIFY2(r.ok(), describe(r).constData());
    QVERIFY(r.config->model.lora.mergeOnExport);
    r = parse(patched(R"({"model":{"lora":{"r":8}}})"));
    QVERIFY(r.config->model.lora.mergeOnExport);
    QTemporaryDir dir;
    std::ofstream(dir.filePath("config.json").toStdString())
        << R"({"model_type":"llama","quantization_config":{"load_in_4bit":true,"quant_method":"bitsandbytes"}})";
    json d = patched(R"({"model":{"lora":{"r":8}}})");
    d["model"]["path"] = dir.path().toStdString();
    r = parse(d);
    QVERIFY(r.config->model.lora.mergeOnExport == false);
}

void TestTrainConfig::minimalConfigGetsHeaderDefaults() {
    ConfigParseResult r = parse(baseDoc());
    QVERIFY2(r.ok(), describe(r).constData());
    QCOMPARE(countIssues(r, false), size_t(0));
    const TrainConfig& c = *r.config;
    QCOMPARE(c.model.path, fs::path("/base/model"));
    QCOMPARE(c.model.init, std::string("pretrained"));
    QCOMPARE(c.model.tokenizer, fs::path("/base/model/tokenizer.json"));
    QCOMPARE(c.data.train, fs::path("/base/train.jsonl"));
    QVERIFY(c.data.eval.empty());
    QCOMPARE(c.data.textField, std::string("text"));
    QCOMPARE(c.data.evalFraction, 0.05);
    QCOMPARE(c.data.maxLength, int64_t(128));
    QCOMPARE(c.data.format, std::string("lm"));
    QVERIFY(!c.data.instructionFormat());
    QCOMPARE(c.data.chatTemplate, std::string("auto"));
    QVERIFY(!c.data.trainOnPrompt);
    QVERIFY(!c.data.packing);
    QVERIFY(c.data.shuffle);
    QVERIFY(!c.data.seed.has_value());
    QCOMPARE(c.data.onBadRow, std::string("skip"));
    QVERIFY(c.data.columns.empty());
    QVERIFY2(c.data.cacheDir.is_absolute() && c.data.cacheDir.filename() == "token_cache", c.data.cacheDir.c_str());
    QCOMPARE(c.training.maxSteps, int64_t(10));
    QCOMPARE(c.training.epochs, 1.0);
    QCOMPARE(c.training.evalInterval, int64_t(0));
    QCOMPARE(c.training.evalBatches, int64_t(0));
    QCOMPARE(c.training.saveInterval, int64_t(0));
    QCOMPARE(c.training.logInterval, int64_t(1));
    QCOMPARE(c.training.outputDir, fs::path("/base/out"));
    QCOMPARE(c.training.seed, uint64_t(42));
    QVERIFY(c.training.runName.empty());  // no file: nothing to derive it from
    QCOMPARE(c.training.device, std::string("auto"));
    QCOMPARE(c.training.keepCheckpoints, int64_t(2));
    const DeepSpeedConfig& ds = c.deepspeed;
    QCOMPARE(ds.trainBatchSize, int64_t(2));
    QCOMPARE(ds.microBatchPerGpu, int64_t(2));
    QCOMPARE(ds.gradientAccumulationSteps, int64_t(1));
    QCOMPARE(ds.worldSize, 1);
    QCOMPARE(ds.gradientClipping, 1.0);  // DeepSpeed 0.19.8 GRADIENT_CLIPPING_DEFAULT
    QVERIFY(!ds.fp16.enabled);
    QVERIFY(!ds.bf16);
    QCOMPARE(ds.optimizer.type, std::string("AdamW"));
    QCOMPARE(ds.optimizer.lr, 1e-3);
    QCOMPARE(ds.optimizer.beta1, 0.9);
    QCOMPARE(ds.optimizer.beta2, 0.999);
    QCOMPARE(ds.optimizer.eps, 1e-8);
    QCOMPARE(ds.optimizer.weightDecay, 0.0);
    QVERIFY(ds.optimizer.adamWMode);
    QVERIFY(ds.scheduler.type == SchedulerType::None);
    QCOMPARE(ds.zeroStage, 0);
    QCOMPARE(ds.steps_per_print, 10);
    QVERIFY(c.raw == baseDoc());
}

// ---- batch triple (hand-derived from DeepSpeed's _set_batch_related_parameters / _batch_assertion) ----

void TestTrainConfig::batchTriple_data() {
    QTest::addColumn<QString>("block");
    QTest::addColumn<int>("worldSize");
    QTest::addColumn<int>("tb");
    QTest::addColumn<int>("mb");
    QTest::addColumn<int>("gas");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    const QString ok;
    const QString tbKey = "deepspeed.train_batch_size", mbKey = "deepspeed.train_micro_batch_size_per_gpu",
                  gasKey = "deepspeed.gradient_accumulation_steps";
    const QString all3 =
        R"({"train_batch_size":16,"train_micro_batch_size_per_gpu":2,"gradient_accumulation_steps":2})";
    QTest::newRow("all three, consistent at ws 4") << all3 << 4 << 16 << 2 << 2 << ok << ok;
    QTest::newRow("all three, ws 1 mismatch")
        << all3 << 1 << 0 << 0 << 0 << tbKey
        << "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 16 != 2 * 2 * 1";
    QTest::newRow("all three, ws 2 mismatch") << all3 << 2 << 0 << 0 << 0 << tbKey << "16 != 2 * 2 * 2";
    const QString tbMb = R"({"train_batch_size":32,"train_micro_batch_size_per_gpu":4})";
    QTest::newRow("tb+mb ws1") << tbMb << 1 << 32 << 4 << 8 << ok << ok;
    QTest::newRow("tb+mb ws2") << tbMb << 2 << 32 << 4 << 4 << ok << ok;
    QTest::newRow("tb+mb ws4") << tbMb << 4 << 32 << 4 << 2 << ok << ok;
    const QString tbMbOdd = R"({"train_batch_size":10,"train_micro_batch_size_per_gpu":3})";
    QTest::newRow("tb+mb floor, ws1") << tbMbOdd << 1 << 0 << 0 << 0 << tbKey << "10 != 3 * 3 * 1";
    QTest::newRow("tb+mb floor, ws2") << tbMbOdd << 2 << 0 << 0 << 0 << tbKey << "10 != 3 * 1 * 2";
    QTest::newRow("tb+mb accumulation 0, ws4")
        << tbMbOdd << 4 << 0 << 0 << 0 << gasKey << "Gradient accumulation steps: 0 has to be greater than 0";
    QTest::newRow("tb < mb") << R"({"train_batch_size":2,"train_micro_batch_size_per_gpu":4})" << 1 << 0 << 0 << 0
                             << gasKey << "Gradient accumulation steps: 0 has to be greater than 0";
    const QString tbGas = R"({"train_batch_size":16,"gradient_accumulation_steps":2})";
    QTest::newRow("tb+gas ws1") << tbGas << 1 << 16 << 8 << 2 << ok << ok;
    QTest::newRow("tb+gas ws2") << tbGas << 2 << 16 << 4 << 2 << ok << ok;
    QTest::newRow("tb+gas ws4") << tbGas << 4 << 16 << 2 << 2 << ok << ok;
    const QString tbGasOdd = R"({"train_batch_size":12,"gradient_accumulation_steps":5})";
    QTest::newRow("tb+gas floor, ws1") << tbGasOdd << 1 << 0 << 0 << 0 << tbKey << "12 != 2 * 5 * 1";
    QTest::newRow("tb+gas micro 0, ws4") << tbGasOdd << 4 << 0 << 0 << 0 << mbKey
                                         << "Micro batch size per gpu: 0 has to be greater than 0";
    const QString mbGas = R"({"train_micro_batch_size_per_gpu":3,"gradient_accumulation_steps":4})";
    QTest::newRow("mb+gas ws1") << mbGas << 1 << 12 << 3 << 4 << ok << ok;
    QTest::newRow("mb+gas ws2") << mbGas << 2 << 24 << 3 << 4 << ok << ok;
    QTest::newRow("mb+gas ws4") << mbGas << 4 << 48 << 3 << 4 << ok << ok;
    QTest::newRow("tb only ws1") << R"({"train_batch_size":8})" << 1 << 8 << 8 << 1 << ok << ok;
    QTest::newRow("tb only ws2") << R"({"train_batch_size":8})" << 2 << 8 << 4 << 1 << ok << ok;
    QTest::newRow("tb only ws4") << R"({"train_batch_size":8})" << 4 << 8 << 2 << 1 << ok << ok;
    QTest::newRow("tb only indivisible ws4")
        << R"({"train_batch_size":6})" << 4 << 0 << 0 << 0 << tbKey << "6 != 1 * 1 * 4";
    QTest::newRow("mb only ws1") << R"({"train_micro_batch_size_per_gpu":5})" << 1 << 5 << 5 << 1 << ok << ok;
    QTest::newRow("mb only ws2") << R"({"train_micro_batch_size_per_gpu":5})" << 2 << 10 << 5 << 1 << ok << ok;
    QTest::newRow("mb only ws4") << R"({"train_micro_batch_size_per_gpu":5})" << 4 << 20 << 5 << 1 << ok << ok;
    const QString neither = "Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided";
    QTest::newRow("gas only") << R"({"gradient_accumulation_steps":4})" << 1 << 0 << 0 << 0 << tbKey << neither;
    QTest::newRow("none") << "{}" << 2 << 0 << 0 << 0 << tbKey << neither;
    QTest::newRow("auto tb and gas")
        << R"({"train_batch_size":"auto","train_micro_batch_size_per_gpu":4,"gradient_accumulation_steps":"auto"})" << 2
        << 8 << 4 << 1 << ok << ok;
    // All three "auto" and nothing in the training section: the Trainer's defaults (micro batch 8, accumulation 1).
    QTest::newRow("all auto")
        << R"({"train_batch_size":"auto","train_micro_batch_size_per_gpu":"auto","gradient_accumulation_steps":"auto"})"
        << 2 << 16 << 8 << 1 << ok << ok;
    QTest::newRow("auto gas ws4")
        << R"({"train_batch_size":24,"train_micro_batch_size_per_gpu":2,"gradient_accumulation_steps":"auto"})" << 4
        << 24 << 2 << 3 << ok << ok;
    QTest::newRow("null counts as absent")
        << R"({"train_batch_size":null,"train_micro_batch_size_per_gpu":4})" << 1 << 4 << 4 << 1 << ok << ok;
    QTest::newRow("integral float") << R"({"train_batch_size":8.0})" << 1 << 8 << 8 << 1 << ok << ok;
    QTest::newRow("micro 0") << R"({"train_micro_batch_size_per_gpu":0})" << 1 << 0 << 0 << 0 << tbKey
                             << "Train batch size: 0 has to be greater than 0";
    QTest::newRow("micro 0 is also named") << R"({"train_micro_batch_size_per_gpu":0})" << 1 << 0 << 0 << 0 << mbKey
                                           << "Micro batch size per gpu: 0 has to be greater than 0";
    QTest::newRow("micro 0 as divisor") << R"({"train_batch_size":8,"train_micro_batch_size_per_gpu":0})" << 1 << 0 << 0
                                        << 0 << mbKey << "Micro batch size per gpu: 0 has to be greater than 0";
    QTest::newRow("negative tb") << R"({"train_batch_size":-8,"train_micro_batch_size_per_gpu":4})" << 1 << 0 << 0 << 0
                                 << tbKey << "Train batch size: -8 has to be greater than 0";
    QTest::newRow("product overflows int64")
        << R"({"train_micro_batch_size_per_gpu":4611686018427387904,"gradient_accumulation_steps":4})" << 1 << 0 << 0
        << 0 << tbKey << "does not fit a 64-bit integer";
    QTest::newRow("derivation explained")
        << tbMbOdd << 1 << 0 << 0 << 0 << tbKey
        << "gradient_accumulation_steps derived as train_batch_size // train_micro_batch_size_per_gpu // world_size = 10 // 3 // 1 = 3";
}

void TestTrainConfig::batchTriple() {
    QFETCH(QString, block);
    QFETCH(int, worldSize);
    QFETCH(int, tb);
    QFETCH(int, mb);
    QFETCH(int, gas);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    json d = baseDoc();
    d["deepspeed"] = json::parse(block.toStdString());
    ConfigParseResult r = parse(d, worldSize);
    CHECK_OUTCOME(r, errorKey, errorText);
    if (!r.ok()) return;
    const DeepSpeedConfig& ds = r.config->deepspeed;
    QCOMPARE(ds.trainBatchSize, int64_t(tb));
    QCOMPARE(ds.microBatchPerGpu, int64_t(mb));
    QCOMPARE(ds.gradientAccumulationSteps, int64_t(gas));
    QCOMPARE(ds.worldSize, worldSize);
    QCOMPARE(ds.trainBatchSize, ds.microBatchPerGpu * ds.gradientAccumulationSteps * worldSize);
}

// ---- batch triple against DeepSpeed's own resolution (generated by make_lr_reference.py) ----

void TestTrainConfig::batchTripleMatchesDeepSpeed_data() {
    QTest::addColumn<std::string>("given");
    QTest::addColumn<int>("worldSize");
    QTest::addColumn<std::string>("expected");
    const std::string text = readFile(fs::path(FTS_TEST_DATA_DIR) / "config" / "batch_reference.json");
    QVERIFY2(!text.empty(), "tests/data/config/batch_reference.json is missing");
    const json ref = json::parse(text);
    QCOMPARE(ref.at("deepspeed").get<std::string>(), std::string("0.19.8"));
    QVERIFY(ref.at("cases").size() >= 40);
    for (const auto& c : ref.at("cases")) {
        // "auto" without an explicit train_batch_size or micro batch takes the Trainer's defaults here (as the
        // Trainer fills it; test_trainer_auto.cpp), where DeepSpeed alone cannot read "auto" at all.
        const json& g = c.at("given");
        auto isNumber = [&](const char* k) { return g.contains(k) && g.at(k).is_number(); };
        bool anyAuto = false;
        for (const auto& v : g) anyAuto = anyAuto || v == "auto";
        if (anyAuto && !isNumber("train_batch_size") && !isNumber("train_micro_batch_size_per_gpu")) continue;
        const std::string name = c.at("given").dump() + " ws=" + std::to_string(c.at("world_size").get<int>());
        QTest::newRow(name.c_str()) << c.at("given").dump() << c.at("world_size").get<int>()
                                    << c.at("deepspeed").dump();
    }
}

void TestTrainConfig::batchTripleMatchesDeepSpeed() {
    QFETCH(std::string, given);
    QFETCH(int, worldSize);
    QFETCH(std::string, expected);
    json d = baseDoc();
    d["deepspeed"] = json::parse(given);
    const json want = json::parse(expected);
    ConfigParseResult r = parse(d, worldSize);
    if (want.contains("error")) {
        // DeepSpeed stops at its first failed assertion; that message must be among ours (ours may add a
        // note on how a value was derived).
        QVERIFY2(!r.ok(), describe(r).constData());
        const std::string msg = want["error"].get<std::string>();
        bool found = false;
        for (const auto& i : r.issues)
            if (i.isError && i.message.rfind(msg, 0) == 0) found = true;
        QVERIFY2(found, ("DeepSpeed said: " + msg + "\n" + describe(r).toStdString()).c_str());
    } else {
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(r.config->deepspeed.trainBatchSize, want["train_batch_size"].get<int64_t>());
        QCOMPARE(r.config->deepspeed.microBatchPerGpu, want["train_micro_batch_size_per_gpu"].get<int64_t>());
        QCOMPARE(r.config->deepspeed.gradientAccumulationSteps, want["gradient_accumulation_steps"].get<int64_t>());
    }
}

void TestTrainConfig::batchValueTypeErrors_data() {
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    QTest::newRow("string") << R"({"train_micro_batch_size_per_gpu":"abc"})"
                            << "deepspeed.train_micro_batch_size_per_gpu"
                            << R"(expected a positive integer or "auto", got "abc")";
    QTest::newRow("fraction") << R"({"train_batch_size":2.5})"
                              << "deepspeed.train_batch_size"
                              << R"(expected a positive integer or "auto", got 2.5)";
    QTest::newRow("bool") << R"({"train_micro_batch_size_per_gpu":2,"gradient_accumulation_steps":true})"
                          << "deepspeed.gradient_accumulation_steps"
                          << "got true";
    QTest::newRow("array") << R"({"train_micro_batch_size_per_gpu":[4]})"
                           << "deepspeed.train_micro_batch_size_per_gpu"
                           << "got [4]";
}

void TestTrainConfig::batchValueTypeErrors() {
    QFETCH(QString, block);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    json d = baseDoc();
    d["deepspeed"] = json::parse(block.toStdString());
    ConfigParseResult r = parse(d);
    CHECK_OUTCOME(r, errorKey, errorText);
    QCOMPARE(countIssues(r, true), size_t(1));  // no follow-on batch assertion noise
}

// ---- fp16 / bf16 ----

void TestTrainConfig::precision_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<bool>("fp16");
    QTest::addColumn<bool>("bf16");
    QTest::addColumn<double>("lossScale");
    QTest::addColumn<int>("scalePower");
    QTest::addColumn<int>("window");
    QTest::addColumn<int>("hysteresis");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    QTest::addColumn<QString>("warningKey");
    const QString ok;
    QTest::newRow("fp16 defaults") << R"({"deepspeed":{"fp16":{"enabled":true}}})" << true << false << 0.0 << 16 << 1000
                                   << 2 << ok << ok << ok;
    QTest::newRow("fp16 all fields")
        << R"({"deepspeed":{"fp16":{"enabled":true,"loss_scale":128,"initial_scale_power":12,"loss_scale_window":500,"hysteresis":3,"consecutive_hysteresis":true,"min_loss_scale":2}}})"
        << true << false << 128.0 << 12 << 500 << 3 << ok << ok << ok;
    QTest::newRow("fp16 auto enabled is off")
        << R"({"deepspeed":{"fp16":{"enabled":"auto"}}})" << false << false << 0.0 << 16 << 1000 << 2 << ok << ok << ok;
    QTest::newRow("bf16") << R"({"deepspeed":{"bf16":{"enabled":true}}})" << false << true << 0.0 << 16 << 1000 << 2
                          << ok << ok << ok;
    QTest::newRow("legacy bfloat16") << R"({"deepspeed":{"bfloat16":{"enabled":true}}})" << false << true << 0.0 << 16
                                     << 1000 << 2 << ok << ok << ok;
    QTest::newRow("bf16 wins over bfloat16")
        << R"({"deepspeed":{"bf16":{"enabled":false},"bfloat16":{"enabled":true}}})" << false << false << 0.0 << 16
        << 1000 << 2 << ok << ok << "deepspeed.bfloat16";
    QTest::newRow("both enabled") << R"({"deepspeed":{"fp16":{"enabled":true},"bf16":{"enabled":true}}})" << false
                                  << false << 0.0 << 0 << 0 << 0 << "deepspeed.bf16.enabled"
                                  << "bfloat16 and fp16 modes cannot be simultaneously enabled" << ok;
    QTest::newRow("both enabled, legacy") << R"({"deepspeed":{"fp16":{"enabled":true},"bfloat16":{"enabled":true}}})"
                                          << false << false << 0.0 << 0 << 0 << 0 << "deepspeed.bfloat16.enabled"
                                          << "cannot be simultaneously enabled" << ok;
    QTest::newRow("negative loss scale") << R"({"deepspeed":{"fp16":{"enabled":true,"loss_scale":-1}}})" << false
                                         << false << 0.0 << 0 << 0 << 0 << "deepspeed.fp16.loss_scale"
                                         << "expected a number >= 0 (0 enables dynamic loss scaling), got -1" << ok;
    QTest::newRow("bool loss scale") << R"({"deepspeed":{"fp16":{"loss_scale":true}}})" << false << false << 0.0 << 0
                                     << 0 << 0 << "deepspeed.fp16.loss_scale"
                                     << "got true" << ok;
    QTest::newRow("window 0 with dynamic scaling")
        << R"({"deepspeed":{"fp16":{"enabled":true,"loss_scale_window":0}}})" << false << false << 0.0 << 0 << 0 << 0
        << "deepspeed.fp16.loss_scale_window"
        << "must be > 0 when dynamic loss scaling is enabled" << ok;
    QTest::newRow("window 0 with static scale is fine")
        << R"({"deepspeed":{"fp16":{"enabled":true,"loss_scale":1024,"loss_scale_window":0}}})" << true << false
        << 1024.0 << 16 << 0 << 2 << ok << ok << ok;
    QTest::newRow("min scale 0 with dynamic scaling")
        << R"({"deepspeed":{"fp16":{"enabled":true,"min_loss_scale":0}}})" << false << false << 0.0 << 0 << 0 << 0
        << "deepspeed.fp16.min_loss_scale"
        << "must be > 0" << ok;
    QTest::newRow("hysteresis 0") << R"({"deepspeed":{"fp16":{"enabled":true,"hysteresis":0}}})" << false << false
                                  << 0.0 << 0 << 0 << 0 << "deepspeed.fp16.hysteresis"
                                  << "expected a positive integer" << ok;
    QTest::newRow("scale power too big") << R"({"deepspeed":{"fp16":{"initial_scale_power":200}}})" << false << false
                                         << 0.0 << 0 << 0 << 0 << "deepspeed.fp16.initial_scale_power"
                                         << "got 200" << ok;
    QTest::newRow("enabled not a bool") << R"({"deepspeed":{"bf16":{"enabled":"yes"}}})" << false << false << 0.0 << 0
                                        << 0 << 0 << "deepspeed.bf16.enabled"
                                        << R"(expected true or false, got "yes")" << ok;
    QTest::newRow("fp16 not an object") << R"({"deepspeed":{"fp16":true}})" << false << false << 0.0 << 0 << 0 << 0
                                        << "deepspeed.fp16"
                                        << "expected an object" << ok;
    QTest::newRow("fp16 master weights need ZeRO")
        << R"({"deepspeed":{"fp16":{"enabled":true,"fp16_master_weights_and_grads":true}}})" << false << false << 0.0
        << 0 << 0 << 0 << "deepspeed.fp16.fp16_master_weights_and_grads"
        << "only supported with ZeRO Stage 1, 2, or 3" << ok;
    QTest::newRow("auto_cast is ignored") << R"({"deepspeed":{"fp16":{"enabled":true,"auto_cast":true}}})" << true
                                          << false << 0.0 << 16 << 1000 << 2 << ok << ok << "deepspeed.fp16.auto_cast";
    QTest::newRow("immediate_grad_update is ignored")
        << R"({"deepspeed":{"bf16":{"enabled":true,"immediate_grad_update":true}}})" << false << true << 0.0 << 16
        << 1000 << 2 << ok << ok << "deepspeed.bf16.immediate_grad_update";
}

void TestTrainConfig::precision() {
    QFETCH(QString, patch);
    QFETCH(bool, fp16);
    QFETCH(bool, bf16);
    QFETCH(double, lossScale);
    QFETCH(int, scalePower);
    QFETCH(int, window);
    QFETCH(int, hysteresis);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    QFETCH(QString, warningKey);
    ConfigParseResult r = parse(patched(patch));
    CHECK_OUTCOME(r, errorKey, errorText);
    if (!warningKey.isEmpty()) QVERIFY2(issueAt(r, warningKey.toStdString(), false), describe(r).constData());
    if (!r.ok()) return;
    const DeepSpeedConfig& ds = r.config->deepspeed;
    QCOMPARE(ds.fp16.enabled, fp16);
    QCOMPARE(ds.bf16, bf16);
    QCOMPARE(ds.fp16.lossScale, lossScale);
    QCOMPARE(ds.fp16.initialScalePower, scalePower);
    QCOMPARE(ds.fp16.lossScaleWindow, window);
    QCOMPARE(ds.fp16.hysteresis, hysteresis);
}

// ---- optimizer (engine._configure_basic_optimizer semantics, FusedAdam defaults) ----

void TestTrainConfig::optimizer_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("adamWMode");
    QTest::addColumn<double>("lr");
    QTest::addColumn<double>("weightDecay");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    QTest::addColumn<QString>("warningKey");
    const QString ok;
    QTest::newRow("no optimizer block") << "{}"
                                        << "AdamW" << true << 1e-3 << 0.0 << ok << ok << ok;
    QTest::newRow("Adam defaults to decoupled") << R"({"deepspeed":{"optimizer":{"type":"Adam","params":{"lr":3e-4}}}})"
                                                << "Adam" << true << 3e-4 << 0.0 << ok << ok << ok;
    QTest::newRow("adam lower case, L2 mode")
        << R"({"deepspeed":{"optimizer":{"type":"adam","params":{"adam_w_mode":false,"weight_decay":0.1}}}})"
        << "Adam" << false << 1e-3 << 0.1 << ok << ok << ok;
    QTest::newRow("ADAMW upper case")
        << R"({"deepspeed":{"optimizer":{"type":"ADAMW","params":{"lr":2e-5,"weight_decay":0.01}}}})"
        << "AdamW" << true << 2e-5 << 0.01 << ok << ok << ok;
    QTest::newRow("AdamW forces decoupled")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"adam_w_mode":false}}}})"
        << "AdamW" << true << 1e-3 << 0.0 << ok << ok << "deepspeed.optimizer.params.adam_w_mode";
    QTest::newRow("torch_adam AdamW default decay")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"torch_adam":true}}}})"
        << "AdamW" << true << 1e-3 << 0.01 << ok << ok << "deepspeed.optimizer.params.torch_adam";
    QTest::newRow("torch_adam L2 Adam default decay")
        << R"({"deepspeed":{"optimizer":{"type":"Adam","params":{"torch_adam":true,"adam_w_mode":false}}}})"
        << "Adam" << false << 1e-3 << 0.0 << ok << ok << ok;
    QTest::newRow("auto lr is the Trainer's default")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":"auto","weight_decay":"auto","betas":"auto","eps":"auto"}}}})"
        << "AdamW" << true << 5e-5 << 0.0 << ok << ok << ok;
    QTest::newRow("Lamb unsupported")
        << R"({"deepspeed":{"optimizer":{"type":"Lamb"}}})"
        << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.type"
        << R"(optimizer type "Lamb" is not supported by Finetune Studio yet; supported: Adam, AdamW)" << ok;
    QTest::newRow("OneBitAdam unsupported") << R"({"deepspeed":{"optimizer":{"type":"OneBitAdam"}}})"
                                            << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.type"
                                            << "supported: Adam, AdamW" << ok;
    QTest::newRow("missing type") << R"({"deepspeed":{"optimizer":{"params":{"lr":1e-4}}}})"
                                  << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.type"
                                  << "missing" << ok;
    QTest::newRow("lr a string") << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":"fast"}}}})"
                                 << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.lr"
                                 << R"(expected a number >= 0, got "fast")" << ok;
    QTest::newRow("negative weight decay")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"weight_decay":-0.1}}}})"
        << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.weight_decay"
        << "got -0.1" << ok;
    QTest::newRow("betas of three")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"betas":[0.9,0.99,0.9]}}}})"
        << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.betas"
        << "expected [beta1, beta2], each a number in [0, 1), got [0.9,0.99,0.9]" << ok;
    QTest::newRow("beta of 1") << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"betas":[0.9,1.0]}}}})"
                               << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.betas"
                               << "each a number in [0, 1)" << ok;
    QTest::newRow("max_grad_norm") << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"max_grad_norm":1.0}}}})"
                                   << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.max_grad_norm"
                                   << "gradient_clipping" << ok;
    QTest::newRow("unknown param") << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"momentum":0.9}}}})"
                                   << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.momentum"
                                   << R"(unknown Adam parameter "momentum")" << ok;
    QTest::newRow("amsgrad") << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"amsgrad":true}}}})"
                             << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.amsgrad"
                             << "not supported" << ok;
    QTest::newRow("no bias correction")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"bias_correction":false}}}})"
        << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.bias_correction"
        << "expected true" << ok;
    QTest::newRow("adam_w_mode not bool") << R"({"deepspeed":{"optimizer":{"type":"Adam","params":{"adam_w_mode":1}}}})"
                                          << "" << true << 0.0 << 0.0 << "deepspeed.optimizer.params.adam_w_mode"
                                          << "expected true or false, got 1" << ok;
}

void TestTrainConfig::optimizer() {
    QFETCH(QString, patch);
    QFETCH(QString, type);
    QFETCH(bool, adamWMode);
    QFETCH(double, lr);
    QFETCH(double, weightDecay);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    QFETCH(QString, warningKey);
    ConfigParseResult r = parse(patched(patch));
    CHECK_OUTCOME(r, errorKey, errorText);
    if (!warningKey.isEmpty()) QVERIFY2(issueAt(r, warningKey.toStdString(), false), describe(r).constData());
    if (!r.ok()) return;
    const OptimizerConfig& o = r.config->deepspeed.optimizer;
    QCOMPARE(QString::fromStdString(o.type), type);
    QCOMPARE(o.adamWMode, adamWMode);
    QCOMPARE(o.lr, lr);
    QCOMPARE(o.weightDecay, weightDecay);
}

// ---- scheduler (lr_schedules.py constructors) ----

void TestTrainConfig::scheduler_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<int>("type");  // SchedulerType
    QTest::addColumn<double>("minLr");
    QTest::addColumn<double>("maxLr");
    QTest::addColumn<int>("warmupSteps");
    QTest::addColumn<QString>("warmupType");
    QTest::addColumn<int>("totalSteps");
    QTest::addColumn<double>("minRatio");
    QTest::addColumn<double>("cosMinRatio");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    QTest::addColumn<QString>("warningKey");
    const QString ok;
    const int none = int(SchedulerType::None), wlr = int(SchedulerType::WarmupLR),
              wdl = int(SchedulerType::WarmupDecayLR), wcl = int(SchedulerType::WarmupCosineLR);
    QTest::newRow("none") << "{}" << none << 0.0 << 1e-3 << 1000 << "log" << 0 << 0.0 << 0.0001 << ok << ok << ok;
    QTest::newRow("WarmupLR defaults: max is the optimizer lr")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":5e-4}},"scheduler":{"type":"WarmupLR"}}})" << wlr
        << 0.0 << 5e-4 << 1000 << "log" << 0 << 0.0 << 0.0001 << ok << ok << ok;
    QTest::newRow("WarmupLR all params")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupLR","params":{"warmup_min_lr":1e-5,"warmup_max_lr":2e-3,"warmup_num_steps":50,"warmup_type":"linear"}}}})"
        << wlr << 1e-5 << 2e-3 << 50 << "linear" << 0 << 0.0 << 0.0001 << ok << ok << ok;
    QTest::newRow("WarmupDecayLR default max is 0.001, total from max_steps")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":5e-4}},"scheduler":{"type":"WarmupDecayLR","params":{"warmup_num_steps":3}}}})"
        << wdl << 0.0 << 1e-3 << 3 << "log" << 10 << 0.0 << 0.0001 << ok << ok << "deepspeed.optimizer.params.lr";
    QTest::newRow("WarmupLR explicit max other than the optimizer lr warns at the lr")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":1e-3}},"scheduler":{"type":"WarmupLR","params":{"warmup_max_lr":3e-3}}}})"
        << wlr << 0.0 << 3e-3 << 1000 << "log" << 0 << 0.0 << 0.0001 << ok << ok << "deepspeed.optimizer.params.lr";
    QTest::newRow("WarmupDecayLR auto values (HF style)")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":5e-4}},"scheduler":{"type":"WarmupDecayLR","params":{"warmup_min_lr":"auto","warmup_max_lr":"auto","warmup_num_steps":"auto","total_num_steps":"auto"}}}})"
        << wdl << 0.0 << 5e-4 << 1 << "log" << 10 << 0.0 << 0.0001 << ok << ok << ok;
    QTest::newRow("WarmupDecayLR explicit total")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupDecayLR","params":{"warmup_num_steps":5,"total_num_steps":100}}}})"
        << wdl << 0.0 << 1e-3 << 5 << "log" << 100 << 0.0 << 0.0001 << ok << ok << ok;
    QTest::newRow("WarmupDecayLR without total and without max_steps")
        << R"({"training":{"max_steps":null,"epochs":3},"deepspeed":{"scheduler":{"type":"WarmupDecayLR"}}})" << wdl
        << 0.0 << 1e-3 << 1000 << "log" << 0 << 0.0 << 0.0001 << ok << ok << ok;  // 0: the run's total
    QTest::newRow("WarmupCosineLR")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupCosineLR","params":{"total_num_steps":200,"warmup_num_steps":20,"warmup_min_ratio":0.1,"cos_min_ratio":0.01,"warmup_type":"linear"}}}})"
        << wcl << 0.0 << 1e-3 << 20 << "linear" << 200 << 0.1 << 0.01 << ok << ok << ok;
    QTest::newRow("WarmupCosineLR defaults")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupCosineLR"}}})" << wcl << 0.0 << 1e-3 << 1000 << "log" << 10
        << 0.0 << 0.0001 << ok << ok << "deepspeed.scheduler.params.total_num_steps";
    QTest::newRow("OneCycle unsupported")
        << R"({"deepspeed":{"scheduler":{"type":"OneCycle"}}})" << none << 0.0 << 0.0 << 0 << "" << 0 << 0.0 << 0.0
        << "deepspeed.scheduler.type"
        << R"(scheduler type "OneCycle" is not supported by Finetune Studio yet; supported: WarmupLR, WarmupDecayLR, WarmupCosineLR)"
        << ok;
    QTest::newRow("wrong case") << R"({"deepspeed":{"scheduler":{"type":"warmuplr"}}})" << none << 0.0 << 0.0 << 0 << ""
                                << 0 << 0.0 << 0.0 << "deepspeed.scheduler.type"
                                << R"(did you mean "WarmupLR"?)" << ok;
    QTest::newRow("missing type") << R"({"deepspeed":{"scheduler":{"params":{}}}})" << none << 0.0 << 0.0 << 0 << ""
                                  << 0 << 0.0 << 0.0 << "deepspeed.scheduler.type"
                                  << "missing" << ok;
    QTest::newRow("param the type does not take")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupLR","params":{"total_num_steps":100}}}})" << none << 0.0 << 0.0
        << 0 << "" << 0 << 0.0 << 0.0 << "deepspeed.scheduler.params.total_num_steps"
        << R"(WarmupLR does not take "total_num_steps")" << ok;
    QTest::newRow("cosine does not take warmup_max_lr")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupCosineLR","params":{"warmup_max_lr":0.1}}}})" << none << 0.0
        << 0.0 << 0 << "" << 0 << 0.0 << 0.0 << "deepspeed.scheduler.params.warmup_max_lr"
        << "its parameters are: total_num_steps, warmup_min_ratio, warmup_num_steps, cos_min_ratio, warmup_type" << ok;
    QTest::newRow("unknown warmup_type falls back to log")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupLR","params":{"warmup_type":"cosine"}}}})" << wlr << 0.0 << 1e-3
        << 1000 << "log" << 0 << 0.0 << 0.0001 << ok << ok << "deepspeed.scheduler.params.warmup_type";
    QTest::newRow("warmup steps 0")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupLR","params":{"warmup_num_steps":0}}}})" << none << 0.0 << 0.0
        << 0 << "" << 0 << 0.0 << 0.0 << "deepspeed.scheduler.params.warmup_num_steps"
        << "expected a positive integer, got 0" << ok;
    QTest::newRow("warmup steps a string")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupLR","params":{"warmup_num_steps":"abc"}}}})" << none << 0.0
        << 0.0 << 0 << "" << 0 << 0.0 << 0.0 << "deepspeed.scheduler.params.warmup_num_steps"
        << R"(expected a positive integer, got "abc")" << ok;
    QTest::newRow("negative min lr")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupLR","params":{"warmup_min_lr":-1e-5}}}})" << none << 0.0 << 0.0
        << 0 << "" << 0 << 0.0 << 0.0 << "deepspeed.scheduler.params.warmup_min_lr"
        << "expected a number >= 0" << ok;
    QTest::newRow("last_batch_iteration")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupLR","params":{"last_batch_iteration":5}}}})" << none << 0.0
        << 0.0 << 0 << "" << 0 << 0.0 << 0.0 << "deepspeed.scheduler.params.last_batch_iteration"
        << "got 5" << ok;
    QTest::newRow("total below warmup warns")
        << R"({"deepspeed":{"scheduler":{"type":"WarmupDecayLR","params":{"warmup_num_steps":50,"total_num_steps":20}}}})"
        << wdl << 0.0 << 1e-3 << 50 << "log" << 20 << 0.0 << 0.0001 << ok << ok
        << "deepspeed.scheduler.params.total_num_steps";
}

// The optimizer's lr is not the peak under WarmupLR/WarmupDecayLR: warned only where they differ.
void TestTrainConfig::optimizerLrBesideSchedulerPeak() {
    const auto lrWarning = [](const QString& patch) -> std::string {
        ConfigParseResult r = parse(patched(patch));
        const ConfigIssue* w = issueAt(r, "deepspeed.optimizer.params.lr", false);
        return w ? w->message : std::string();
    };
    const std::string differs = lrWarning(
        R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":0.001}},"scheduler":{"type":"WarmupDecayLR","params":{"warmup_max_lr":0.003,"total_num_steps":10}}}})");
    QVERIFY2(differs.find("0.001 is not the peak learning rate: WarmupDecayLR") != std::string::npos &&
                 differs.find("deepspeed.scheduler.params.warmup_max_lr = 0.003") != std::string::npos,
             differs.c_str());
    QVERIFY(
        lrWarning(
            R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":0.003}},"scheduler":{"type":"WarmupDecayLR","params":{"warmup_max_lr":0.003}}}})")
            .empty());
    QVERIFY(
        lrWarning(
            R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":0.003}},"scheduler":{"type":"WarmupDecayLR","params":{"warmup_max_lr":"auto"}}}})")
            .empty());
    QVERIFY(lrWarning(
                R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":0.003}},"scheduler":{"type":"WarmupLR"}}})")
                .empty());
    QVERIFY(
        lrWarning(
            R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":0.003}},"scheduler":{"type":"WarmupCosineLR","params":{"total_num_steps":10}}}})")
            .empty());
    const std::string byDefault = lrWarning(
        R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":0.0003}},"scheduler":{"type":"WarmupDecayLR"}}})");
    QVERIFY2(byDefault.find("= 0.001 (DeepSpeed's default)") != std::string::npos, byDefault.c_str());
}

void TestTrainConfig::scheduler() {
    QFETCH(QString, patch);
    QFETCH(int, type);
    QFETCH(double, minLr);
    QFETCH(double, maxLr);
    QFETCH(int, warmupSteps);
    QFETCH(QString, warmupType);
    QFETCH(int, totalSteps);
    QFETCH(double, minRatio);
    QFETCH(double, cosMinRatio);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    QFETCH(QString, warningKey);
    ConfigParseResult r = parse(patched(patch));
    CHECK_OUTCOME(r, errorKey, errorText);
    if (!warningKey.isEmpty()) QVERIFY2(issueAt(r, warningKey.toStdString(), false), describe(r).constData());
    if (!r.ok()) return;
    const SchedulerConfig& s = r.config->deepspeed.scheduler;
    QCOMPARE(int(s.type), type);
    QCOMPARE(s.warmupMinLr, minLr);
    QCOMPARE(s.warmupMaxLr, maxLr);
    QCOMPARE(s.warmupNumSteps, int64_t(warmupSteps));
    QCOMPARE(QString::fromStdString(s.warmupType), warmupType);
    QCOMPARE(s.totalNumSteps, int64_t(totalSteps));
    QCOMPARE(s.warmupMinRatio, minRatio);
    QCOMPARE(s.cosMinRatio, cosMinRatio);
}

// ---- ZeRO ----

void TestTrainConfig::zeroStage_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    QTest::addColumn<QString>("warningKey");
    QTest::addColumn<int>("stage");
    const QString ok;
    const QString stageKey = "deepspeed.zero_optimization.stage";
    QTest::newRow("stage 0") << R"({"deepspeed":{"zero_optimization":{"stage":0}}})" << ok << ok << ok << 0;
    QTest::newRow("stage 0 with other zero keys")
        << R"({"deepspeed":{"zero_optimization":{"stage":0,"allgather_partitions":true,"reduce_bucket_size":5e8,"overlap_comm":true,"offload_optimizer":{"device":"none"}}}})"
        << ok << ok << "deepspeed.zero_optimization.overlap_comm" << 0;
    QTest::newRow("stage 1") << R"({"deepspeed":{"zero_optimization":{"stage":1}}})" << ok << ok << ok << 1;
    QTest::newRow("stage 2") << R"({"deepspeed":{"zero_optimization":{"stage":2}}})" << ok << ok << ok << 2;
    QTest::newRow("stage 3") << R"({"deepspeed":{"zero_optimization":{"stage":3}}})" << ok << ok << ok << 3;
    QTest::newRow("stage 4") << R"({"deepspeed":{"zero_optimization":{"stage":4}}})" << stageKey
                             << "expected a ZeRO stage 0-3, got 4" << ok << 0;
    // DeepSpeed's pydantic bounds for the stage-3 keys: ge=0
    QTest::newRow("stage3_max_live_parameters -1")
        << R"({"deepspeed":{"zero_optimization":{"stage":3,"stage3_max_live_parameters":-1}}})"
        << "deepspeed.zero_optimization.stage3_max_live_parameters"
        << "expected a number of elements >= 0, got -1" << ok << 0;
    QTest::newRow("stage string") << R"({"deepspeed":{"zero_optimization":{"stage":"two"}}})" << stageKey
                                  << R"(got "two")" << ok << 0;
    QTest::newRow("deprecated false") << R"({"deepspeed":{"zero_optimization":false}})" << ok << ok
                                      << "deepspeed.zero_optimization" << 0;
    QTest::newRow("deprecated true is stage 1")
        << R"({"deepspeed":{"zero_optimization":true}})" << ok << ok << "deepspeed.zero_optimization" << 1;
    QTest::newRow("unknown zero key") << R"({"deepspeed":{"zero_optimization":{"stage":0,"stage_three":true}}})" << ok
                                      << ok << "deepspeed.zero_optimization.stage_three" << 0;
    QTest::newRow("removed zero key") << R"({"deepspeed":{"zero_optimization":{"stage":0,"mics_shard_size":8}}})"
                                      << "deepspeed.zero_optimization.mics_shard_size"
                                      << "MiCS" << ok << 0;
    // DeepSpeed's pydantic bounds: reduce_bucket_size > 0, allgather_bucket_size >= 0, booleans
    QTest::newRow("reduce_bucket_size 0") << R"({"deepspeed":{"zero_optimization":{"stage":2,"reduce_bucket_size":0}}})"
                                          << "deepspeed.zero_optimization.reduce_bucket_size"
                                          << "expected a number of elements > 0, got 0" << ok << 0;
    QTest::newRow("allgather_bucket_size -1")
        << R"({"deepspeed":{"zero_optimization":{"stage":2,"allgather_bucket_size":-1}}})"
        << "deepspeed.zero_optimization.allgather_bucket_size"
        << "expected a number of elements >= 0" << ok << 0;
    QTest::newRow("overlap_comm string") << R"({"deepspeed":{"zero_optimization":{"stage":2,"overlap_comm":"yes"}}})"
                                         << "deepspeed.zero_optimization.overlap_comm"
                                         << "yes" << ok << 0;
}

void TestTrainConfig::zeroStage() {
    QFETCH(QString, patch);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    QFETCH(QString, warningKey);
    QFETCH(int, stage);
    ConfigParseResult r = parse(patched(patch));
    CHECK_OUTCOME(r, errorKey, errorText);
    if (!warningKey.isEmpty())
        QVERIFY2(issueAt(r, warningKey.toStdString(), false), describe(r).constData());
    else if (r.ok())
        QCOMPARE(countIssues(r, false), size_t(0));
    if (r.ok()) QCOMPARE(r.config->deepspeed.zeroStage, stage);
}

// The honoured zero_optimization keys: DeepSpeed 0.19.8's defaults when absent ("auto" = absent), values as given.
void TestTrainConfig::zeroKeys() {
    ConfigParseResult d = parse(patched(R"({"deepspeed":{"zero_optimization":{"stage":2}}})"));
    QVERIFY2(d.ok(), describe(d).constData());
    const ZeroConfig& z0 = d.config->deepspeed.zero;
    QCOMPARE(z0.reduceBucketSize, int64_t(500000000));
    QCOMPARE(z0.allgatherBucketSize, int64_t(500000000));
    QCOMPARE(z0.overlapComm, false);
    QCOMPARE(z0.contiguousGradients, true);
    QCOMPARE(z0.reduceScatter, true);
    ConfigParseResult r = parse(patched(
        R"({"deepspeed":{"zero_optimization":{"stage":1,"reduce_bucket_size":2e5,"allgather_bucket_size":300,"overlap_comm":true,"contiguous_gradients":false,"reduce_scatter":false}}})"));
    QVERIFY2(r.ok(), describe(r).constData());
    const ZeroConfig& z = r.config->deepspeed.zero;
    QCOMPARE(r.config->deepspeed.zeroStage, 1);
    QCOMPARE(z.reduceBucketSize, int64_t(200000));
    QCOMPARE(z.allgatherBucketSize, int64_t(300));
    QCOMPARE(z.overlapComm, true);
    QCOMPARE(z.contiguousGradients, false);
    QCOMPARE(z.reduceScatter, false);
    // stage 3: DeepSpeed's defaults (5e7, 1e5, 1e9), its stage3_ aliases and its field names
    QCOMPARE(z0.prefetchBucketSize, int64_t(50000000));
    QCOMPARE(z0.paramPersistenceThreshold, int64_t(100000));
    QCOMPARE(z0.maxLiveParameters, int64_t(1000000000));
    ConfigParseResult s3 = parse(patched(
        R"({"deepspeed":{"zero_optimization":{"stage":3,"stage3_prefetch_bucket_size":7e3,"stage3_param_persistence_threshold":0,"max_live_parameters":900}}})"));
    QVERIFY2(s3.ok(), describe(s3).constData());
    QCOMPARE(s3.config->deepspeed.zeroStage, 3);
    QCOMPARE(s3.config->deepspeed.zero.prefetchBucketSize, int64_t(7000));
    QCOMPARE(s3.config->deepspeed.zero.paramPersistenceThreshold, int64_t(0));
    QCOMPARE(s3.config->deepspeed.zero.maxLiveParameters, int64_t(900));
    // "auto" bucket sizes come from the model's hidden size (the Trainer's rule): h*h here (GPT-2's n_embd 64) ...
    const std::string gpt2 = std::string(FTS_TEST_DATA_DIR) + "/models/gpt2";
    ConfigParseResult a = parse(patched(
        QString::fromStdString(R"({"model":{"path":")" + gpt2 +
                               R"("},"deepspeed":{"zero_optimization":{"stage":2,"reduce_bucket_size":"auto"}}})")));
    QVERIFY2(a.ok(), describe(a).constData());
    QCOMPARE(a.config->deepspeed.zero.reduceBucketSize, int64_t(64 * 64));
    // ... and an error naming the key where the model's config.json cannot be read.
    ConfigParseResult noModel =
        parse(patched(R"({"deepspeed":{"zero_optimization":{"stage":2,"reduce_bucket_size":"auto"}}})"));
    QVERIFY(!noModel.ok());
    QVERIFY2(issueAt(noModel, "deepspeed.zero_optimization.reduce_bucket_size", true), describe(noModel).constData());
}

// ---- unknown and ignored keys: warnings, never errors ----

void TestTrainConfig::unknownKeys_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("warningKey");  // empty: no warning at all
    QTest::addColumn<QString>("warningText");
    QTest::newRow("top-level typo") << R"({"modle":{}})"
                                    << "modle"
                                    << R"(unknown key "modle" (ignored), did you mean "model"?)";
    QTest::newRow("training typo") << R"({"training":{"max_step":5}})"
                                   << "training.max_step"
                                   << R"(did you mean "max_steps"?)";
    QTest::newRow("data key") << R"({"data":{"streaming":true}})"
                              << "data.streaming"
                              << R"(unknown key "streaming")";
    QTest::newRow("instruction key with format lm") << R"({"data":{"packing":true}})"
                                                    << "data.packing"
                                                    << "applies to the instruction formats only";
    QTest::newRow("eval_fraction beside eval") << R"({"data":{"eval":"e.jsonl","eval_fraction":0.1}})"
                                               << "data.eval_fraction"
                                               << "nothing is held out";
    QTest::newRow("cache_dir with format lm") << R"({"data":{"cache_dir":"/tmp/c"}})"
                                              << "data.cache_dir"
                                              << "only the instruction formats cache";
    QTest::newRow("text_field beside columns.text")
        << R"({"data":{"format":"classification","text_field":"a","columns":{"text":"b"}}})"
        << "data.text_field"
        << "data.columns.text names the text column";
    QTest::newRow("instruction keys with format alpaca: silent")
        << R"({"data":{"format":"alpaca","packing":true,"template":"none","train_on_prompt":true,"shuffle":false,"on_bad_row":"stop","columns":{"output":"response"}}})"
        << ""
        << "";
    QTest::newRow("model key") << R"({"model":{"revision":"main"}})"
                               << "model.revision"
                               << "(ignored)";
    QTest::newRow("deepspeed typo") << R"({"deepspeed":{"gradient_cliping":1.0}})"
                                    << "deepspeed.gradient_cliping"
                                    << R"(did you mean "gradient_clipping"?)";
    QTest::newRow("deepspeed unknown") << R"({"deepspeed":{"my_setting":1}})"
                                       << "deepspeed.my_setting"
                                       << R"(unknown DeepSpeed key "my_setting")";
    const QString notYet = "accepted but not used by Finetune Studio yet";
    QTest::newRow("memory_breakdown") << R"({"deepspeed":{"memory_breakdown":true}})"
                                      << "deepspeed.memory_breakdown" << notYet;
    QTest::newRow("memory_breakdown off: silent") << R"({"deepspeed":{"memory_breakdown":false}})"
                                                  << ""
                                                  << "";
    QTest::newRow("wall_clock_breakdown: used") << R"({"deepspeed":{"wall_clock_breakdown":true}})"
                                                << ""
                                                << "";
    QTest::newRow("flops_profiler") << R"({"deepspeed":{"flops_profiler":{"enabled":true,"profile_step":1}}})"
                                    << "deepspeed.flops_profiler" << notYet;
    QTest::newRow("tensorboard off: silent") << R"({"deepspeed":{"tensorboard":{"enabled":false}}})"
                                             << ""
                                             << "";
    QTest::newRow("wandb") << R"({"deepspeed":{"wandb":{"enabled":true,"project":"x"}}})"
                           << "deepspeed.wandb" << notYet;
    QTest::newRow("comms_logger") << R"({"deepspeed":{"comms_logger":{"enabled":true}}})"
                                  << "deepspeed.comms_logger" << notYet;
    QTest::newRow("activation_checkpointing")
        << R"({"deepspeed":{"activation_checkpointing":{"partition_activations":true}}})"
        << "deepspeed.activation_checkpointing" << notYet;
    QTest::newRow("zero_allow_untested_optimizer") << R"({"deepspeed":{"zero_allow_untested_optimizer":true}})"
                                                   << "deepspeed.zero_allow_untested_optimizer" << notYet;
    QTest::newRow("used keys: silent")
        << R"({"deepspeed":{"gradient_clipping":1.0,"steps_per_print":100,"zero_optimization":{"stage":0}}})"
        << ""
        << "";
    QTest::newRow("optimizer extra key") << R"({"deepspeed":{"optimizer":{"type":"AdamW","kind":"x"}}})"
                                         << "deepspeed.optimizer.kind"
                                         << "(ignored)";
    QTest::newRow("fp16 unknown key") << R"({"deepspeed":{"fp16":{"enabled":true,"scale":1}}})"
                                      << "deepspeed.fp16.scale"
                                      << "DeepSpeed rejects unknown fp16 keys";
}

void TestTrainConfig::unknownKeys() {
    QFETCH(QString, patch);
    QFETCH(QString, warningKey);
    QFETCH(QString, warningText);
    ConfigParseResult r = parse(patched(patch));
    QVERIFY2(r.ok(), describe(r).constData());
    if (warningKey.isEmpty()) {
        QVERIFY2(r.issues.empty(), describe(r).constData());
        return;
    }
    const ConfigIssue* w = issueAt(r, warningKey.toStdString(), false);
    QVERIFY2(w, describe(r).constData());
    QVERIFY2(w->message.find(warningText.toStdString()) != std::string::npos, w->message.c_str());
}

// ---- type and range errors: each names the value found and what was expected ----

void TestTrainConfig::typeAndRangeErrors_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    QTest::newRow("model.path number") << R"({"model":{"path":5}})"
                                       << "model.path"
                                       << "expected a non-empty string, got 5";
    QTest::newRow("model.path empty") << R"({"model":{"path":""}})"
                                      << "model.path"
                                      << R"(expected a non-empty string, got "")";
    QTest::newRow("model.init") << R"({"model":{"init":"zeros"}})"
                                << "model.init"
                                << R"(expected "pretrained" or "random", got "zeros")";
    QTest::newRow("data.eval_fraction 1") << R"({"data":{"eval_fraction":1.0}})"
                                          << "data.eval_fraction"
                                          << "expected a number in [0, 1), got 1.0";
    QTest::newRow("data.eval_fraction negative") << R"({"data":{"eval_fraction":-0.5}})"
                                                 << "data.eval_fraction"
                                                 << "got -0.5";
    QTest::newRow("data.max_length string") << R"({"data":{"max_length":"abc"}})"
                                            << "data.max_length"
                                            << R"(got "abc")";
    QTest::newRow("data.max_length 1") << R"({"data":{"max_length":1}})"
                                       << "data.max_length"
                                       << "expected an integer >= 2";
    QTest::newRow("data.text_field") << R"({"data":{"text_field":7}})"
                                     << "data.text_field"
                                     << "got 7";
    QTest::newRow("data.format")
        << R"({"data":{"format":"chat"}})"
        << "data.format"
        << R"(expected one of lm, auto, text, alpaca, sharegpt, messages, classification, trl, got "chat")";
    QTest::newRow("data.columns classification")
        << R"({"data":{"format":"classification","columns":{"instruction":"q"}}})"
        << "data.columns.instruction"
        << "expected one of text, text_pair, label";
    QTest::newRow("data.columns one column two roles")
        << R"({"data":{"format":"classification","columns":{"label":"text"}}})"
        << "data.columns.label"
        << "which is already data.columns.text";
    QTest::newRow("data.packing classification") << R"({"data":{"format":"classification","packing":true}})"
                                                 << "data.packing"
                                                 << "one label; set \"packing\": false";
    QTest::newRow("data.template") << R"({"data":{"format":"auto","template":"vicuna"}})"
                                   << "data.template"
                                   << R"(got "vicuna")";
    QTest::newRow("data.packing") << R"({"data":{"format":"auto","packing":"yes"}})"
                                  << "data.packing"
                                  << R"(got "yes")";
    QTest::newRow("data.train_on_prompt") << R"({"data":{"format":"auto","train_on_prompt":1}})"
                                          << "data.train_on_prompt"
                                          << "got 1";
    QTest::newRow("data.on_bad_row") << R"({"data":{"format":"auto","on_bad_row":"ignore"}})"
                                     << "data.on_bad_row"
                                     << "expected one of skip, continue, stop";
    QTest::newRow("data.seed") << R"({"data":{"format":"auto","seed":-3}})"
                               << "data.seed"
                               << "got -3";
    QTest::newRow("data.columns unknown role") << R"({"data":{"format":"alpaca","columns":{"ouput":"response"}}})"
                                               << "data.columns.ouput"
                                               << R"(did you mean "output"?)";
    QTest::newRow("data.columns value") << R"({"data":{"format":"alpaca","columns":{"output":3}}})"
                                        << "data.columns.output"
                                        << "got 3";
    QTest::newRow("data.columns not an object") << R"({"data":{"format":"alpaca","columns":["a"]}})"
                                                << "data.columns"
                                                << "expected an object";
    QTest::newRow("training.max_steps negative") << R"({"training":{"max_steps":-1}})"
                                                 << "training.max_steps"
                                                 << "expected a non-negative integer (0 = use epochs), got -1";
    QTest::newRow("training.max_steps fraction") << R"({"training":{"max_steps":2.5}})"
                                                 << "training.max_steps"
                                                 << "got 2.5";
    QTest::newRow("training.epochs string") << R"({"training":{"epochs":"many"}})"
                                            << "training.epochs"
                                            << R"(expected a number >= 0, got "many")";
    QTest::newRow("training.log_interval 0") << R"({"training":{"log_interval":0}})"
                                             << "training.log_interval"
                                             << "expected a positive integer, got 0";
    QTest::newRow("training.eval_interval") << R"({"training":{"eval_interval":-5}})"
                                            << "training.eval_interval"
                                            << "got -5";
    QTest::newRow("training.keep_checkpoints") << R"({"training":{"keep_checkpoints":"all"}})"
                                               << "training.keep_checkpoints"
                                               << R"(got "all")";
    QTest::newRow("training.seed negative") << R"({"training":{"seed":-1}})"
                                            << "training.seed"
                                            << "expected a non-negative integer, got -1";
    QTest::newRow("training.device gpu")
        << R"({"training":{"device":"gpu"}})"
        << "training.device"
        << R"(expected "auto", "cpu", "cuda" or "cuda:N" (N a device index), got "gpu")";
    QTest::newRow("training.device cuda:x") << R"({"training":{"device":"cuda:x"}})"
                                            << "training.device"
                                            << R"(got "cuda:x")";
    QTest::newRow("training.run_name") << R"({"training":{"run_name":false}})"
                                       << "training.run_name"
                                       << "got false";
    QTest::newRow("nothing to train") << R"({"training":{"max_steps":0,"epochs":0}})"
                                      << "training.max_steps"
                                      << "expected max_steps > 0 or epochs > 0";
    QTest::newRow("gradient_clipping negative") << R"({"deepspeed":{"gradient_clipping":-1}})"
                                                << "deepspeed.gradient_clipping"
                                                << "expected a number >= 0 (0 turns clipping off), got -1";
    QTest::newRow("4-bit base without LoRA") << R"({"model":{"quantization":{"load_in_4bit":true}}})"
                                             << "model.quantization"
                                             << "they train only with LoRA adapters beside them";
    QTest::newRow("8-bit base") << R"({"model":{"lora":{"r":8},"quantization":{"load_in_8bit":true}}})"
                                << "model.quantization.load_in_8bit"
                                << "8-bit base weights (LLM.int8) are not supported";
    QTest::newRow("4-bit type") << R"({"model":{"lora":{"r":8},"quantization":{"load_in_4bit":true,
                                      "bnb_4bit_quant_type":"int4"}}})"
                                << "model.quantization.bnb_4bit_quant_type"
                                << R"(expected "nf4" or "fp4", got "int4")";
    QTest::newRow("4-bit compute dtype") << R"({"model":{"lora":{"r":8},"quantization":{"load_in_4bit":true,
                                               "bnb_4bit_compute_dtype":"int8"}}})"
                                         << "model.quantization.bnb_4bit_compute_dtype"
                                         << R"(got "int8")";
    QTest::newRow("4-bit storage") << R"({"model":{"lora":{"r":8},"quantization":{"load_in_4bit":true,
                                         "bnb_4bit_quant_storage":"bfloat16"}}})"
                                   << "model.quantization.bnb_4bit_quant_storage"
                                   << R"(only "uint8")";
    QTest::newRow("GPTQ") << R"({"model":{"lora":{"r":8},"quantization":{"quant_method":"gptq","bits":4}}})"
                          << "model.quantization.quant_method"
                          << R"(only "bitsandbytes")";
    QTest::newRow("4-bit at stage 3") << R"({"model":{"lora":{"r":8},"quantization":{"load_in_4bit":true}},
                                            "deepspeed":{"zero_optimization":{"stage":3}}})"
                                      << "deepspeed.zero_optimization.stage"
                                      << "which 4-bit weights (model.quantization) do not allow";
    QTest::newRow("steps_per_print 0") << R"({"deepspeed":{"steps_per_print":0}})"
                                       << "deepspeed.steps_per_print"
                                       << "got 0";
    QTest::newRow("deepspeed not an object") << R"({"deepspeed":"ds_config.json"})"
                                             << "deepspeed"
                                             << R"(expected an object {...}, got "ds_config.json")";
    QTest::newRow("section not an object") << R"({"training":[1,2]})"
                                           << "training"
                                           << "expected an object {...}, got [1,2]";
    QTest::newRow("removed DeepSpeed key") << R"({"deepspeed":{"amp":{"enabled":true}}})"
                                           << "deepspeed.amp"
                                           << "Apex AMP";
    QTest::newRow("lora not an object") << R"({"model":{"lora":true}})"
                                        << "model.lora"
                                        << "expected an object {...}, got true";
    QTest::newRow("lora.r 0") << R"({"model":{"lora":{"r":0}}})"
                              << "model.lora.r"
                              << "expected a positive integer (the adapter rank), got 0";
    QTest::newRow("lora.lora_alpha 0") << R"({"model":{"lora":{"lora_alpha":0}}})"
                                       << "model.lora.lora_alpha"
                                       << "expected a number > 0, got 0";
    QTest::newRow("lora.lora_dropout 1") << R"({"model":{"lora":{"lora_dropout":1}}})"
                                         << "model.lora.lora_dropout"
                                         << "expected a probability in [0, 1), got 1";
    QTest::newRow("lora.target_modules number") << R"({"model":{"lora":{"target_modules":3}}})"
                                                << "model.lora.target_modules"
                                                << "got 3";
    QTest::newRow("lora.target_modules empty") << R"({"model":{"lora":{"target_modules":[]}}})"
                                               << "model.lora.target_modules"
                                               << "expected a non-empty list";
    QTest::newRow("lora.target_modules item") << R"({"model":{"lora":{"target_modules":["q_proj",1]}}})"
                                              << "model.lora.target_modules[1]"
                                              << "got 1";
    QTest::newRow("lora.target_modules regex") << R"({"model":{"lora":{"target_modules":"(q_proj"}}})"
                                               << "model.lora.target_modules"
                                               << "not a valid regular expression";
    QTest::newRow("lora.target_modules regex number")  // fuzz_train_config: overflowed libstdc++'s parser
        << R"({"model":{"lora":{"target_modules":"q\\99999999999999999999"}}})"
        << "model.lora.target_modules"
        << "a backreference of more than 2 digits";
    QTest::newRow("lora.bias all") << R"({"model":{"lora":{"bias":"all"}}})"
                                   << "model.lora.bias"
                                   << R"(only "none" is supported)";
    QTest::newRow("lora.use_rslora") << R"({"model":{"lora":{"use_rslora":"yes"}}})"
                                     << "model.lora.use_rslora"
                                     << R"(got "yes")";
    QTest::newRow("lora.merge_on_export") << R"({"model":{"lora":{"merge_on_export":1}}})"
                                          << "model.lora.merge_on_export"
                                          << "got 1";
    QTest::newRow("lora on a random init") << R"({"model":{"init":"random","lora":{}}})"
                                           << "model.lora"
                                           << R"(model.init is "random")";
    QTest::newRow("lora.init_from missing") << R"({"model":{"lora":{"init_from":"nowhere"}}})"
                                            << "model.lora.init_from"
                                            << "has no adapter_config.json";
    QTest::newRow("lora.init_from with r") << R"({"model":{"lora":{"init_from":"nowhere","r":4}}})"
                                           << "model.lora.r"
                                           << "init_from";
}

void TestTrainConfig::typeAndRangeErrors() {
    QFETCH(QString, patch);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    ConfigParseResult r = parse(patched(patch));
    CHECK_OUTCOME(r, errorKey, errorText);
}

void TestTrainConfig::requiredKeys_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("errorKey");
    QTest::newRow("model.path") << R"({"model":{"path":null,"init":"random"}})"
                                << "model.path";
    QTest::newRow("data.train") << R"({"data":{"train":null}})"
                                << "data.train";
    QTest::newRow("training.output_dir") << R"({"training":{"output_dir":null}})"
                                         << "training.output_dir";
    QTest::newRow("model section") << R"({"model":null})"
                                   << "model";
    QTest::newRow("data section") << R"({"data":null})"
                                  << "data";
    QTest::newRow("training section") << R"({"training":null})"
                                      << "training";
    QTest::newRow("deepspeed section") << R"({"deepspeed":null})"
                                       << "deepspeed";
}

void TestTrainConfig::requiredKeys() {
    QFETCH(QString, patch);
    QFETCH(QString, errorKey);
    ConfigParseResult r = parse(patched(patch));
    CHECK_OUTCOME(r, errorKey, QString("missing"));
}

void TestTrainConfig::everyErrorReportedAtOnce() {
    json d = patched(R"({
        "model": {"init": "zeros"},
        "data": {"train": null, "max_length": "long"},
        "training": {"device": "tpu"},
        "deepspeed": {"train_micro_batch_size_per_gpu": 0,
                      "optimizer": {"type": "Lamb", "params": {"lr": "abc"}},
                      "scheduler": {"type": "OneCycle"},
                      "fp16": {"enabled": true}, "bf16": {"enabled": true},
                      "zero_optimization": {"stage": 4},
                      "memory_breakdown": true}
    })");
    ConfigParseResult r = parse(d);
    QVERIFY(!r.ok());
    const std::vector<std::string> expected = {"data.max_length",
                                               "data.train",
                                               "deepspeed.bf16.enabled",
                                               "deepspeed.optimizer.params.lr",
                                               "deepspeed.optimizer.type",
                                               "deepspeed.scheduler.type",
                                               "deepspeed.train_batch_size",
                                               "deepspeed.train_micro_batch_size_per_gpu",
                                               "deepspeed.zero_optimization.stage",
                                               "model.init",
                                               "training.device"};
    std::vector<std::string> errorKeys;
    for (const auto& i : r.issues)
        if (i.isError) errorKeys.push_back(i.keyPath);
    QCOMPARE(errorKeys, expected);  // all of them, sorted by key path
    QVERIFY(issueAt(r, "deepspeed.memory_breakdown", false));
    // errorText: one "key: message" line per error, warnings left out
    const std::string text = r.errorText();
    QCOMPARE(size_t(std::count(text.begin(), text.end(), '\n')) + 1, expected.size());
    QVERIFY(text.find("model.init: expected \"pretrained\" or \"random\", got \"zeros\"") != std::string::npos);
    QVERIFY(text.find("memory_breakdown") == std::string::npos);
}

// ---- paths ----

void TestTrainConfig::pathResolution_data() {
    QTest::addColumn<QString>("written");
    QTest::addColumn<QString>("resolved");
    const QString home = QString::fromLocal8Bit(std::getenv("HOME") ? std::getenv("HOME") : "");
    QTest::newRow("relative") << "models/gpt2/v1"
                              << "/base/models/gpt2/v1";  // "a/b" alone reads as an HF id
    QTest::newRow("absolute") << "/data/models/gpt2"
                              << "/data/models/gpt2";
    QTest::newRow("dot segments") << "../x/./y"
                                  << "/x/y";
    QTest::newRow("home") << "~/models"
                          << QString::fromStdString(
                                 (fs::path(home.toStdString()) / "models").lexically_normal().string());
}

void TestTrainConfig::pathResolution() {
    QFETCH(QString, written);
    QFETCH(QString, resolved);
    const std::string w = written.toStdString();
    json d = baseDoc();
    d["model"]["path"] = w;
    d["data"]["train"] = w;
    d["data"]["eval"] = w;
    d["training"]["output_dir"] = w;
    ConfigParseResult r = parse(d);
    QVERIFY2(r.ok(), describe(r).constData());
    const fs::path want(resolved.toStdString());
    QCOMPARE(r.config->model.path, want);
    QCOMPARE(r.config->model.tokenizer, want / "tokenizer.json");
    QCOMPARE(r.config->data.train, want);
    QCOMPARE(r.config->data.eval, want);
    QCOMPARE(r.config->training.outputDir, want);
    d["model"]["tokenizer"] = "tok/tokenizer.json";
    r = parse(d);
    QVERIFY2(r.ok(), describe(r).constData());
    QCOMPARE(r.config->model.tokenizer, fs::path("/base/tok/tokenizer.json"));
}

// ---- JSON syntax ----

void TestTrainConfig::jsonSyntaxError_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("missing comma") << "{\n  \"model\": {\"path\": \"m\"}\n  \"data\": {}\n}" << 3 << 3;
    QTest::newRow("trailing comma") << "{\"model\": {\"path\": \"m\",}}" << 1 << 24;
    QTest::newRow("bad literal") << "{\n\"training\": {\n  \"max_steps\": tru\n}}" << 3 << 16;
    QTest::newRow("bad number") << "{\"training\": {\"max_steps\": 1.e5}}" << 1 << 28;
    QTest::newRow("unexpected string with escaped quote") << "{\"x\": 1 \"a\\\"b\": 2}" << 1 << 9;
    QTest::newRow("unterminated") << "{\"model\": {\"path\": \"m" << 1 << 22;
    QTest::newRow("empty") << "" << 1 << 1;
    // Deep nesting is an error at the bracket past the limit (512 levels, counting the outer object), not a stack
    // overflow: 100,000 levels crashed `fts train` before the limit.
    // A number beyond a double's range: nlohmann throws out_of_range 406 for it, which crashed the parse (found by
    // fuzz_train_config); now a syntax error at the number.
    QTest::newRow("number out of range") << "{\"training\": {\"max_steps\": 1e99999}}" << 1 << 28;
    QTest::newRow("nested 100000 deep") << QStringLiteral("{\n\"x\": ") + QString(100000, QLatin1Char('[')) << 2 << 517;
}

void TestTrainConfig::jsonSyntaxError() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, column);
    ConfigParseResult r = parseTrainConfigText(text.toStdString(), kBase);
    QVERIFY(!r.ok());
    QCOMPARE(r.issues.size(), size_t(1));
    const std::string want =
        "JSON syntax error at line " + std::to_string(line) + ", column " + std::to_string(column) + ":";
    QVERIFY2(r.issues[0].message.rfind(want, 0) == 0, ("got: " + r.issues[0].message + "\nwanted: " + want).c_str());
    QCOMPARE(r.errorText(), r.issues[0].message);
}

void TestTrainConfig::duplicateKeysAreErrors() {
    const std::string text = R"({"model": {"path": "m"}, "data": {"train": "t"}, "training": {"output_dir": "o"},
        "deepspeed": {"train_micro_batch_size_per_gpu": 1,
                      "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "lr": 1e-3}}}})";
    ConfigParseResult r = parseTrainConfigText(text, kBase);
    QVERIFY(!r.ok());
    const ConfigIssue* e = issueAt(r, "deepspeed.optimizer.params.lr", true);
    QVERIFY2(e, describe(r).constData());
    QVERIFY(e->message.find("duplicate key \"lr\"") != std::string::npos);
    // the same text without the duplicate is fine
    std::string fixed = text;
    fixed.replace(fixed.find("\"lr\": 1e-4, "), 12, "");
    QVERIFY2(parseTrainConfigText(fixed, kBase).ok(), describe(parseTrainConfigText(fixed, kBase)).constData());
}

// ---- files ----

void TestTrainConfig::loadValidMinimalFile() {
    const fs::path file = fs::path(FTS_TEST_DATA_DIR) / "config" / "valid_minimal.json";
    TrainConfig c = loadTrainConfig(file, 2);
    const fs::path dir = fs::absolute(file).lexically_normal().parent_path();
    QCOMPARE(c.sourceFile, fs::absolute(file).lexically_normal());
    QCOMPARE(c.training.runName, std::string("valid_minimal"));
    QCOMPARE(c.model.path, (dir / "../models/gpt2").lexically_normal());
    QCOMPARE(c.model.tokenizer, (dir / "../models/gpt2/tokenizer.json").lexically_normal());
    QCOMPARE(c.training.outputDir, dir / "out");
    QCOMPARE(c.training.maxSteps, int64_t(100));
    QCOMPARE(c.deepspeed.microBatchPerGpu, int64_t(4));
    QCOMPARE(c.deepspeed.gradientAccumulationSteps, int64_t(1));
    QCOMPARE(c.data.train, dir / "train.jsonl");
    QCOMPARE(c.deepspeed.worldSize, 2);
    QCOMPARE(c.deepspeed.trainBatchSize, c.deepspeed.microBatchPerGpu * c.deepspeed.gradientAccumulationSteps * 2);
    QVERIFY(c.raw.is_object() && c.raw.contains("deepspeed"));
    // parseTrainConfigFile reports no warnings for the example either
    ConfigParseResult r = parseTrainConfigFile(file, 2);
    QVERIFY2(r.ok() && r.issues.empty(), describe(r).constData());
}

void TestTrainConfig::loadFullExampleFile() {
    const fs::path file = fs::path(FTS_TEST_DATA_DIR) / "config" / "full_example.json";
    ConfigParseResult r = parseTrainConfigFile(file, 2);
    QVERIFY2(r.ok() && r.issues.empty(), describe(r).constData());
    const TrainConfig& c = *r.config;
    QCOMPARE(c.training.runName, std::string("full-example"));    // written: not derived from the file name
    QCOMPARE(c.deepspeed.gradientAccumulationSteps, int64_t(4));  // "auto": 32 // 4 // 2
    QVERIFY(c.deepspeed.bf16);
    QVERIFY(c.deepspeed.scheduler.type == SchedulerType::WarmupCosineLR);
    QCOMPARE(c.deepspeed.scheduler.totalNumSteps, int64_t(1000));  // from training.max_steps
    QCOMPARE(c.deepspeed.optimizer.beta2, 0.95);
    QCOMPARE(c.data.eval, fs::absolute(file).parent_path().lexically_normal() / "eval.jsonl");
}

// The quick-start config shipped in resources/ must stay valid under these rules.
void TestTrainConfig::shippedQuickstartConfigIsValid() {
    const fs::path file = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart" / "quickstart.json";
    if (!fs::exists(file)) QSKIP("resources/quickstart/quickstart.json is not in this checkout");
    ConfigParseResult r = parseTrainConfigFile(file, 1);
    QVERIFY2(r.ok(), describe(r).constData());
    for (const auto& i : r.issues) QVERIFY2(i.isError == false, describe(r).constData());
}

void TestTrainConfig::loadInvalidFileThrowsWithEveryError() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const fs::path file = fs::path(tmp.path().toStdString()) / "bad.json";
    writeFile(file, R"({"model": {}, "data": {"train": "t"}, "training": {"output_dir": "o", "device": "gpu"},
                        "deepspeed": {"gradient_accumulation_steps": 2}})");
    try {
        loadTrainConfig(file);
        QFAIL("no exception");
    } catch (const ConfigError& e) {
        const std::string msg = e.what();
        QVERIFY2(msg.rfind(file.string() + ": the training config has 3 errors:", 0) == 0, msg.c_str());
        QVERIFY2(msg.find("\nmodel.path: missing") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("\ntraining.device: expected") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("\ndeepspeed.train_batch_size: Either train_batch_size") != std::string::npos, msg.c_str());
    }
    writeFile(file, "{\"model\": ");
    try {
        loadTrainConfig(file);
        QFAIL("no exception");
    } catch (const ConfigError& e) {
        const std::string msg = e.what();
        QVERIFY2(
            msg.find(file.string() + ": the training config has 1 error:\nJSON syntax error at line 1, column 11") == 0,
            msg.c_str());
    }
}

void TestTrainConfig::loadMissingFileThrowsIoError() {
    QTemporaryDir tmp;
    const fs::path file = fs::path(tmp.path().toStdString()) / "absent.json";
    QVERIFY_THROWS_EXCEPTION(IoError, loadTrainConfig(file));
    QVERIFY_THROWS_EXCEPTION(IoError, parseTrainConfigFile(file));
}

// ---- resolved JSON ----

void TestTrainConfig::resolvedJsonRoundTrips_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<int>("worldSize");
    QTest::newRow("minimal") << "{}" << 1;
    QTest::newRow("everything")
        << R"({"model":{"init":"random","tokenizer":"tok.json"},"data":{"eval":"e.jsonl","text_field":"content","eval_fraction":0,"max_length":512},
               "training":{"max_steps":0,"epochs":2.5,"eval_interval":50,"eval_batches":4,"save_interval":100,"log_interval":5,"seed":7,"run_name":"r1","device":"cuda:1","keep_checkpoints":0},
               "deepspeed":{"train_batch_size":64,"train_micro_batch_size_per_gpu":4,"gradient_clipping":1.0,"steps_per_print":null,
                            "fp16":{"enabled":true,"loss_scale":0,"initial_scale_power":12,"hysteresis":3},
                            "optimizer":{"type":"adam","params":{"lr":2e-4,"betas":[0.8,0.95],"eps":1e-6,"weight_decay":0.05,"adam_w_mode":false}},
                            "scheduler":{"type":"WarmupCosineLR","params":{"total_num_steps":1000,"warmup_num_steps":30,"warmup_min_ratio":0.05}}}})"
        << 4;
    QTest::newRow("lora list")
        << R"({"model":{"lora":{"r":16,"lora_alpha":32,"lora_dropout":0.05,"target_modules":["q_proj","v_proj"],"use_rslora":true,"merge_on_export":false}}})"
        << 1;
    QTest::newRow("lora regex") << R"({"model":{"lora":{"target_modules":".*\\.(q|v)_proj"}}})" << 1;
    QTest::newRow("lora defaults") << R"({"model":{"lora":{}}})" << 1;
    QTest::newRow("instruction data")
        << R"({"data":{"format":"sharegpt","template":"llama3","train_on_prompt":true,"packing":true,"shuffle":false,"seed":9,
                      "on_bad_row":"continue","cache_dir":"cache","columns":{"messages":"turns","role":"speaker","content":"text"}}})"
        << 1;
    QTest::newRow("WarmupLR default max")
        << R"({"deepspeed":{"optimizer":{"type":"AdamW","params":{"lr":1e-4}},"scheduler":{"type":"WarmupLR","params":{"warmup_type":"linear"}}}})"
        << 2;
    QTest::newRow("WarmupDecayLR from max_steps")
        << R"({"deepspeed":{"train_batch_size":"auto","scheduler":{"type":"WarmupDecayLR","params":{"total_num_steps":"auto","warmup_num_steps":4}}}})"
        << 1;
}

void TestTrainConfig::resolvedJsonRoundTrips() {
    QFETCH(QString, patch);
    QFETCH(int, worldSize);
    ConfigParseResult r = parse(patched(patch), worldSize);
    QVERIFY2(r.ok(), describe(r).constData());
    const json resolved = configToResolvedJson(*r.config);
    // the batch triple is there, resolved
    const json& ds = resolved.at("deepspeed");
    QCOMPARE(ds.at("train_batch_size").get<int64_t>(), r.config->deepspeed.trainBatchSize);
    QCOMPARE(ds.at("train_micro_batch_size_per_gpu").get<int64_t>(), r.config->deepspeed.microBatchPerGpu);
    QCOMPARE(ds.at("gradient_accumulation_steps").get<int64_t>(), r.config->deepspeed.gradientAccumulationSteps);
    QCOMPARE(resolved.at("model").at("path").get<std::string>(), r.config->model.path.generic_string());
    // parsing it again gives the same config, with no warnings
    ConfigParseResult again = parseTrainConfig(resolved, "/elsewhere", worldSize);
    QVERIFY2(again.ok() && again.issues.empty(), (describe(again).toStdString() + "\n" + resolved.dump(1)).c_str());
    const json second = configToResolvedJson(*again.config);
    QVERIFY2(second == resolved, (second.dump(1) + "\n!=\n" + resolved.dump(1)).c_str());
}

void TestTrainConfig::loraSection() {
    ConfigParseResult r = parse(patched(
        R"({"model":{"lora":{"r":16,"lora_alpha":32,"lora_dropout":0.1,"target_modules":["q_proj","v_proj"],"use_rslora":true}}})"));
    QVERIFY2(r.ok(), describe(r).constData());
    const LoraSection& l = r.config->model.lora;
    QVERIFY(l.enabled);
    QCOMPARE(l.r, int64_t(16));
    QCOMPARE(l.alpha, 32.0);
    QCOMPARE(l.dropout, 0.1);
    QCOMPARE(l.targetModules, (std::vector<std::string>{"q_proj", "v_proj"}));
    QVERIFY(!l.targetIsRegex);
    QVERIFY(l.useRslora);
    QVERIFY(l.mergeOnExport);  // default
    // PEFT's defaults (r 8, alpha 8, dropout 0, the model type's target modules) when the section is empty.
    ConfigParseResult d = parse(patched(R"({"model":{"lora":{}}})"));
    QVERIFY2(d.ok(), describe(d).constData());
    QCOMPARE(d.config->model.lora.r, int64_t(8));
    QCOMPARE(d.config->model.lora.alpha, 8.0);
    QVERIFY(d.config->model.lora.targetModules.empty() && !d.config->model.lora.targetIsRegex);
    // A string is a regex; null means no LoRA.
    ConfigParseResult s = parse(patched(R"({"model":{"lora":{"target_modules":"all-linear"}}})"));
    QVERIFY(s.ok() && s.config->model.lora.targetIsRegex && s.config->model.lora.targetRegex == "all-linear");
    ConfigParseResult off = parse(patched(R"({"model":{"lora":null}})"));
    QVERIFY(off.ok() && !off.config->model.lora.enabled);
    // An unknown key is a warning naming it.
    ConfigParseResult w = parse(patched(R"({"model":{"lora":{"rank":4}}})"));
    QVERIFY(w.ok() && issueAt(w, "model.lora.rank", false));
}

void TestTrainConfig::worldSizeMustBePositive() {
    ConfigParseResult r = parse(baseDoc(), 0);
    CHECK_OUTCOME(r, QString("deepspeed"), QString("world size must be at least 1, got 0"));
}

QTEST_APPLESS_MAIN(TestTrainConfig)
#include "test_train_config.moc"

// offload_optimizer / offload_param / sub_group_size: DeepSpeed 0.19.8's fields, defaults and deprecated forms.
void TestTrainConfig::offloadKeys() {
    ConfigParseResult d = parse(patched(R"({"deepspeed":{"zero_optimization":{"stage":2}}})"));
    QVERIFY2(d.ok(), describe(d).constData());
    const ZeroConfig& z0 = d.config->deepspeed.zero;
    QVERIFY(!z0.offloadOptimizer.enabled() && !z0.offloadParam.enabled());
    QCOMPARE(z0.subGroupSize, int64_t(1000000000));
    QCOMPARE(z0.offloadOptimizer.bufferCount, int64_t(4));
    QCOMPARE(z0.offloadParam.bufferCount, int64_t(5));
    QCOMPARE(z0.offloadParam.bufferSize, int64_t(100000000));
    QCOMPARE(z0.offloadParam.maxInCpu, int64_t(1000000000));
    ConfigParseResult r = parse(patched(R"({"deepspeed":{"zero_optimization":{"stage":3,"sub_group_size":1e6,
        "offload_optimizer":{"device":"nvme","nvme_path":"swap","pin_memory":false,"buffer_count":6,"pipeline_read":false},
        "offload_param":{"device":"cpu","buffer_size":2e6,"max_in_cpu":3e6,"buffer_count":3}}}})"));
    QVERIFY2(r.ok(), describe(r).constData());
    // offload_param's buffers and max_in_cpu have no effect with device cpu (they serve nvme): each said by name.
    QCOMPARE(countIssues(r, false), size_t(3));
    for (const char* k : {"buffer_size", "max_in_cpu", "buffer_count"})
        QVERIFY2(issueAt(r, std::string("deepspeed.zero_optimization.offload_param.") + k, false),
                 describe(r).constData());
    const ZeroConfig& z = r.config->deepspeed.zero;
    QCOMPARE(z.subGroupSize, int64_t(1000000));
    QVERIFY(z.offloadOptimizer.device == OffloadDevice::Nvme);
    QCOMPARE(z.offloadOptimizer.nvmePath, fs::path("/base/swap"));  // relative to the config's folder
    QCOMPARE(z.offloadOptimizer.pinMemory, false);
    QCOMPARE(z.offloadOptimizer.bufferCount, int64_t(6));
    QCOMPARE(z.offloadOptimizer.pipelineRead, false);
    QCOMPARE(z.offloadOptimizer.pipelineWrite, true);
    QVERIFY(z.offloadParam.device == OffloadDevice::Cpu);
    QCOMPARE(z.offloadParam.bufferSize, int64_t(2000000));
    QCOMPARE(z.offloadParam.maxInCpu, int64_t(3000000));
    QCOMPARE(z.offloadParam.bufferCount, int64_t(3));
    // The resolved JSON carries them and parses back to the same values.
    const json resolved = configToResolvedJson(*r.config);
    QCOMPARE(resolved["deepspeed"]["zero_optimization"]["offload_optimizer"]["device"].get<std::string>(),
             std::string("nvme"));
    ConfigParseResult again = parse(resolved);
    QVERIFY2(again.ok(), describe(again).constData());
    QCOMPARE(again.config->deepspeed.zero.offloadOptimizer.nvmePath, fs::path("/base/swap"));
    QCOMPARE(again.config->deepspeed.zero.subGroupSize, int64_t(1000000));
    // Deprecated booleans map onto the new keys, with a warning naming them.
    ConfigParseResult dep = parse(patched(
        R"({"deepspeed":{"zero_optimization":{"stage":3,"cpu_offload":true,"cpu_offload_param":true,"cpu_offload_use_pin_memory":true}}})"));
    QVERIFY2(dep.ok(), describe(dep).constData());
    QVERIFY(dep.config->deepspeed.zero.offloadOptimizer.device == OffloadDevice::Cpu);
    QVERIFY(dep.config->deepspeed.zero.offloadParam.device == OffloadDevice::Cpu);
    for (const char* k : {"cpu_offload", "cpu_offload_param", "cpu_offload_use_pin_memory"})
        QVERIFY2(issueAt(dep, std::string("deepspeed.zero_optimization.") + k, false), describe(dep).constData());
    // null and "none" mean no offload.
    ConfigParseResult none = parse(patched(
        R"({"deepspeed":{"zero_optimization":{"stage":1,"offload_optimizer":null,"offload_param":{"device":"none"}}}})"));
    QVERIFY2(none.ok(), describe(none).constData());
    QVERIFY(!none.config->deepspeed.zero.offloadOptimizer.enabled());
}

void TestTrainConfig::offloadErrors_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("errorKey");
    QTest::addColumn<QString>("errorText");
    const QString z = "deepspeed.zero_optimization.";
    QTest::newRow("offload_param below stage 3")
        << R"({"stage":2,"offload_param":{"device":"cpu"}})" << z + "offload_param.device"
        << "only with ZeRO stage 3";
    QTest::newRow("cpu_offload_param below stage 3")
        << R"({"stage":1,"cpu_offload_param":true})" << z + "cpu_offload_param"
        << "only with ZeRO stage 3";
    QTest::newRow("nvme without nvme_path")
        << R"({"stage":2,"offload_optimizer":{"device":"nvme"}})" << z + "offload_optimizer.nvme_path"
        << "cannot be empty";
    QTest::newRow("offload_param nvme without nvme_path")
        << R"({"stage":3,"offload_param":{"device":"nvme"}})" << z + "offload_param.nvme_path"
        << "cannot be empty";
    QTest::newRow("offload_param nvme without buffers")
        << R"({"stage":3,"offload_param":{"device":"nvme","nvme_path":"/x","buffer_count":0}})"
        << z + "offload_param.buffer_count"
        << "at least 1";
    QTest::newRow("unknown device") << R"({"stage":2,"offload_optimizer":{"device":"gpu"}})"
                                    << z + "offload_optimizer.device"
                                    << R"(got "gpu")";
    QTest::newRow("optimizer offload at stage 0")
        << R"({"stage":0,"offload_optimizer":{"device":"cpu"}})" << z + "offload_optimizer.device"
        << "stage 1, 2 or 3";
    QTest::newRow("partial offload below stage 3")
        << R"({"stage":2,"offload_optimizer":{"device":"cpu","ratio":0.5}})" << z + "offload_optimizer.ratio"
        << "Partial offloading only supported for ZeRO Stage 3";
    QTest::newRow("ratio above 1") << R"({"stage":3,"offload_optimizer":{"device":"cpu","ratio":1.5}})"
                                   << z + "offload_optimizer.ratio"
                                   << "from 0 to 1";
    QTest::newRow("no host buffers for nvme")
        << R"({"stage":1,"offload_optimizer":{"device":"nvme","nvme_path":"/x","buffer_count":0}})"
        << z + "offload_optimizer.buffer_count"
        << "expected >= 1";
    QTest::newRow("negative buffer_size")
        << R"({"stage":3,"offload_param":{"device":"cpu","buffer_size":-1}})" << z + "offload_param.buffer_size"
        << ">= 0";
    QTest::newRow("unknown offload key") << R"({"stage":2,"offload_optimizer":{"device":"cpu","pin_memroy":true}})"
                                         << z + "offload_optimizer.pin_memroy"
                                         << R"(did you mean "pin_memory")";
    QTest::newRow("sub_group_size 0") << R"({"stage":3,"sub_group_size":0})" << z + "sub_group_size"
                                      << "elements > 0";
    QTest::newRow("offload_optimizer not an object")
        << R"({"stage":2,"offload_optimizer":"cpu"})" << z + "offload_optimizer"
        << "object";
}

void TestTrainConfig::offloadErrors() {
    QFETCH(QString, patch);
    QFETCH(QString, errorKey);
    QFETCH(QString, errorText);
    json d = baseDoc();
    d["deepspeed"]["zero_optimization"] = json::parse(patch.toStdString());
    ConfigParseResult r = parse(d);
    QVERIFY2(!r.ok(), describe(r).constData());
    const ConfigIssue* i = issueAt(r, errorKey.toStdString(), true);
    QVERIFY2(i, describe(r).constData());
    QVERIFY2(QString::fromStdString(i->message).contains(errorText), describe(r).constData());
}

// The top-level aio block (DeepSpeed's swap_tensor/aio_config.py): defaults, values, the older thread_count name.
void TestTrainConfig::aioBlock() {
    ConfigParseResult d = parse(baseDoc());
    QVERIFY(d.ok());
    const AioConfig& a0 = d.config->deepspeed.aio;
    QCOMPARE(a0.blockSize, int64_t(1048576));
    QCOMPARE(a0.queueDepth, int64_t(8));
    QCOMPARE(a0.intraOpParallelism, int64_t(1));
    QCOMPARE(a0.singleSubmit, false);
    QCOMPARE(a0.overlapEvents, true);
    ConfigParseResult r = parse(patched(
        R"({"deepspeed":{"aio":{"block_size":262144,"queue_depth":16,"thread_count":2,"single_submit":true,"overlap_events":false}}})"));
    QVERIFY2(r.ok(), describe(r).constData());
    const AioConfig& a = r.config->deepspeed.aio;
    QCOMPARE(a.blockSize, int64_t(262144));
    QCOMPARE(a.queueDepth, int64_t(16));
    QCOMPARE(a.intraOpParallelism, int64_t(2));
    QCOMPARE(a.singleSubmit, true);
    QCOMPARE(a.overlapEvents, false);
    QVERIFY2(issueAt(r, "deepspeed.aio.thread_count", false), describe(r).constData());  // the older name, said so
    ConfigParseResult bad = parse(patched(R"({"deepspeed":{"aio":{"block_size":1000,"queue_depth":0}}})"));
    QVERIFY(!bad.ok());
    QVERIFY2(issueAt(bad, "deepspeed.aio.block_size", true), describe(bad).constData());
    QVERIFY2(issueAt(bad, "deepspeed.aio.queue_depth", true), describe(bad).constData());
}

// The rule for every key the deepspeed block accepts: set away from its default, it either changes the parsed config
// (used) or draws a warning naming it. The keys are DeepSpeed 0.19.8's (zero/config.py, offload_config.py, aio).
// training.sample_prompts / sample_interval / sample_max_new_tokens: read, defaulted to the eval interval, refused
// naming the element at fault, warned when they cannot take effect (no prompts; ZeRO stage 3).
void TestTrainConfig::samplePromptsKeys() {
    ConfigParseResult r = parse(patched(
        R"({"training":{"eval_interval":5,"sample_prompts":["Hello","\u4f60\u597d"],"sample_max_new_tokens":20}})"));
    QVERIFY2(r.ok() && countIssues(r, false) == 0, describe(r).constData());
    QCOMPARE(r.config->training.samplePrompts.size(), size_t(2));
    QCOMPARE(r.config->training.sampleEvery(), int64_t(5));
    QCOMPARE(r.config->training.sampleMaxNewTokens, int64_t(20));
    QCOMPARE(configToResolvedJson(*r.config)["training"]["sample_interval"].get<int64_t>(), int64_t(5));
    r = parse(patched(R"({"training":{"sample_prompts":["a"],"sample_interval":0}})"));
    QVERIFY2(r.ok(), describe(r).constData());
    QCOMPARE(r.config->training.sampleEvery(), int64_t(0));
    r = parse(patched(R"({"training":{"sample_prompts":["a", 3]}})"));
    QVERIFY2(issueAt(r, "training.sample_prompts[1]", true), describe(r).constData());
    r = parse(patched(R"({"training":{"sample_prompts":"a"}})"));
    QVERIFY2(issueAt(r, "training.sample_prompts", true), describe(r).constData());
    r = parse(patched(R"({"training":{"sample_max_new_tokens":0,"sample_prompts":["a"]}})"));
    QVERIFY2(issueAt(r, "training.sample_max_new_tokens", true), describe(r).constData());
    r = parse(patched(R"({"training":{"sample_interval":3}})"));
    QVERIFY2(r.ok() && issueAt(r, "training.sample_interval", false), describe(r).constData());
    r = parse(patched(R"({"training":{"sample_prompts":["a"]},"deepspeed":{"zero_optimization":{"stage":3}}})"));
    QVERIFY2(r.ok() && issueAt(r, "training.sample_prompts", false), describe(r).constData());
}

void TestTrainConfig::everyAcceptedKeyIsUsedOrWarned_data() {
    QTest::addColumn<QString>("zeroPatch");
    QTest::addColumn<QString>("key");
    const std::vector<std::pair<const char*, const char*>> rows = {
        {"contiguous_gradients", "false"},
        {"reduce_scatter", "false"},
        {"reduce_bucket_size", "1234"},
        {"use_multi_rank_bucket_allreduce", "false"},
        {"allgather_partitions", "false"},
        {"allgather_bucket_size", "1234"},
        {"overlap_comm", "true"},
        {"compute_grad_norm", "false"},
        {"load_from_fp32_weights", "false"},
        {"elastic_checkpoint", "true"},
        {"zenflow", "{}"},
        {"sub_group_size", "1234"},
        {"offload_optimizer", R"({"device":"cpu"})"},
        {"offload_param", R"({"device":"cpu"})"},
        {"cpu_offload", "true"},
        {"cpu_offload_param", "true"},
        {"cpu_offload_use_pin_memory", "false"},
        {"prefetch_bucket_size", "1234"},
        {"stage3_prefetch_bucket_size", "1234"},
        {"param_persistence_threshold", "12"},
        {"stage3_param_persistence_threshold", "12"},
        {"model_persistence_threshold", "12"},
        {"stage3_model_persistence_threshold", "12"},
        {"max_live_parameters", "1234"},
        {"stage3_max_live_parameters", "1234"},
        {"max_reuse_distance", "12"},
        {"stage3_max_reuse_distance", "12"},
        {"gather_16bit_weights_on_model_save", "true"},
        {"stage3_gather_16bit_weights_on_model_save", "true"},
        {"stage3_gather_fp16_weights_on_model_save", "true"},
        {"module_granularity_threshold", "5"},
        {"stage3_module_granularity_threshold", "5"},
        {"use_all_reduce_for_fetch_params", "true"},
        {"stage3_use_all_reduce_for_fetch_params", "true"},
        {"allgather_sequential", "true"},
        {"stage3_allgather_sequential", "true"},
        {"ignore_unused_parameters", "false"},
        {"legacy_stage1", "true"},
        {"round_robin_gradients", "true"},
        {"parameter_alignment", "true"},
        {"zero_hpz_partition_size", "2"},
        {"zero_quantized_weights", "true"},
        {"zero_quantized_nontrainable_weights", "true"},
        {"zero_quantized_gradients", "true"},
        {"memory_efficient_linear", "false"},
        {"pipeline_loading_checkpoint", "true"},
        {"override_module_apply", "false"},
        {"log_trace_cache_warnings", "true"},
        {"enable_sanity_checks", "true"},
        {"save_muon_momentum_buffer_in_memory", "true"},
        {"leaf_module", R"({"classes":["X"]})"},
        // inside offload_optimizer / offload_param
        {"offload_optimizer", R"({"device":"cpu","pin_memory":false})"},
        {"offload_optimizer", R"({"device":"cpu","buffer_count":7})"},
        {"offload_optimizer", R"({"device":"cpu","pipeline_read":false})"},
        {"offload_optimizer", R"({"device":"cpu","pipeline_write":false})"},
        {"offload_optimizer", R"({"device":"cpu","fast_init":true})"},
        {"offload_optimizer", R"({"device":"cpu","ratio":0.5})"},
        {"offload_optimizer", R"({"device":"cpu","super_offload":true})"},
        {"offload_optimizer", R"({"device":"cpu","cpuadam_cores_perc":0.5})"},
        {"offload_optimizer", R"({"device":"nvme","nvme_path":"/x"})"},
        {"offload_param", R"({"device":"cpu","pin_memory":false})"},
        {"offload_param", R"({"device":"cpu","buffer_count":2})"},
        {"offload_param", R"({"device":"cpu","buffer_size":7})"},
        {"offload_param", R"({"device":"cpu","max_in_cpu":7})"},
        {"offload_param", R"({"device":"nvme","nvme_path":"/x"})"},
        {"offload_param", R"({"device":"nvme","nvme_path":"/x","buffer_count":2})"},
        {"offload_param", R"({"device":"nvme","nvme_path":"/x","buffer_size":7})"},
        {"offload_param", R"({"device":"nvme","nvme_path":"/x","max_in_cpu":7})"},
    };
    int i = 0;
    for (const auto& [k, v] : rows)
        QTest::newRow(qPrintable(QString("%1 %2").arg(i++).arg(k)))
            << QString(R"({"stage":3,"%1":%2})").arg(k, v) << QString(k);
    for (const char* a :
         {R"({"aio":{"block_size":8192}})", R"({"aio":{"queue_depth":3}})", R"({"aio":{"intra_op_parallelism":3}})",
          R"({"aio":{"thread_count":3}})", R"({"aio":{"single_submit":true}})", R"({"aio":{"overlap_events":false}})",
          R"({"aio":{"use_gds":true}})"})
        QTest::newRow(qPrintable(QString("%1 %2").arg(i++).arg(a))) << QString("TOP") + a << QString("aio");
}

void TestTrainConfig::everyAcceptedKeyIsUsedOrWarned() {
    QFETCH(QString, zeroPatch);
    QFETCH(QString, key);
    json base = baseDoc();
    base["deepspeed"]["zero_optimization"] = {{"stage", 3}};
    json d = base;
    if (zeroPatch.startsWith("TOP"))
        d["deepspeed"].merge_patch(json::parse(zeroPatch.mid(3).toStdString()));
    else
        d["deepspeed"]["zero_optimization"] = json::parse(zeroPatch.toStdString());
    ConfigParseResult before = parse(base), after = parse(d);
    QVERIFY(before.ok());
    bool warned = false;
    for (const auto& i : after.issues) warned = warned || QString::fromStdString(i.keyPath).contains(key);
    const bool used = after.ok() && configToResolvedJson(*after.config) != configToResolvedJson(*before.config);
    QVERIFY2(used || warned, qPrintable(zeroPatch + " was accepted in silence: " + describe(after)));
}
