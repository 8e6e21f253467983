// ZeroPlan, the one owner of ZeRO and offload policy (core/zero/zero_plan.h): the table of every combination of
// stage (0-3) x offload (none, optimizer to cpu/nvme, parameters to cpu/nvme, both) x LoRA x precision (fp32, fp16,
// bf16), each parsed from a config as a user writes it and either refused by the parser (its key and message) or
// planned (dtype, placements, partitions, load-time partition, checkpoint layout, samples). The table is
// tests/data/zero/plan_table.txt, read as the spec; FTS_UPDATE_GOLDEN=1 rewrites it after a deliberate change.
// Also: which layouts resume each other, the placements handed to core/offload, and that core/train and core/offload
// leave the stage and the offload keys to the plan.
#include <QtTest>

#include <fstream>
#include <regex>
#include <sstream>

#include "core/config/train_config.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/zero/zero_plan.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kTable = fs::path(FTS_TEST_DATA_DIR) / "zero" / "plan_table.txt";

const char* const kOffloads[] = {"none", "optimizer cpu", "optimizer nvme", "param cpu", "param nvme", "both cpu"};
const char* const kPrecisions[] = {"fp32", "fp16", "bf16"};

json configFor(int stage, const std::string& offload, bool lora, const std::string& precision) {
    json zero = {{"stage", stage}};
    if (offload == "optimizer cpu" || offload == "both cpu") zero["offload_optimizer"] = {{"device", "cpu"}};
    if (offload == "optimizer nvme") zero["offload_optimizer"] = {{"device", "nvme"}, {"nvme_path", "/nvme"}};
    if (offload == "param cpu" || offload == "both cpu") zero["offload_param"] = {{"device", "cpu"}};
    if (offload == "param nvme") zero["offload_param"] = {{"device", "nvme"}, {"nvme_path", "/nvme"}};
    json ds = {{"train_micro_batch_size_per_gpu", 2}, {"zero_optimization", zero}};
    if (precision == "fp16") ds["fp16"] = {{"enabled", true}};
    if (precision == "bf16") ds["bf16"] = {{"enabled", true}};
    json doc = {{"model", {{"path", "model"}}},
                {"data", {{"train", "train.jsonl"}}},
                {"training", {{"output_dir", "out"}, {"max_steps", 10}}},
                {"deepspeed", ds}};
    if (lora) doc["model"]["lora"] = {{"r", 8}};
    return doc;
}

const char* where(StatePlacement p) { return statePlacementName(p); }

// One row: "stage 3 | param nvme | lora | bf16 | <plan or refusal>".
std::string row(int stage, const std::string& offload, bool lora, const std::string& precision) {
    std::ostringstream out;
    out << "stage " << stage << " | " << offload << " | " << (lora ? "lora" : "full") << " | " << precision << " | ";
    const ConfigParseResult r = parseTrainConfig(configFor(stage, offload, lora, precision), "/base", 2);
    if (!r.ok()) {
        out << "refused:";
        for (const ConfigIssue& i : r.issues)
            if (i.isError) out << " " << i.keyPath << ": " << i.message << ";";
        return out.str();
    }
    const ZeroPlan plan(r.config->deepspeed, r.config->model.lora.enabled, ZeroWorld{1, 2, "run7"});
    out << "params " << paramDtypeName(plan.modelDtype()) << (plan.bf16Autocast() ? " +autocast" : "") << " on "
        << where(plan.parameters()) << (plan.partitionsParameters() ? " partitioned" : "")
        << (plan.partitionsOnLoad() ? " at load" : "") << ", grads on " << where(plan.gradients())
        << (plan.partitionsGradients() ? " partitioned" : "") << ", optimizer on " << where(plan.optimizerState())
        << (plan.partitionsOptimizerState() ? " partitioned" : "") << ", checkpoint "
        << checkpointLayoutName(plan.checkpointLayout()) << (plan.checkpointHoldsModel() ? "" : " without model")
        << (plan.runsSamples() ? "" : ", no samples");
    return out.str();
}

std::string planTable() {
    std::string out;
    for (int stage = 0; stage <= 3; ++stage)
        for (const char* offload : kOffloads)
            for (bool lora : {false, true})
                for (const char* precision : kPrecisions) out += row(stage, offload, lora, precision) + "\n";
    return out;
}

}  // namespace

class TestZeroPlan : public QObject {
    Q_OBJECT

private slots:
    // Every combination against the table, row by row (a difference names the row).
    void tableOfEveryCombination() {
        const std::string got = planTable();
        if (qEnvironmentVariableIsSet("FTS_UPDATE_GOLDEN")) writeFileAtomic(kTable, got);
        QVERIFY2(fs::exists(kTable), qPrintable(QString::fromStdString(kTable.string()) + " is missing"));
        std::istringstream want(readFile(kTable)), have(got);
        std::string w, h;
        int rows = 0;
        while (std::getline(want, w)) {
            QVERIFY2(std::getline(have, h), ("the plan has no row for: " + w).c_str());
            QVERIFY2(w == h, ("\n  table: " + w + "\n  plan:  " + h).c_str());
            ++rows;
        }
        QVERIFY2(!std::getline(have, h), ("a row the table lacks: " + h).c_str());
        QCOMPARE(rows, 4 * 6 * 2 * 3);
    }

