// Tests of run presentation: runToJson's fields, time and duration formatting, and the exact text
// of `fts runs list` / `fts runs show` (TZ is forced to UTC so local-time columns are deterministic).
#include "core/store/run_json.h"

#include <QTest>

#include <cstdlib>
#include <ctime>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {

constexpr double kT0 = 1714566896.0;  // 2024-05-01T12:34:56Z

std::string sp(int n) { return std::string(static_cast<size_t>(n), ' '); }

RunRecord completedRun() {
    RunRecord r;
    r.id = 3;
    r.name = "baseline";
    r.status = RunStatus::Completed;
    r.createdAt = kT0;
    r.startedAt = kT0;
    r.endedAt = kT0 + 3725;  // 1h02m05s
    r.configJson = R"({"train_micro_batch_size_per_gpu": 4, "bf16": {"enabled": true}})";
    r.configPath = "/c/cfg.json";
    r.model = "gpt2";
    r.dataset = "/d/train.jsonl";
    r.outputDir = "/o/baseline";
    r.host = "node-a";
    r.versionsJson = R"({"fts": "0.1.0", "torch": "2.11.0"})";
    r.finalMetricsJson = R"({"loss": 2.34567, "eval_loss": 2.75})";
    r.pid = 0;
    r.worldSize = 2;
    r.totalSteps = 500;
    r.lastStep = 500;
    return r;
}

// QCOMPARE on QString prints both sides when they differ (std::string does not).
QString q(const std::string& s) { return QString::fromStdString(s); }

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
        out.push_back(text.substr(start, nl - start));
    if (start < text.size()) out.push_back(text.substr(start));  // (a missing final newline shows up here)
    return out;
}

}  // namespace

