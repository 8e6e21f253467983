// json_fields.h: typed reads of fields in JSON we did not write. A field of the wrong kind (or an integer out of
// the type's range) is a FormatError naming the place and the key (optionalField, requiredField), or the fallback
// (fieldOr); never nlohmann's type_error, which names neither (fuzz_checkpoint_state's finding 5).
#include <QtTest>

#include <cmath>
#include <limits>

#include "core/util/error.h"
#include "core/util/json_fields.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;

namespace {

// The FormatError's message, or "" when `f` does not throw one (any other exception fails the test).
template <class F>
QString formatErrorOf(F f) {
    try {
        f();
    } catch (const fts::FormatError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestJsonFields : public QObject {
    Q_OBJECT
private slots:
    void kindsAndRanges() {
        QVERIFY(fts::jsonHolds<bool>(json(true)));
        QVERIFY(!fts::jsonHolds<bool>(json(1)));
        QVERIFY(fts::jsonHolds<int>(json(-5)));
        QVERIFY(fts::jsonHolds<int>(json(std::numeric_limits<int>::max())));
        QVERIFY(!fts::jsonHolds<int>(json(int64_t(std::numeric_limits<int>::max()) + 1)));
        QVERIFY(!fts::jsonHolds<int>(json(int64_t(std::numeric_limits<int>::min()) - 1)));
        QVERIFY(!fts::jsonHolds<int>(json(1.5)));
        QVERIFY(!fts::jsonHolds<int>(json("1")));
        QVERIFY(fts::jsonHolds<int64_t>(json(std::numeric_limits<int64_t>::max())));
        QVERIFY(!fts::jsonHolds<int64_t>(json(std::numeric_limits<uint64_t>::max())));  // would wrap to -1
        QVERIFY(fts::jsonHolds<uint64_t>(json(std::numeric_limits<uint64_t>::max())));
        QVERIFY(!fts::jsonHolds<uint64_t>(json(-1)));
        QVERIFY(fts::jsonHolds<double>(json(3)));
        QVERIFY(fts::jsonHolds<double>(json(2.5)));
        QVERIFY(!fts::jsonHolds<double>(json(nullptr)));
        QVERIFY(fts::jsonHolds<std::string>(json("x")));
        QVERIFY(!fts::jsonHolds<std::string>(json::array()));
        QVERIFY(fts::jsonHolds<json>(json::array()));
    }

    void optionalFieldReadsOrNamesTheKey() {
        const json j = {{"n", 4}, {"s", "text"}, {"z", nullptr}, {"b", false}, {"big", 1e300}};
        QCOMPARE(*fts::optionalField<int64_t>(j, "n", "f.json"), int64_t(4));
        QCOMPARE(*fts::optionalField<std::string>(j, "s", "f.json"), std::string("text"));
        QCOMPARE(*fts::optionalField<bool>(j, "b", "f.json"), false);
        QCOMPARE(*fts::optionalField<double>(j, "n", "f.json"), 4.0);  // an integer is a number
        QVERIFY(!fts::optionalField<int>(j, "absent", "f.json"));
        QVERIFY(!fts::optionalField<int>(j, "z", "f.json"));                 // null is absent
        QVERIFY(!fts::optionalField<int>(json::array({1}), "n", "f.json"));  // not an object: nothing to read
        const QString m = formatErrorOf([&] { (void)fts::optionalField<int64_t>(j, "s", "f.json"); });
        QCOMPARE(m, QString(R"(f.json: key "s" must be an integer, found "text")"));
        QVERIFY(formatErrorOf([&] { (void)fts::optionalField<int>(j, "big", "f.json"); }).contains("\"big\""));
        QVERIFY(formatErrorOf([&] {
                    (void)fts::optionalField<std::string>(j, "b", "f.json");
                }).contains("must be a string, found false"));
        QVERIFY(formatErrorOf([&] {
                    (void)fts::optionalField<bool>(j, "n", "f.json");
                }).contains("must be true or false, found 4"));
        // A long value is cut in the message.
        const json longValue = {{"k", json::array({std::string(500, 'x')})}};
        const QString cut = formatErrorOf([&] { (void)fts::optionalField<std::string>(longValue, "k", "f.json"); });
        QVERIFY2(cut.size() < 160 && cut.endsWith("..."), qPrintable(cut));
    }

    void requiredFieldNamesWhatIsMissing() {
        const json j = {{"step", 7}};
        QCOMPARE(fts::requiredField<int64_t>(j, "step", "state.json"), int64_t(7));
        QCOMPARE(formatErrorOf([&] { (void)fts::requiredField<int64_t>(j, "epoch", "state.json"); }),
                 QString(R"(state.json: key "epoch" is missing (expected an integer))"));
        QCOMPARE(formatErrorOf([&] { (void)fts::requiredField<int64_t>(json("x"), "epoch", "state.json"); }),
                 QString(R"(state.json: expected a JSON object, found "x")"));
    }

    void fieldOrFallsBackOnAnyOtherKind() {
        const json ev = {{"event", "metrics"}, {"rank", "zero"}, {"step", 12}, {"time", 1.5}, {"ok", 1}};
        QCOMPARE(fts::fieldOr(ev, "event", ""), std::string("metrics"));
        QCOMPARE(fts::fieldOr(ev, "rank", 3), 3);
        QCOMPARE(fts::fieldOr(ev, "step", int64_t(0)), int64_t(12));
        QCOMPARE(fts::fieldOr(ev, "time", 0.0), 1.5);
        QCOMPARE(fts::fieldOr(ev, "ok", false), false);
        QCOMPARE(fts::fieldOr(ev, "absent", "fallback"), std::string("fallback"));
        QCOMPARE(fts::fieldOr(json(5), "event", "none"), std::string("none"));  // nlohmann's value() threw here
        QVERIFY(std::isnan(fts::fieldOr(ev, "event", double(NAN))));
    }
};

QTEST_APPLESS_MAIN(TestJsonFields)
#include "test_json_fields.moc"
