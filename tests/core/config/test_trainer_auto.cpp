// "auto" as the Hugging Face Trainer fills it: the public Trainer-style DeepSpeed configs (LLaMA-Factory's, the
// transformers docs' and tests', tests/data/config/trainer_style/) with the same TrainingArguments, resolved by
// our parser and by transformers' HfTrainerDeepSpeedConfig run at test time (tests/data/config/hf_trainer_auto.py),
// every value the Trainer fills compared, and the Trainer's mismatch errors found under the same keys.
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config/train_config.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
using namespace fts;
namespace fs = std::filesystem;

namespace {

const fs::path kData = FTS_TEST_DATA_DIR;
const fs::path kModel = kData / "models" / "gpt2";  // n_embd 64
constexpr int kHidden = 64;
constexpr int kMaxSteps = 100;

json readJson(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
}

// TrainingArguments sets: the Trainer's defaults (nothing named), and every key named.
std::vector<std::pair<std::string, json>> argumentSets() {
    return {
        {"defaults", json::object()},
        {"named",
         {{"per_device_train_batch_size", 4},
          {"gradient_accumulation_steps", 3},
          {"learning_rate", 2e-5},
          {"weight_decay", 0.01},
          {"adam_beta1", 0.8},
          {"adam_beta2", 0.95},
          {"adam_epsilon", 1e-6},
          {"max_grad_norm", 0.5},
          {"warmup_steps", 0.07},
          {"fp16", true}}},
        {"named bf16",
         {{"per_device_train_batch_size", 2}, {"learning_rate", 1e-4}, {"warmup_steps", 12}, {"bf16", true}}},
    };
}

struct Case {
    std::string name;
    json deepspeed;
    json args;
    int worldSize;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(kData / "config" / "trainer_style"))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
        for (const auto& [argsName, args] : argumentSets())
            for (int ws : {1, 2}) {
                json ds = readJson(f);
                // ZeRO-Infinity's example points at /local_nvme; any folder does for resolving values.
                for (const char* k : {"offload_optimizer", "offload_param"})
                    if (ds["zero_optimization"].contains(k) && ds["zero_optimization"][k].contains("nvme_path"))
                        ds["zero_optimization"][k]["nvme_path"] = fs::temp_directory_path().string();
                out.push_back({f.stem().string() + " / " + argsName + " / ws" + std::to_string(ws), ds, args, ws});
            }
    // The Trainer's mismatch errors: explicit DeepSpeed values that differ from named TrainingArguments.
    json conflicting = readJson(kData / "config" / "trainer_style" / "hfdocs_ds_config_zero2.json");
    conflicting["optimizer"]["params"]["lr"] = 1e-4;
    conflicting["gradient_clipping"] = 2.0;
    conflicting["train_batch_size"] = 64;
    conflicting["optimizer"]["params"]["weight_decay"] = 0.0;
    out.push_back(
        {"mismatch",
         conflicting,
         {{"per_device_train_batch_size", 4}, {"learning_rate", 2e-5}, {"max_grad_norm", 1.0}, {"weight_decay", 0.1}},
         1});
    return out;
}

// Our parse of the case: the deepspeed block as given, the TrainingArguments as the training section's keys.
ConfigParseResult parseCase(const Case& c) {
    json training = {{"output_dir", "out"}, {"max_steps", kMaxSteps}};
    training.update(c.args);
    json doc = {{"model", {{"path", kModel.string()}}},
                {"data", {{"train", "train.jsonl"}}},
                {"training", training},
                {"deepspeed", c.deepspeed}};
    return parseTrainConfig(doc, "/base", c.worldSize);
}

std::string issuesText(const ConfigParseResult& r) {
    std::string s;
    for (const auto& i : r.issues)
        s += std::string(i.isError ? "[error] " : "[warning] ") + i.keyPath + ": " + i.message + "\n";
    return s;
}

// The keys HfTrainerDeepSpeedConfig fills (trainer_config_process and _finalize), as JSON pointers.
const std::vector<std::string> kFilledKeys = {"/train_micro_batch_size_per_gpu",
                                              "/gradient_accumulation_steps",
                                              "/train_batch_size",
                                              "/gradient_clipping",
                                              "/optimizer/params/lr",
                                              "/optimizer/params/betas",
                                              "/optimizer/params/eps",
                                              "/optimizer/params/weight_decay",
                                              "/scheduler/params/warmup_min_lr",
                                              "/scheduler/params/warmup_max_lr",
                                              "/scheduler/params/warmup_num_steps",
                                              "/scheduler/params/total_num_steps",
                                              "/fp16/enabled",
                                              "/bf16/enabled",
                                              "/zero_optimization/reduce_bucket_size",
                                              "/zero_optimization/stage3_prefetch_bucket_size",
                                              "/zero_optimization/stage3_param_persistence_threshold"};

bool sameValue(const json& a, const json& b) {
    if (a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        return x == y || std::abs(x - y) <= 1e-12 * std::max(std::abs(x), std::abs(y));
    }
    if (a.is_array() && b.is_array() && a.size() == b.size()) {
        for (size_t i = 0; i < a.size(); ++i)
            if (!sameValue(a[i], b[i])) return false;
        return true;
    }
    return a == b;
}

}  // namespace

