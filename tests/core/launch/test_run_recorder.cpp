// RunRecorder: event lines from the nodes with fields of the wrong kind (another version of fts on a host, a
// library printing JSON on a rank's stdout) are read as far as they make sense and never end the supervisor
// with nlohmann's type_error; the well-formed lines around them are recorded as before.
#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

#include "core/launch/failure_policy.h"
#include "core/launch/run_recorder.h"
#include "core/store/run_store.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

class TestRunRecorder : public QObject {
    Q_OBJECT
private slots:
    void malformedEventLinesAreNeverFatal() {
        QTemporaryDir tmp;
        RunStore store(std::filesystem::path(tmp.path().toStdString()) / "runs.db");
        RunRecord r;
        r.name = "recorder";
        r.worldSize = 1;
        const int64_t runId = store.createRun(r);
        FailurePolicy failures(1);
        std::ostringstream out;
        RunRecorder rec(store, runId, 1, true, out, failures);
        const char* lines[] = {
            R"(5)",
            R"([1, 2])",
            R"({"event": 5})",
            R"({"event": "metrics", "step": "three", "time": "now", "values": {"loss": 1.5, "lr": "high"}})",
            R"({"event": "metrics", "step": 1, "values": [1, 2]})",
            R"({"event": "metrics", "step": 1, "values": {"eval_loss": "low"}})",
            R"({"event": "memory", "device": 7, "allocated": "a", "rank": "r"})",
            R"({"event": "sample", "samples": {"a": 1}})",
            R"({"event": "sample", "step": 2, "samples": [5, {"text": 3, "index": "i"}]})",
            R"({"event": "start", "total_steps": "many", "versions": 3})",
            R"({"event": "log", "level": 3, "message": ["x"]})",
            R"({"event": "checkpoint", "step": {}, "path": 1})",
            R"({"event": "node_started", "pid": "p", "hostname": 1})",
            R"({"event": "rank_exit", "ok": "no", "signal": "9", "rank": 0, "description": 4})",
            R"({"event": "end", "status": 1, "final": [1]})",
            R"({"event": "error", "message": 7, "rank": "zero", "collective": "yes"})",
        };
        for (const char* line : lines) rec.onNodeLine("gpu-7", line);
        rec.onNodeLine("gpu-7", R"({"event": "metrics", "step": 3, "values": {"loss": 2.25}})");
        rec.flush();

        QVERIFY(rec.finalMetrics().is_object());  // "final": [1] was not taken
        const std::vector<MetricPoint> loss = store.metrics(runId, "loss");
        QCOMPARE(loss.size(), size_t(2));
        QCOMPARE(loss[0].step, int64_t(0));  // "step": "three" read as absent
        QCOMPARE(loss[0].value, 1.5);
        QCOMPARE(loss[1].step, int64_t(3));
        QCOMPARE(loss[1].value, 2.25);
        QVERIFY(store.metrics(runId, "lr").empty());  // a string is not a metric value
        const std::vector<DeviceSample> memory = store.deviceSamples(runId);
        QCOMPARE(memory.size(), size_t(1));
        QCOMPARE(memory[0].device, std::string("cpu"));
        QCOMPARE(memory[0].host, std::string("gpu-7"));
        // The rank's exit with a non-boolean "ok" and the error with a numeric message are still failures.
        QVERIFY(failures.failed());
        // "samples" given as an object cannot be indexed: logged as a malformed line, the run goes on.
        bool warned = false;
        for (const LogLine& l : store.logs(runId, 0))
            warned = warned || (l.level == "warn" && l.message.find("malformed") != std::string::npos);
        QVERIFY(warned);
    }
};

QTEST_APPLESS_MAIN(TestRunRecorder)
#include "test_run_recorder.moc"
