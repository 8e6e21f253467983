// The typed run events (core/events/run_events.h): every kind written and read back field for field, lines in the
// format fts wrote before the types existed read the same, unknown kinds are skipped and a list that is not one is
// reported as malformed.
#include <QtTest>

#include "core/events/run_events.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {

template <class T>
T roundTrip(const T& e, int rank = 3) {
    const json line = runEventJson(e, rank);
    const std::optional<RunEvent> back = readRunEvent(json::parse(line.dump()));
    if (!back || !std::holds_alternative<T>(back->body) || back->rank != rank)
        throw std::runtime_error("did not read back: " + line.dump());
    return std::get<T>(back->body);
}

}  // namespace

class TestRunEvents : public QObject {
    Q_OBJECT
private slots:
    void everyKindReadsBackWhatWasWritten() {
        const StartEvent s = roundTrip(
            StartEvent{4, 10, 200, "cuda:1", 901632, 1949, 102, json{{"kind", "lm"}}, 8192, json{{"fts", "0.1.0"}}});
        QCOMPARE(s.worldSize, 4);
        QCOMPARE(s.startStep, int64_t(10));
        QCOMPARE(s.totalSteps, int64_t(200));
        QCOMPARE(s.device, std::string("cuda:1"));
        QCOMPARE(s.parameters, int64_t(901632));
        QCOMPARE(s.trainSequences, int64_t(1949));
        QCOMPARE(s.evalSequences, int64_t(102));
        QCOMPARE(s.data, (json{{"kind", "lm"}}));
        QCOMPARE(s.tokensPerStep, int64_t(8192));
        QCOMPARE(s.versions, (json{{"fts", "0.1.0"}}));
        const MetricsEvent m = roundTrip(MetricsEvent{7, {{"loss", 2.5}, {"lr", 1e-4}}});
        QCOMPARE(m.step, int64_t(7));
        QCOMPARE(m.values, (std::map<std::string, double>{{"loss", 2.5}, {"lr", 1e-4}}));
        const MemoryEvent mem = roundTrip(MemoryEvent{7, "cuda:0", 1, 2, 3, 4});
        QCOMPARE(mem.device, std::string("cuda:0"));
        QVERIFY(mem.allocated == 1 && mem.reserved == 2 && mem.peak == 3 && mem.capacity == 4);
        const LogEvent l = roundTrip(LogEvent{"warn", "a damaged checkpoint"});
        QCOMPARE(l.level, std::string("warn"));
        QCOMPARE(l.message, std::string("a damaged checkpoint"));
        const ModelStatesEvent ms = roundTrip(ModelStatesEvent{"ZeRO stage 2", "  table", 1, 2, 3, 4, 5, 6, 7});
        QCOMPARE(ms.plan, std::string("ZeRO stage 2"));
        QCOMPARE(ms.table, std::string("  table"));
        QVERIFY(ms.parameters == 1 && ms.gradients == 2 && ms.optimizer == 3 && ms.buckets == 4 && ms.onDevice == 5 &&
                ms.hostOffload == 6 && ms.nvmeOffload == 7);
        const CheckpointEvent c = roundTrip(CheckpointEvent{100, "/out/checkpoints/step-00000100"});
        QCOMPARE(c.step, int64_t(100));
        QCOMPARE(c.path, std::string("/out/checkpoints/step-00000100"));
        const SampleEvent sm = roundTrip(SampleEvent{50, {{0, "Once", "upon a time"}, {1, "你好", "世界"}}});
        QCOMPARE(sm.samples.size(), size_t(2));
        QCOMPARE(sm.samples[1].prompt, std::string("你好"));
        QCOMPARE(sm.samples[1].text, std::string("世界"));
        const EndEvent e = roundTrip(EndEvent{"stopped", json{{"steps", 5}}});
        QCOMPARE(e.status, std::string("stopped"));
        QCOMPARE(e.final, (json{{"steps", 5}}));
        const ErrorEvent err = roundTrip(ErrorEvent{"peer died", true});
        QVERIFY(err.collective && err.message == "peer died");
        const NodeStartedEvent n = roundTrip(NodeStartedEvent{42, "0.1.0", "gpu-7"});
        QVERIFY(n.pid == 42 && n.fts == "0.1.0" && n.hostname == "gpu-7");
        const RankStartedEvent rs = roundTrip(RankStartedEvent{1, 43});
        QVERIFY(rs.localRank == 1 && rs.pid == 43);
        const RankExitEvent x = roundTrip(RankExitEvent{false, 9, "killed by SIGKILL"});
        QVERIFY(!x.ok && x.signal == 9 && x.description == "killed by SIGKILL");
        QCOMPARE(roundTrip(NodeErrorEvent{"no token"}).message, std::string("no token"));
        QCOMPARE(roundTrip(StderrEvent{"a line"}).line, std::string("a line"));
    }

    // Lines as fts wrote them by hand before the types (a newer supervisor reads an older worker's events).
    void linesOfEarlierVersionsRead() {
        const auto start = readRunEvent(json::parse(
            R"({"event":"start","time":5.5,"rank":0,"world_size":2,"start_step":0,"total_steps":9,"device":"cpu",
                "parameters":10,"train_sequences":3,"eval_sequences":1,"data":{},"tokens_per_step":64,"versions":{}})"));
        QVERIFY(start && std::holds_alternative<StartEvent>(start->body));
        QCOMPARE(start->time, 5.5);
        QCOMPARE(std::get<StartEvent>(start->body).totalSteps, int64_t(9));
        const auto log = readRunEvent(json::parse(R"({"event":"log","level":"info","message":"m","host":"h2"})"));
        QVERIFY(log && !log->rank && log->host == "h2");
        QCOMPARE(std::get<LogEvent>(log->body).message, std::string("m"));
    }

    void unknownKindsAreSkippedAndBadListsAreMalformed() {
        QVERIFY(!readRunEvent(json::parse(R"({"event":"check","phase":"links"})")));
        QVERIFY(!readRunEvent(json::parse(R"([1,2])")));
        bool threw = false;
        try {
            readRunEvent(json::parse(R"({"event":"sample","samples":{"a":1}})"));
        } catch (const json::exception&) {
            threw = true;
        }
        QVERIFY(threw);
        // A scalar of the wrong type reads as its default.
        const auto m =
            readRunEvent(json::parse(R"({"event":"metrics","step":"three","values":{"loss":1.5,"lr":"x"}})"));
        QCOMPARE(std::get<MetricsEvent>(m->body).step, int64_t(0));
        QCOMPARE(std::get<MetricsEvent>(m->body).values.size(), size_t(1));
    }
};

QTEST_MAIN(TestRunEvents)
#include "test_run_events.moc"
