// compileUserRegex: the target_modules patterns users write (PEFT's full-match strings) compile and match as
// std::regex does; what libstdc++'s parser would overflow on, or recurse through without bound, is refused with a
// message saying which limit (fuzz_train_config found "\99999999999999999999": signed overflow in the parser).
#include <QtTest>

#include <stdexcept>

#include "core/util/user_regex.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::compileUserRegex;

class TestUserRegex : public QObject {
    Q_OBJECT
private slots:
    void patternsUsersWriteCompileAndMatch() {
        struct Case {
            const char* pattern;
            const char* name;
            bool matches;
        };
        const Case cases[] = {
            {R"(.*\.(q_proj|v_proj)$)", "model.layers.0.self_attn.q_proj", true},
            {R"(.*\.(q_proj|v_proj)$)", "model.layers.0.self_attn.o_proj", false},
            {R"(model\.layers\.\d+\.self_attn\.(q|k|v)_proj)", "model.layers.11.self_attn.k_proj", true},
            {R"(.*layers\.[0-9]{1,2}\.mlp\.(gate|up|down)_proj)", "model.layers.31.mlp.up_proj", true},
            {R"(.*layers\.[0-9]{1,2}\.mlp\.(gate|up|down)_proj)", "model.layers.131.mlp.up_proj", false},
            {R"(h\.\d{1,1000}\.attn\.c_attn)", "h.3.attn.c_attn", true},
            {R"([{}]x)", "{x", true},                   // braces in a class are characters, not counts
            {R"(a\{99999999\})", "a{99999999}", true},  // escaped braces: a literal, no count
            {R"((a)\1)", "aa", true},                   // a backreference of one digit
        };
        for (const Case& c : cases) {
            const std::regex re = compileUserRegex(c.pattern);
            QVERIFY2(std::regex_match(c.name, re) == c.matches, c.pattern);
        }
    }

    void limitsAreRefusedWithTheirReason() {
        struct Case {
            std::string pattern;
            const char* reason;
        };
        const Case cases[] = {
            {R"(y]\99999999999999999999z)", "a backreference of more than 2 digits"},
            {"a{1001}", "a repetition count above 1000"},
            {"a{2,99999999999999999999}", "a repetition count above 1000"},
            {"a{99999999999999999999,}", "a repetition count above 1000"},
            {std::string(65, '(') + "a" + std::string(65, ')'), "more than 64 nested groups"},
            {std::string(4097, 'a'), "longer than 4096 characters"},
        };
        for (const Case& c : cases) {
            try {
                compileUserRegex(c.pattern);
                QFAIL(("accepted: " + c.pattern.substr(0, 80)).c_str());
            } catch (const std::invalid_argument& e) {
                QCOMPARE(std::string(e.what()), std::string(c.reason));
            }
        }
        // Within the limits, std::regex's own refusals still come through as regex_error.
        QVERIFY_THROWS_EXCEPTION(std::regex_error, compileUserRegex("(unclosed"));
        QVERIFY_THROWS_EXCEPTION(std::regex_error, compileUserRegex("((a{1000}){1000})"));  // over 100,000 states
    }
};

QTEST_APPLESS_MAIN(TestUserRegex)
#include "test_user_regex.moc"