class TestRunJson : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        setenv("TZ", "UTC", 1);
        tzset();
    }

    void isoUtc_data() {
        QTest::addColumn<double>("t");
        QTest::addColumn<QString>("expected");
        QTest::newRow("epoch") << 0.0 << "1970-01-01T00:00:00Z";
        QTest::newRow("whole") << kT0 << "2024-05-01T12:34:56Z";
        QTest::newRow("fraction floors") << kT0 + 0.999 << "2024-05-01T12:34:56Z";
        QTest::newRow("leap day") << 951782400.0 << "2000-02-29T00:00:00Z";
    }
    void isoUtc() {
        QFETCH(double, t);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(fts::isoUtc(t)), expected);
    }

    void formatDuration_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << 0.0 << "0s";
        QTest::newRow("seconds") << 45.9 << "45s";
        QTest::newRow("one minute") << 60.0 << "1m00s";
        QTest::newRow("minutes") << 185.0 << "3m05s";
        QTest::newRow("hours") << 3725.0 << "1h02m";
        QTest::newRow("days") << 86400.0 + 3 * 3600 + 5 << "1d03h";
        QTest::newRow("unknown") << -1.0 << "-";
    }
    void formatDuration() {
        QFETCH(double, seconds);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(fts::formatDuration(seconds)), expected);
    }

    void localTime() {
        QCOMPARE(formatLocalTime(kT0), std::string("2024-05-01 12:34"));
        QCOMPARE(formatLocalTime(0), std::string("-"));
    }

    void durationOfRuns() {
        RunRecord r = completedRun();
        QCOMPARE(runDurationSeconds(r), 3725.0);
        r.status = RunStatus::Running;
        r.endedAt = 0;
        QCOMPARE(runDurationSeconds(r, kT0 + 65), 65.0);
        r.startedAt = 0;
        QCOMPARE(runDurationSeconds(r, kT0 + 65), -1.0);
    }

    void finalLossKeys_data() {
        QTest::addColumn<QString>("finalMetrics");
        QTest::addColumn<bool>("present");
        QTest::addColumn<double>("value");
        QTest::newRow("loss") << R"({"loss": 1.5, "train_loss": 9})" << true << 1.5;
        QTest::newRow("train_loss") << R"({"train_loss": 2.5})" << true << 2.5;
        QTest::newRow("empty") << "" << false << 0.0;
        QTest::newRow("not json") << "{oops" << false << 0.0;
        QTest::newRow("string") << R"({"loss": "nan"})" << false << 0.0;
    }
    void finalLossKeys() {
        QFETCH(QString, finalMetrics);
        QFETCH(bool, present);
        QFETCH(double, value);
        RunRecord r;
        r.status = RunStatus::Completed;
        r.finalMetricsJson = finalMetrics.toStdString();
        const auto loss = finalLoss(r);
        QCOMPARE(loss.has_value(), present);
        if (present) QCOMPARE(*loss, value);
    }

    void runToJsonFields() {
        const json j = runToJson(completedRun());
        QCOMPARE(j.at("id").get<int64_t>(), int64_t(3));
        QCOMPARE(j.at("name").get<std::string>(), std::string("baseline"));
        QCOMPARE(j.at("status").get<std::string>(), std::string("completed"));
        QCOMPARE(j.at("created_at").get<std::string>(), std::string("2024-05-01T12:34:56Z"));
        QCOMPARE(j.at("created_at_unix").get<double>(), kT0);
        QCOMPARE(j.at("started_at").get<std::string>(), std::string("2024-05-01T12:34:56Z"));
        QCOMPARE(j.at("ended_at").get<std::string>(), std::string("2024-05-01T13:37:01Z"));
        QCOMPARE(j.at("ended_at_unix").get<double>(), kT0 + 3725);
        QCOMPARE(j.at("duration_s").get<double>(), 3725.0);
        QVERIFY(j.at("training_s").is_null());  // the final metrics carry no elapsed_s here
        QVERIFY(j.at("config").is_object());
        QCOMPARE(j.at("config").at("train_micro_batch_size_per_gpu").get<int>(), 4);
        QCOMPARE(j.at("config").at("bf16").at("enabled").get<bool>(), true);
        QCOMPARE(j.at("config_path").get<std::string>(), std::string("/c/cfg.json"));
        QCOMPARE(j.at("model").get<std::string>(), std::string("gpt2"));
        QCOMPARE(j.at("dataset").get<std::string>(), std::string("/d/train.jsonl"));
        QCOMPARE(j.at("output_dir").get<std::string>(), std::string("/o/baseline"));
        QCOMPARE(j.at("host").get<std::string>(), std::string("node-a"));
        QCOMPARE(j.at("versions").at("torch").get<std::string>(), std::string("2.11.0"));
        QCOMPARE(j.at("final_metrics").at("loss").get<double>(), 2.34567);
        QCOMPARE(j.at("failure_reason").get<std::string>(), std::string());
        QCOMPARE(j.at("pid").get<int64_t>(), int64_t(0));
        QCOMPARE(j.at("world_size").get<int>(), 2);
        QCOMPARE(j.at("total_steps").get<int64_t>(), int64_t(500));
        QCOMPARE(j.at("last_step").get<int64_t>(), int64_t(500));
        QCOMPARE(j.at("notes").get<std::string>(), std::string());
        QVERIFY(j.at("tags").is_array() && j.at("tags").empty());
        QCOMPARE(j.size(), size_t(26));  // every field, nothing else
    }

    // A stopped and resumed run: its training time (the end's elapsed_s) is what `fts runs list` shows as its
    // duration, and runs show --json gives it as training_s beside the last session's duration_s.
    void trainingTimeOfAResumedRun() {
        RunRecord r;
        r.status = RunStatus::Completed;
        r.startedAt = kT0 + 3600;
        r.endedAt = kT0 + 3620;
        r.finalMetricsJson = R"({"loss": 0.65, "elapsed_s": 41.5})";
        QCOMPARE(*trainingSeconds(r), 41.5);
        QCOMPARE(runDurationSeconds(r), 41.5);
        const json j = runToJson(r);
        QCOMPARE(j.at("training_s").get<double>(), 41.5);
        QCOMPARE(j.at("duration_s").get<double>(), 20.0);
        r.finalMetricsJson = R"({"loss": 0.65})";  // recorded before the end carried it
        QVERIFY(!trainingSeconds(r));
        QCOMPARE(runDurationSeconds(r), 20.0);
    }

    // While a stopped run trains again (resumed: running, its stop's final metrics still held until it ends), its
    // duration goes on from the earlier sessions' training time and the stop's loss is not shown as final.
    void aResumedRunWhileItTrains() {
        RunRecord r;
        r.id = 4;
        r.name = "resumed";
        r.status = RunStatus::Running;
        r.startedAt = kT0 + 3600;
        r.finalMetricsJson = R"({"loss": 0.65, "elapsed_s": 40})";
        QCOMPARE(runDurationSeconds(r, kT0 + 3630), 70.0);
        QCOMPARE(runDurationSeconds(r, kT0 + 3660), 100.0);  // the clock moves
        QVERIFY(!finalLoss(r));
        const std::string table = formatRunTable({r}, kT0 + 3630);
        QVERIFY2(table.find("0.6500") == std::string::npos && table.find("1m10s") != std::string::npos, table.c_str());
        r.status = RunStatus::Completed;
        r.endedAt = kT0 + 3700;
        r.finalMetricsJson = R"({"loss": 0.5, "elapsed_s": 130})";
        QCOMPARE(*finalLoss(r), 0.5);
        QCOMPARE(runDurationSeconds(r), 130.0);
    }

    void runToJsonUnsetAndMalformed() {
        RunRecord r;
        r.id = 9;
        r.status = RunStatus::Running;
        r.startedAt = kT0;
        r.configJson = "{not json";
        const json j = runToJson(r);
        QCOMPARE(j.at("status").get<std::string>(), std::string("running"));
        QVERIFY(j.at("created_at").is_null());
        QVERIFY(j.at("created_at_unix").is_null());
        QVERIFY(j.at("ended_at").is_null());
        QVERIFY(j.at("ended_at_unix").is_null());
        QVERIFY(j.at("duration_s").is_null());  // still running
        QCOMPARE(j.at("started_at_unix").get<double>(), kT0);
        QCOMPARE(j.at("config").get<std::string>(), std::string("{not json"));  // kept verbatim
        QVERIFY(j.at("versions").is_null());
        QVERIFY(j.at("final_metrics").is_null());
    }

    void runTable() {
        RunRecord running;
        running.id = 12;
        running.name = "lora-r8";
        running.status = RunStatus::Running;
        running.model = "/models/llama";
        running.startedAt = kT0;
        running.lastStep = 40;
        running.totalSteps = 1000;
        RunRecord pending;
        pending.id = 7;
        const std::string text = formatRunTable({completedRun(), running, pending}, kT0 + 65);
        const std::string expected =
            "ID  NAME      STATUS     MODEL" + sp(12) + "STEPS  FINAL LOSS  STARTED" + sp(11) + "DURATION\n" +
            " 3  baseline  completed  gpt2" + sp(11) + "500/500" + sp(7) + "2.346  2024-05-01 12:34" + sp(5) +
            "1h02m\n" + "12  lora-r8   running    /models/llama  40/1000" + sp(11) + "-  2024-05-01 12:34" + sp(5) +
            "1m05s\n" + " 7" + sp(12) + "pending" + sp(25) + "0" + sp(11) + "-  -" + sp(24) + "-\n";
        const auto got = lines(text), want = lines(expected);
        for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) QCOMPARE(q(got[i]), q(want[i]));
        QCOMPARE(q(text), q(expected));
    }

    void emptyTableIsHeaderOnly() {
        const std::string text = formatRunTable({});
        QCOMPARE(q(text), q("ID  NAME  STATUS  MODEL  STEPS  FINAL LOSS  STARTED  DURATION\n"));
    }

    void tableAlignsWideCharactersAndShortens() {
        RunRecord wide;
        wide.id = 1;
        wide.name = "训练一";  // 3 characters, 6 terminal cells
        wide.model = "m";
        RunRecord ascii = wide;
        ascii.id = 2;
        ascii.name = "abcdef";
        const auto rows = lines(formatRunTable({wide, ascii}));
        QCOMPARE(rows.size(), size_t(3));
        QCOMPARE(q(rows[1]), q(" 1  训练一  pending  m" + sp(10) + "0" + sp(11) + "-  -" + sp(15) + "-"));
        QCOMPARE(q(rows[2]), q(" 2  abcdef  pending  m" + sp(10) + "0" + sp(11) + "-  -" + sp(15) + "-"));

        RunRecord longOnes;
        longOnes.id = 5;
        longOnes.name = std::string(40, 'n') + "\nsecond line";
        longOnes.model = "/home/someone/.cache/huggingface/hub/models--Qwen--Qwen2-0.5B";
        const auto r = lines(formatRunTable({longOnes}));
        QCOMPARE(r.size(), size_t(2));  // the newline in the name did not split the row
        const std::string name = std::string(29, 'n') + "...";
        const std::string model = "..." + longOnes.model.substr(longOnes.model.size() - 33);
        QCOMPARE(q(r[1]), q(" 5  " + name + "  pending  " + model + sp(6) + "0" + sp(11) + "-  -" + sp(15) + "-"));

        RunRecord wideLong;
        wideLong.id = 6;
        for (int i = 0; i < 20; ++i) wideLong.name += "训";  // 40 cells -> 14 characters + "..." (31 cells)
        std::string shortened;
        for (int i = 0; i < 14; ++i) shortened += "训";
        shortened += "...";
        QCOMPARE(q(lines(formatRunTable({wideLong}))[1]),
                 q(" 6  " + shortened + "  pending  " + sp(5 + 2 + 4) + "0" + sp(11) + "-  -" + sp(15) + "-"));
    }

    void runDetails() {
        RunRecord r = completedRun();
        r.status = RunStatus::Failed;
        r.failureReason = "CUDA out of memory";
        r.startedAt = kT0 + 60;
        r.endedAt = kT0 + 60 + 3725;
        r.outputDir = "";
        r.pid = 4242;
        r.finalMetricsJson = R"({"loss": 2.5, "eval_loss": 2.75})";
        const std::vector<MetricPoint> last = {{120, "loss", 2.5, 0}, {100, "eval_loss", 2.75, 0}};
        auto field = [](const std::string& label, const std::string& value) {
            return "  " + label + sp(13 - static_cast<int>(label.size())) + value + "\n";
        };
        const std::string expected =
            "Run 3: baseline\n" + field("Status:", "failed") + field("Failure:", "CUDA out of memory") +
            field("Model:", "gpt2") + field("Dataset:", "/d/train.jsonl") + field("Output:", "-") +
            field("Config:", "/c/cfg.json") + field("Host:", "node-a (pid 4242)") + field("World size:", "2") +
            field("Created:", "2024-05-01 12:34") + field("Started:", "2024-05-01 12:35") +
            field("Ended:", "2024-05-01 13:38") + field("Duration:", "1h02m") + field("Steps:", "500 / 500") +
            field("Versions:", "fts 0.1.0, torch 2.11.0") +
            "Final metrics:\n"
            "  eval_loss  2.75\n"
            "  loss" +
            sp(8) +
            "2.5\n"
            "Latest metrics:\n"
            "  NAME" +
            sp(7) +
            "STEP  VALUE\n"
            "  loss" +
            sp(8) + "120" + sp(4) +
            "2.5\n"
            "  eval_loss   100   2.75\n";
        QCOMPARE(q(formatRunDetails(r, last)), q(expected));
    }

    void runDetailsOfFreshRun() {
        RunRecord r;
        r.id = 8;
        const std::string text = formatRunDetails(r, {});
        const auto ls = lines(text);
        QCOMPARE(ls.front(), std::string("Run 8"));
        QVERIFY(text.find("Status:      pending\n") != std::string::npos);
        QVERIFY(text.find("Duration:    -\n") != std::string::npos);
        QVERIFY(text.find("Steps:       0\n") != std::string::npos);
        QVERIFY(text.find("Failure") == std::string::npos);
        QVERIFY(text.find("Final metrics") == std::string::npos);
        QVERIFY(text.find("Latest metrics") == std::string::npos);
        QVERIFY(text.find("Versions") == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestRunJson)
#include "test_run_json.moc"
