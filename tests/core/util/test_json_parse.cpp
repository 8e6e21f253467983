// Tests of the bounded-depth JSON parser: documents up to the limit parse as nlohmann parses them; one level
// more is a parse_error at the bracket past the limit; brackets inside strings (with escaped quotes) do not count;
// 100,000 levels (which overflowed the stack before) are an error, in every entry point.
#include <QtTest>

#include <string>
#include <vector>

#include "core/util/json_parse.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

std::string nested(int depth, char open = '[', char close = ']') {
    return std::string(size_t(depth), open) + std::string(size_t(depth), close);
}

}  // namespace

class TestJsonParse : public QObject {
    Q_OBJECT
private slots:
    void atTheLimitParses() {
        const std::string text = nested(kMaxJsonDepth);
        QCOMPARE(parseJson(text), nlohmann::json::parse(text));
        QVERIFY(!parseJsonOrDiscarded(text).is_discarded());
    }

    void onePastTheLimitIsAnError() {
        const std::string text = nested(kMaxJsonDepth + 1);
        try {
            parseJson(text);
            QFAIL("expected a parse_error");
        } catch (const nlohmann::json::parse_error& e) {
            QCOMPARE(e.id, 101);
            QCOMPARE(e.byte, size_t(kMaxJsonDepth + 1));  // 1-based: the bracket that passes the limit
            QVERIFY2(std::string(e.what()).find("nested more than 512 levels deep") != std::string::npos, e.what());
        }
        QVERIFY(parseJsonOrDiscarded(text).is_discarded());
        QVERIFY(parseOrderedJsonOrDiscarded(text).is_discarded());
    }

    void objectsCountLikeArrays() {
        std::string text;
        for (int i = 0; i < 600; ++i) text += "{\"a\":";
        text += "1" + std::string(600, '}');
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::parse_error, parseOrderedJson(text));
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::parse_error, checkJsonLimits(text, 599));
        checkJsonLimits(text, 600);
    }

    void veryDeepInputIsAnErrorNotACrash() {
        const std::string text = nested(100000);
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::parse_error, parseJson(text));
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::parse_error, parseOrderedJson(text));
        QVERIFY(parseJsonOrDiscarded(text).is_discarded());
        // Unbalanced: only opening brackets.
        QVERIFY(parseJsonOrDiscarded(std::string(100000, '{')).is_discarded());
    }

    void bracketsInStringsDoNotCount() {
        // 1000 brackets inside a string, with escaped quotes and backslashes around them, at depth 2.
        const std::string inner = "\\\"" + std::string(1000, '[') + "\\\\" + std::string(1000, '{') + "\\\"";
        const std::string text = "{\"k\": [\"" + inner + "\"]}";
        const nlohmann::json j = parseJson(text);
        QCOMPARE(j, nlohmann::json::parse(text));
        QCOMPARE(j["k"][0].get<std::string>().size(), size_t(1 + 1000 + 1 + 1000 + 1));  // " [... \ {... "
    }

    // nlohmann reports a number beyond a double's range as out_of_range 406, which catch (parse_error&) misses;
    // here it is a parse_error at the number. Large integers and underflow stay nlohmann's to parse.
    void numbersOutOfRangeAreParseErrors() {
        for (const std::string& text :
             std::vector<std::string>{"[1e99999]", "{\"a\": -2.5E+400}", "[" + std::string(400, '9') + "]"}) {
            try {
                parseJson(text);
                QFAIL(text.c_str());
            } catch (const nlohmann::json::parse_error& e) {
                QVERIFY2(std::string(e.what()).find("out of range") != std::string::npos, e.what());
                QCOMPARE(e.byte, text.find_first_of("-0123456789") + 1);
            }
            QVERIFY(parseJsonOrDiscarded(text).is_discarded());
        }
        QCOMPARE(parseJson("[1e-99999]")[0].get<double>(), 0.0);
        QCOMPARE(parseJson("[18446744073709551615]")[0].get<uint64_t>(), uint64_t(18446744073709551615ull));
        QCOMPARE(parseJson("[\"1e99999\"]")[0].get<std::string>(), std::string("1e99999"));  // in a string: text
    }

    void invalidTextIsNlohmannsError() {
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::parse_error, parseJson("{\"a\": ]"));
        QVERIFY(parseJsonOrDiscarded("[1, 2").is_discarded());
        QCOMPARE(parseOrderedJson(R"({"b": 1, "a": 2})").begin().key(), std::string("b"));  // order kept
    }
};

QTEST_APPLESS_MAIN(TestJsonParse)
#include "test_json_parse.moc"