    // Rules checked independently of the table: the parser refuses offload where the stage cannot place it, and
    // the plan's placements follow the stage.
    void refusalsAndPlacements() {
        QVERIFY(row(0, "optimizer cpu", false, "fp32").find("refused: deepspeed.zero_optimization.offload_optimizer") !=
                std::string::npos);
        for (int stage : {0, 1, 2})
            QVERIFY(row(stage, "param cpu", false, "fp32").find("refused: deepspeed.zero_optimization.offload_param") !=
                    std::string::npos);
        const ConfigParseResult r = parseTrainConfig(configFor(3, "param nvme", false, "bf16"), "/base", 2);
        QVERIFY(r.ok());
        const ZeroPlan plan(r.config->deepspeed, false, ZeroWorld{1, 2, "run7"});
        QCOMPARE(int(plan.parameterPlacement().where), int(StatePlacement::Nvme));
        QCOMPARE(plan.parameterPlacement().swapDir, fs::path("/nvme/run7/rank1"));
        QCOMPARE(int(plan.optimizerPlacement().where), int(StatePlacement::Device));
        QCOMPARE(int(plan.modelDtype()), int(ParamDtype::BFloat16));
        const ConfigParseResult l = parseTrainConfig(configFor(3, "none", true, "fp32"), "/base", 2);
        const ZeroPlan lora(l.config->deepspeed, true, ZeroWorld{0, 2, "run7"});
        QVERIFY(lora.partitionsParameters() && !lora.partitionsOnLoad() && lora.checkpointHoldsModel());
        std::vector<std::vector<int64_t>> shapes;
        QVERIFY(!lora.loadPartition(shapes));
        QVERIFY(plan.loadPartition(shapes) != nullptr);
    }

    // The load-time hook keeps this rank's chunk of each tensor and records the full shape.
    void loadPartitionCutsThisRanksChunk() {
        DeepSpeedConfig ds;
        ds.zeroStage = 3;
        ds.zero.paramPersistenceThreshold = 0;
        const ZeroPlan plan(ds, false, ZeroWorld{1, 2, "r"});
        std::vector<std::vector<int64_t>> shapes;
        const auto cut = plan.loadPartition(shapes);
        const torch::Tensor full = torch::arange(10, torch::kFloat32).view({2, 5});
        const torch::Tensor part = cut(0, full);
        QCOMPARE(shapes.at(0), (std::vector<int64_t>{2, 5}));
        QVERIFY(torch::equal(part, torch::arange(5, 10, torch::kFloat32)));
    }

    // Stages 1 and 2 share one flat partition; 0 and 3 resume only themselves. The refusal names the file.
    void layoutsThatResumeEachOther() {
        for (int have = 0; have <= 3; ++have)
            for (int made = 0; made <= 3; ++made) {
                DeepSpeedConfig ds;
                ds.zeroStage = have;
                const ZeroPlan plan(ds, false, ZeroWorld{});
                const bool same = have == made || (have >= 1 && have <= 2 && made >= 1 && made <= 2);
                try {
                    plan.checkResumable(made, "ckpt/trainer_state.json");
                    QVERIFY2(same, qPrintable(QString("stage %1 resumed a stage %2 checkpoint").arg(have).arg(made)));
                } catch (const FormatError& e) {
                    QVERIFY2(!same, e.what());
                    QVERIFY(std::string(e.what()).starts_with("ckpt/trainer_state.json: "));
                }
            }
    }

    // core/train asks the plan and never reads the stage or an offload key; core/offload takes placements and does
    // not know the stages (issue 32). Comments may speak of offload; code may not name these.
    void trainAndOffloadLeaveThePolicyToThePlan() {
        const std::regex forbiddenInTrain(
            R"(zeroStage|offloadParam|offloadOptimizer|OffloadDevice|offload_param|offload_optimizer|zero_optimization)");
        const std::regex forbiddenInOffload(R"(zeroStage|\bstage\b)");
        auto scan = [](const fs::path& dir, const std::regex& forbidden) {
            std::vector<std::string> hits;
            for (const auto& e : fs::directory_iterator(dir)) {
                std::ifstream in(e.path());
                std::string line;
                for (int n = 1; std::getline(in, line); ++n) {
                    const auto comment = line.find("//");
                    const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
                    if (std::regex_search(code, forbidden))
                        hits.push_back(e.path().filename().string() + ":" + std::to_string(n) + ": " + line);
                }
            }
            return hits;
        };
        const fs::path src = FTS_SOURCE_DIR;
        for (const auto& [dir, rx] : {std::pair{src / "core" / "train", forbiddenInTrain},
                                      std::pair{src / "core" / "offload", forbiddenInOffload}}) {
            std::string text;
            for (const std::string& h : scan(dir, rx)) text += "\n  " + h;
            QVERIFY2(text.empty(), qPrintable(QString::fromStdString(dir.string() + " decides ZeRO policy:" + text)));
        }
    }
};

QTEST_MAIN(TestZeroPlan)
#include "test_zero_plan.moc"