class TestTrainerAuto : public QObject {
    Q_OBJECT
    json m_reference;  // the Trainer's answer per case, in cases() order

private slots:
    void initTestCase() {
        json in = json::array();
        for (const Case& c : cases())
            in.push_back({{"name", c.name},
                          {"deepspeed", c.deepspeed},
                          {"args", c.args},
                          {"world_size", c.worldSize},
                          {"hidden_size", kHidden},
                          {"num_training_steps", kMaxSteps}});
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                {QString::fromStdString((kData / "config" / "hf_trainer_auto.py").string())});
        QVERIFY(p.waitForStarted());
        p.write(QByteArray::fromStdString(in.dump()));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
        m_reference = json::parse(lines.last().toStdString());
        QCOMPARE(m_reference.size(), in.size());
    }

    void sameValuesAsTheTrainer_data() {
        QTest::addColumn<int>("index");
        const auto cs = cases();
        for (size_t i = 0; i < cs.size(); ++i) QTest::newRow(cs[i].name.c_str()) << int(i);
    }

    void sameValuesAsTheTrainer() {
        QFETCH(int, index);
        const Case c = cases()[size_t(index)];
        const json& ref = m_reference.at(size_t(index));
        QVERIFY2(!ref.contains("args_error"), ref.dump().c_str());
        const ConfigParseResult r = parseCase(c);
        if (ref.contains("error")) {
            // Each "- ds <key>=..." line of the Trainer's error is an error of ours under deepspeed.<key>.
            QVERIFY2(!r.ok(), issuesText(r).c_str());
            std::istringstream lines(ref.at("error").get<std::string>());
            int found = 0;
            for (std::string line; std::getline(lines, line);) {
                if (line.rfind("- ds ", 0) != 0) continue;
                const std::string key = "deepspeed." + line.substr(5, line.find('=') - 5);
                bool ours = false;
                for (const auto& i : r.issues) ours = ours || (i.isError && i.keyPath == key);
                QVERIFY2(ours, (key + " is not among our errors:\n" + issuesText(r)).c_str());
                ++found;
            }
            QVERIFY(found > 0);
            return;
        }
        QVERIFY2(r.ok(), (issuesText(r) + "Trainer: " + ref.dump()).c_str());
        const json ours = configToResolvedJson(*r.config).at("deepspeed");
        const json& theirs = ref.at("config");
        int compared = 0;
        for (const std::string& k : kFilledKeys) {
            const json::json_pointer ptr(k);
            if (!theirs.contains(ptr)) continue;
            const json& want = theirs.at(ptr);
            if (want == "auto") continue;  // left for DeepSpeed (stage-3 keys at stage 2)
            if (k == "/scheduler/params/total_num_steps" && !ours.contains(ptr)) continue;  // WarmupLR takes none
            QVERIFY2(ours.contains(ptr), (k + " missing from ours: " + ours.dump()).c_str());
            QVERIFY2(sameValue(ours.at(ptr), want),
                     (k + ": ours " + ours.at(ptr).dump() + ", the Trainer's " + want.dump()).c_str());
            ++compared;
        }
        QVERIFY(compared >= 5);
        // The resolved config parses back to the same values (what the store keeps and the studio shows).
        json again = {{"model", {{"path", kModel.string()}}}, {"data", {{"train", "train.jsonl"}}}};
        const json resolved = configToResolvedJson(*r.config);
        again["training"] = resolved.at("training");
        again["deepspeed"] = resolved.at("deepspeed");
        const ConfigParseResult r2 = parseTrainConfig(again, "/base", c.worldSize);
        QVERIFY2(r2.ok(), issuesText(r2).c_str());
        QCOMPARE(QString::fromStdString(configToResolvedJson(*r2.config).at("deepspeed").dump()),
                 QString::fromStdString(ours.dump()));
    }

    // The LLaMA-Factory configs have no optimizer or scheduler block: the Trainer's AdamW and scheduler come from
    // the training section (learning_rate, lr_scheduler_type, warmup).
    void trainerOptimizerAndScheduler() {
        json ds = readJson(kData / "config" / "trainer_style" / "llamafactory_ds_z2_config.json");
        json doc = {{"model", {{"path", kModel.string()}}},
                    {"data", {{"train", "train.jsonl"}}},
                    {"training",
                     {{"output_dir", "out"},
                      {"max_steps", 50},
                      {"learning_rate", 1e-4},
                      {"lr_scheduler_type", "cosine"},
                      {"warmup_steps", 0.1},
                      {"weight_decay", 0.0},
                      {"per_device_train_batch_size", 2},
                      {"gradient_accumulation_steps", 4}}},
                    {"deepspeed", ds}};
        const ConfigParseResult r = parseTrainConfig(doc, "/base", 2);
        QVERIFY2(r.ok(), issuesText(r).c_str());
        const DeepSpeedConfig& d = r.config->deepspeed;
        QCOMPARE(d.optimizer.lr, 1e-4);
        QCOMPARE(d.trainBatchSize, int64_t(16));
        QCOMPARE(int(d.scheduler.type), int(SchedulerType::HfCosine));
        QCOMPARE(d.scheduler.warmupNumSteps, int64_t(5));  // ceil(50 * 0.1)
        QCOMPARE(d.scheduler.totalNumSteps, int64_t(50));
        // Training by epochs: the warm-up fraction and the total wait for the run's step count.
        doc["training"].erase("max_steps");
        doc["training"]["epochs"] = 2;
        const ConfigParseResult e = parseTrainConfig(doc, "/base", 2);
        QVERIFY2(e.ok(), issuesText(e).c_str());
        const SchedulerConfig atRun = resolveScheduleForRun(e.config->deepspeed.scheduler, 40);
        QCOMPARE(atRun.totalNumSteps, int64_t(40));
        QCOMPARE(atRun.warmupNumSteps, int64_t(4));
        // A DeepSpeed scheduler block wins over lr_scheduler_type, with a warning naming the key.
        doc["deepspeed"]["scheduler"] = {{"type", "WarmupLR"}, {"params", {{"warmup_num_steps", "auto"}}}};
        const ConfigParseResult w = parseTrainConfig(doc, "/base", 2);
        QVERIFY2(w.ok(), issuesText(w).c_str());
        QCOMPARE(int(w.config->deepspeed.scheduler.type), int(SchedulerType::WarmupLR));
        bool warned = false;
        for (const auto& i : w.issues) warned = warned || (!i.isError && i.keyPath == "training.lr_scheduler_type");
        QVERIFY2(warned, issuesText(w).c_str());
        // Scheduler arguments, and a warm-up the DeepSpeed scheduler has no key for, are warned about by name.
        doc["training"]["lr_scheduler_kwargs"] = {{"power", 2.0}};
        doc["training"]["warmup_steps"] = 3;
        doc["deepspeed"]["scheduler"] = {{"type", "WarmupDecayLR"}, {"params", {{"total_num_steps", 50}}}};
        const ConfigParseResult g = parseTrainConfig(doc, "/base", 2);
        QVERIFY2(g.ok(), issuesText(g).c_str());
        bool kwargsWarned = false, warmupWarned = false;
        for (const auto& i : g.issues) {
            kwargsWarned = kwargsWarned || (!i.isError && i.keyPath == "training.lr_scheduler_kwargs");
            warmupWarned = warmupWarned || (!i.isError && i.keyPath == "training.warmup_steps" &&
                                            i.message.find("warmup_num_steps") != std::string::npos);
        }
        QVERIFY2(kwargsWarned && warmupWarned, issuesText(g).c_str());
        doc["deepspeed"]["scheduler"]["params"]["warmup_num_steps"] = "auto";  // then it fills the key, silently
        const ConfigParseResult h = parseTrainConfig(doc, "/base", 2);
        QVERIFY2(h.ok(), issuesText(h).c_str());
        QCOMPARE(h.config->deepspeed.scheduler.warmupNumSteps, int64_t(3));
        for (const auto& i : h.issues) QVERIFY2(i.keyPath != "training.warmup_steps", issuesText(h).c_str());
        doc["training"].erase("lr_scheduler_kwargs");
        doc["training"].erase("warmup_steps");
        // Unknown names and arguments are errors naming the key.
        doc["deepspeed"].erase("scheduler");
        doc["training"]["lr_scheduler_type"] = "cosine_annealing";
        QVERIFY(!parseTrainConfig(doc, "/base", 2).ok());
        doc["training"]["lr_scheduler_type"] = "polynomial";
        doc["training"]["lr_scheduler_kwargs"] = {{"num_cycles", 2}};
        const ConfigParseResult k = parseTrainConfig(doc, "/base", 2);
        QVERIFY(!k.ok());
        QVERIFY2(issuesText(k).find("training.lr_scheduler_kwargs.num_cycles") != std::string::npos,
                 issuesText(k).c_str());
    }

    // training.bf16 "auto" leaves the choice to the run (the device), and says so in the resolved config.
    void bf16AutoWaitsForTheDevice() {
        json ds = readJson(kData / "config" / "trainer_style" / "llamafactory_ds_z0_config.json");
        json doc = {{"model", {{"path", kModel.string()}}},
                    {"data", {{"train", "train.jsonl"}}},
                    {"training", {{"output_dir", "out"}, {"max_steps", 5}, {"bf16", "auto"}}},
                    {"deepspeed", ds}};
        const ConfigParseResult r = parseTrainConfig(doc, "/base", 1);
        QVERIFY2(r.ok(), issuesText(r).c_str());
        QVERIFY(r.config->deepspeed.bf16Auto);
        QVERIFY(!r.config->deepspeed.fp16.enabled);
        QCOMPARE(configToResolvedJson(*r.config).at("deepspeed").at("bf16").at("enabled"), json("auto"));
        doc["training"]["bf16"] = "yes";
        QVERIFY(!parseTrainConfig(doc, "/base", 1).ok());
    }
};

QTEST_GUILESS_MAIN(TestTrainerAuto)
#include "test_trainer_auto.moc"
